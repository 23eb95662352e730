//! The newest run of every series, judged against its last stable regime.
//!
//! A change point needs `min_segment` points after it, so the detector
//! alone cannot see a regression on the night it happens. Each series'
//! newest point is therefore judged in two ways:
//!
//! - **Confirmed**: the detector puts a change point exactly `min_segment`
//!   points before the end (the newest run is the one that confirms it).
//!   The baseline is the regime before that change point.
//! - **Unconfirmed**: otherwise the newest point is tested alone against the
//!   last regime without its unconfirmed tail (the newest `min_segment - 1`
//!   points, which cannot form a regime of their own yet).
//!
//! The test is `effect::Effect` between the baseline's points and the
//! newest point, with the variance of one run's point as the unit: the
//! spread of points around their regime's mean, pooled over every regime
//! of every configuration of the runtime (run-to-run drift included, which
//! repeats of one run cannot show). When no regime has two settled points
//! yet, the repeats of the baseline runs and of the newest run are compared
//! with their between-repeat noise instead. A regression is declared when
//! the change is beyond the threshold with a one-sided test whose p-values
//! are Holm-adjusted across all configurations and metrics at
//! [`FAMILY_ALPHA`], so that an unchanged system rarely fails the nightly
//! job however many configurations it has.
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

use serde::Serialize;

use super::HistorySettings;
use super::edivisive::{ChangePoint, Detection, detect};
use super::series::{Metric, Point, Series};
use crate::stats::effect::{Effect, PooledVariance, holm, t_cdf};

/// Family-wise error rate of the newest-run verdicts of one history.
pub const FAMILY_ALPHA: f64 = 0.01;
/// Confidence level of the newest run's interval.
pub const LEVEL: f64 = 0.95;

/// What the newest run shows for one configuration and metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Worse than the baseline beyond the threshold.
    Regression,
    /// Better than the baseline beyond the threshold.
    Improvement,
    /// Within the threshold, and the interval excludes a change of its size.
    Unchanged,
    /// The interval still includes a change for the worse of the threshold's size.
    Inconclusive,
    /// The newest run measured the configuration but no repeat is usable.
    Failed,
    /// The newest run did not measure the configuration (e.g. `--only`).
    NotMeasured,
    /// Nothing to compare with: the configuration's first run.
    NoBaseline,
}

impl Verdict {
    /// Whether this verdict fails the nightly job (exit 1).
    pub fn fails(self) -> bool {
        matches!(self, Verdict::Regression | Verdict::Failed)
    }
}

/// Where the newest run's noise estimate came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoiseSource {
    /// Points around their regime's mean, pooled over the runtime's configurations.
    BetweenRuns,
    /// Repeats within the baseline runs and the newest run.
    BetweenRepeats,
}

/// The newest run's judgement for one series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Newest {
    pub verdict: Verdict,
    /// True when a change point confirmed by the detector opens the newest
    /// run's regime; false when the newest run was judged alone.
    pub confirmed: bool,
    /// Run ids of the baseline (the last stable regime).
    pub baseline: Vec<String>,
    /// Newest over the baseline (geometric means), with its interval.
    pub effect: Option<Effect>,
    pub noise: Option<NoiseSource>,
    /// One-sided p of "no worse (better) than the threshold", raw and Holm-adjusted.
    pub p_worse: Option<f64>,
    pub p_worse_adjusted: Option<f64>,
    pub p_better: Option<f64>,
    pub p_better_adjusted: Option<f64>,
    /// The same runs as indices into the history's runs.
    pub baseline_runs: Vec<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangePointReport {
    #[serde(flatten)]
    pub at: ChangePoint,
    /// The first run of the new regime.
    pub run_id: String,
    /// `after / before - 1`.
    pub change: f64,
    /// Whether the new regime is worse than the one before.
    pub worse: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegimeReport {
    /// Point indices, end exclusive.
    pub start: usize,
    pub end: usize,
    pub first_run: String,
    pub last_run: String,
    /// Geometric mean of the regime's points.
    pub mean: f64,
}

/// One series with what the detector found and the newest run's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeriesReport {
    pub config_id: String,
    pub runtime: String,
    pub axes: String,
    pub metric: Metric,
    pub points: Vec<Point>,
    pub change_points: Vec<ChangePointReport>,
    pub regimes: Vec<RegimeReport>,
    pub newest: Newest,
}

/// A series whose newest point is the newest run's, before its verdict.
struct Pending {
    series: Series,
    detection: Detection,
    /// Point indices of the baseline; empty when there is none.
    baseline: Range<usize>,
    confirmed: Option<bool>,
    /// Points not in the unconfirmed tail (settled enough to estimate noise).
    settled: usize,
}

/// Detects change points in every series and judges each newest point.
/// `newest_run` is the index of the newest run; `measured_in_newest` the
/// configurations with rows (usable or not) in it.
pub fn judge_all(
    series: Vec<Series>,
    newest_run: usize,
    measured_in_newest: &BTreeSet<String>,
    settings: &HistorySettings,
) -> Vec<SeriesReport> {
    let m = settings.min_segment;
    let pending: Vec<Pending> = series
        .into_iter()
        .map(|s| {
            let detection = detect(&s.values(), &settings.detector(s.metric));
            let has_newest = s.points.last().is_some_and(|p| p.run == newest_run);
            let n = s.points.len();
            let (baseline, confirmed, settled) = if has_newest {
                let (b, c) = baseline(n, &detection, m);
                (b, Some(c), n.saturating_sub((m - 1).max(1)))
            } else {
                // Not judged; its last regime is still its stable one.
                let last = detection.regimes.last().map_or(0..0, |r| r.start..r.end);
                (last, None, n)
            };
            Pending {
                series: s,
                detection,
                baseline,
                confirmed,
                settled,
            }
        })
        .collect();
    let between_runs = between_run_noise(&pending);
    let tests: Vec<Option<Test>> = pending
        .iter()
        .map(|p| test(p, &between_runs, settings))
        .collect();
    let adjust = |pick: fn(&Test) -> f64| {
        let raw: Vec<f64> = tests.iter().flatten().map(pick).collect();
        let mut adjusted = holm(&raw).into_iter();
        tests
            .iter()
            .map(|t| t.as_ref().and_then(|_| adjusted.next()))
            .collect::<Vec<_>>()
    };
    let (worse_adj, better_adj) = (adjust(|t| t.p_worse), adjust(|t| t.p_better));
    pending
        .into_iter()
        .zip(tests)
        .zip(worse_adj.into_iter().zip(better_adj))
        .map(|((p, t), (wa, ba))| report(p, t, wa, ba, measured_in_newest, settings))
        .collect()
}

/// The baseline of a series whose last point is the newest run, and whether
/// the detector confirms a change at the newest run.
fn baseline(n: usize, detection: &Detection, m: usize) -> (Range<usize>, bool) {
    let Some(last) = detection.regimes.last() else {
        return (0..0, false);
    };
    if last.start > 0 && n - last.start == m {
        let before = &detection.regimes[detection.regimes.len() - 2];
        return (before.start..before.end, true);
    }
    let end = n
        .saturating_sub(m.saturating_sub(1))
        .max(last.start + 1)
        .min(n - 1);
    (last.start..end.max(last.start), false)
}

/// The spread of settled points around their regime's mean, pooled by
/// (runtime, metric).
fn between_run_noise(pending: &[Pending]) -> HashMap<(String, Metric), PooledVariance> {
    let mut groups: HashMap<(String, Metric), Vec<Vec<f64>>> = HashMap::new();
    for p in pending.iter().filter(|p| p.confirmed.is_some()) {
        for regime in &p.detection.regimes {
            let end = regime.end.min(p.settled);
            if end > regime.start {
                groups
                    .entry((p.series.runtime.clone(), p.series.metric))
                    .or_default()
                    .push(
                        p.series.points[regime.start..end]
                            .iter()
                            .map(|x| x.value)
                            .collect(),
                    );
            }
        }
    }
    groups
        .into_iter()
        .filter_map(|(key, g)| PooledVariance::of(g.iter().map(Vec::as_slice)).map(|v| (key, v)))
        .collect()
}

struct Test {
    effect: Effect,
    noise: NoiseSource,
    p_worse: f64,
    p_better: f64,
}

fn test(
    p: &Pending,
    between_runs: &HashMap<(String, Metric), PooledVariance>,
    settings: &HistorySettings,
) -> Option<Test> {
    if p.baseline.is_empty() || p.confirmed.is_none() {
        return None;
    }
    let points = &p.series.points;
    let newest = points.last()?;
    let base = &points[p.baseline.clone()];
    let metric = p.series.metric;
    let (effect, noise) = match between_runs.get(&(p.series.runtime.clone(), metric)) {
        Some(v) => {
            let values: Vec<f64> = base.iter().map(|x| x.value).collect();
            let e = Effect::between(&values, *v, &[newest.value], *v, LEVEL)?;
            (e, NoiseSource::BetweenRuns)
        }
        None => {
            let repeats: Vec<f64> = base.iter().flat_map(|x| x.repeats.clone()).collect();
            let va = pool(base.iter().filter_map(|x| x.noise))?;
            let e = Effect::between(&repeats, va, &newest.repeats, newest.noise?, LEVEL)?;
            (e, NoiseSource::BetweenRepeats)
        }
    };
    let threshold = settings.threshold_for(metric);
    let (worse_bound, better_bound) = if metric.higher_is_better() {
        ((1.0 - threshold).ln(), (1.0 + threshold).ln())
    } else {
        ((1.0 + threshold).ln(), (1.0 - threshold).ln())
    };
    let worse_is_up = !metric.higher_is_better();
    Some(Test {
        p_worse: p_beyond(&effect, worse_bound, worse_is_up),
        p_better: p_beyond(&effect, better_bound, !worse_is_up),
        effect,
        noise,
    })
}

/// Pools several runs' between-repeat noise (weighted by degrees of freedom).
fn pool(parts: impl Iterator<Item = PooledVariance>) -> Option<PooledVariance> {
    let (mut sum, mut df) = (0.0, 0.0);
    for v in parts {
        sum += v.var * v.df;
        df += v.df;
    }
    (df > 0.0).then(|| PooledVariance { var: sum / df, df })
}

/// One-sided p-value of "the log ratio is not beyond `bound`" (beyond =
/// above it when `up`, below it otherwise): small when the whole interval
/// lies past the bound.
fn p_beyond(effect: &Effect, bound: f64, up: bool) -> f64 {
    let d = effect.ratio.ln();
    let excess = if up { d - bound } else { bound - d };
    if effect.se == 0.0 {
        return if excess > 0.0 { 0.0 } else { 1.0 };
    }
    t_cdf(-excess / effect.se, effect.df)
}

fn report(
    p: Pending,
    test: Option<Test>,
    worse_adjusted: Option<f64>,
    better_adjusted: Option<f64>,
    measured_in_newest: &BTreeSet<String>,
    settings: &HistorySettings,
) -> SeriesReport {
    let metric = p.series.metric;
    let points = &p.series.points;
    let run_id = |i: usize| points[i].run_id.clone();
    let change_points: Vec<ChangePointReport> = p
        .detection
        .change_points
        .iter()
        .map(|c| ChangePointReport {
            at: *c,
            run_id: run_id(c.index),
            change: c.change(),
            worse: metric.is_worse(c.before, c.after),
        })
        .collect();
    let regimes = p
        .detection
        .regimes
        .iter()
        .map(|r| RegimeReport {
            start: r.start,
            end: r.end,
            first_run: run_id(r.start),
            last_run: run_id(r.end - 1),
            mean: r.mean,
        })
        .collect();
    let confirmed = p.confirmed == Some(true);
    let verdict = match (&p.confirmed, &test) {
        (None, _) if measured_in_newest.contains(&p.series.config_id) => Verdict::Failed,
        (None, _) => Verdict::NotMeasured,
        _ if confirmed => {
            let cp = change_points.last().expect("a confirmed change point");
            if cp.worse {
                Verdict::Regression
            } else {
                Verdict::Improvement
            }
        }
        (_, None) if p.baseline.is_empty() => Verdict::NoBaseline,
        (_, None) => Verdict::Inconclusive,
        (_, Some(t)) => {
            let threshold = settings.threshold_for(metric);
            if worse_adjusted.is_some_and(|a| a < FAMILY_ALPHA) {
                Verdict::Regression
            } else if better_adjusted.is_some_and(|a| a < FAMILY_ALPHA) {
                Verdict::Improvement
            } else if includes_worse_threshold(&t.effect, metric, threshold) {
                Verdict::Inconclusive
            } else {
                Verdict::Unchanged
            }
        }
    };
    let baseline_runs: Vec<usize> = points[p.baseline.clone()].iter().map(|x| x.run).collect();
    let newest = Newest {
        verdict,
        confirmed,
        baseline: points[p.baseline.clone()]
            .iter()
            .map(|x| x.run_id.clone())
            .collect(),
        effect: test.as_ref().map(|t| t.effect),
        noise: test.as_ref().map(|t| t.noise),
        p_worse: test.as_ref().map(|t| t.p_worse),
        p_worse_adjusted: worse_adjusted,
        p_better: test.as_ref().map(|t| t.p_better),
        p_better_adjusted: better_adjusted,
        baseline_runs,
    };
    SeriesReport {
        config_id: p.series.config_id,
        runtime: p.series.runtime,
        axes: p.series.axes,
        metric,
        points: p.series.points,
        change_points,
        regimes,
        newest,
    }
}

/// Whether the interval reaches a change for the worse of `threshold`.
fn includes_worse_threshold(effect: &Effect, metric: Metric, threshold: f64) -> bool {
    if metric.higher_is_better() {
        effect.lo <= 1.0 - threshold
    } else {
        effect.hi >= 1.0 + threshold
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::history::edivisive::Regime;

    fn detection(bounds: &[usize]) -> Detection {
        Detection {
            change_points: vec![],
            regimes: bounds
                .windows(2)
                .map(|w| Regime {
                    start: w[0],
                    end: w[1],
                    mean: 1.0,
                })
                .collect(),
        }
    }

    #[test]
    fn the_baseline_leaves_out_the_unconfirmed_tail() {
        // 10 points, one regime, min segment 3: the newest 2 cannot form a regime yet.
        assert_eq!(baseline(10, &detection(&[0, 10]), 3), (0..8, false));
        // Min segment 2: only the newest point is left out.
        assert_eq!(baseline(10, &detection(&[0, 10]), 2), (0..9, false));
        // A regime opened 5 points ago: the baseline is that regime, less the tail.
        assert_eq!(baseline(10, &detection(&[0, 5, 10]), 3), (5..8, false));
    }

    #[test]
    fn a_change_point_confirmed_by_the_newest_run_makes_the_regime_before_the_baseline() {
        assert_eq!(baseline(10, &detection(&[0, 7, 10]), 3), (0..7, true));
        assert_eq!(baseline(10, &detection(&[0, 4, 7, 10]), 3), (4..7, true));
    }

    #[test]
    fn short_histories_keep_at_least_the_first_point_and_a_single_run_has_none() {
        assert_eq!(baseline(2, &detection(&[0, 2]), 3), (0..1, false));
        assert_eq!(baseline(3, &detection(&[0, 3]), 3), (0..1, false));
        assert_eq!(baseline(1, &detection(&[0, 1]), 3).0.len(), 0);
    }

    fn effect(ratio: f64, se: f64) -> Effect {
        Effect {
            ratio,
            lo: ratio,
            hi: ratio,
            level: 0.95,
            p: 1.0,
            p_lower: 0.5,
            p_higher: 0.5,
            se,
            df: 1e6,
        }
    }

    #[test]
    fn the_one_sided_test_is_against_the_threshold_not_against_no_change() {
        let bound = 0.95f64.ln();
        // 20% lower with se 0.02: far beyond a 5% drop.
        assert!(p_beyond(&effect(0.8, 0.02), bound, false) < 1e-6);
        // Exactly at the threshold: p = 0.5.
        assert!((p_beyond(&effect(0.95, 0.02), bound, false) - 0.5).abs() < 1e-6);
        // 3% lower, very precise: significant as a change, not beyond 5%.
        assert!(p_beyond(&effect(0.97, 0.001), bound, false) > 0.99);
        // Latency: worse is up.
        assert!(p_beyond(&effect(1.3, 0.02), 1.1f64.ln(), true) < 1e-6);
        assert_eq!(p_beyond(&effect(1.3, 0.0), 1.1f64.ln(), true), 0.0);
    }
}
