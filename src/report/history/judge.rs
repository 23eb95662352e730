//! The newest run of every series, judged against its last stable regime
//! by the same rule as `runner compare` (`stats::judge_pairs`).
//!
//! Two families, each Holm-adjusted across every series at [`FAMILY_ALPHA`]:
//!
//! - **The newest run** against its baseline: the last regime the detector
//!   found, less the unconfirmed tail (the newest `min_segment - 1` points,
//!   which cannot form a regime yet), or the regime before a change point
//!   the newest run confirms. The baseline's repeats are pooled as one side
//!   (as `compare --baseline history` does, with the same verdicts), the
//!   run-level noise estimated from the baseline's runs (`stats::run_level`;
//!   the floor below three).
//! - **The confirmation**: the newest `min_segment` runs pooled against the
//!   regime before them. A change the detector may not call significant on
//!   its own (5 runs before and 3 after: its permutation p cannot go below
//!   about 0.05) is confirmed when this test calls it a regression or an
//!   improvement. The detector's change points shape the regimes; verdicts
//!   come only from the two families, so that a flat history of many series
//!   does not confirm a false regression on one night in five.
//!
//! A **drift** is a slow trend no step test sees: the slope of the log
//! points over the series (least squares, a t test on the slope, Holm
//! across series) is reported when it is significant and its change over
//! the series reaches the threshold. It is reported, not failed on.
use std::collections::BTreeSet;
use std::ops::Range;

use serde::Serialize;

use super::HistorySettings;
use super::edivisive::{ChangePoint, Detection, detect};
use super::series::{Metric, Point, Series};
use crate::stats::Verdict as RuleVerdict;
use crate::stats::effect::{Effect, holm, t_cdf};
use crate::stats::{Judged, Pair, Rule, RunLevel, RunLevelNoise, RunsOfConfig, judge_pairs};

/// Family-wise error rate of the newest-run verdicts of one history.
pub const FAMILY_ALPHA: f64 = 0.01;

/// What the newest run shows for one configuration and metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Worse than the baseline beyond the threshold.
    Regression,
    /// Better than the baseline beyond the threshold.
    Improvement,
    /// A change was seen, which the interval rules smaller than the threshold.
    BelowThreshold,
    /// The interval includes no change and rules out a threshold-sized change for the worse.
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

/// The newest run's judgement for one series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Newest {
    pub verdict: Verdict,
    /// True when the newest `min_segment` runs, pooled, differ from the
    /// regime before them beyond the threshold (the confirmation family).
    pub confirmed: bool,
    /// The first run of the confirmed regime (index into the history's runs).
    pub confirmed_from: Option<usize>,
    /// The confirmation test: the newest `min_segment` runs over the regime before.
    pub confirmation: Option<Effect>,
    /// Run ids of the baseline (the last stable regime).
    pub baseline: Vec<String>,
    /// Newest over the baseline (geometric means), with its interval.
    pub effect: Option<Effect>,
    /// The run-level noise in the effect, and where it came from.
    pub run_level: Option<RunLevel>,
    /// One-sided p of "not worse (better) than the baseline", raw and Holm-adjusted.
    pub p_worse: Option<f64>,
    pub p_worse_adjusted: Option<f64>,
    pub p_better: Option<f64>,
    pub p_better_adjusted: Option<f64>,
    /// The same runs as indices into the history's runs.
    pub baseline_runs: Vec<usize>,
    /// The newest run's own verdict against the baseline by the compare
    /// rule, before the confirmation family: what `runner compare
    /// --baseline history` and `runner nightly` judge. Not in the JSON,
    /// whose `verdict` is history's (either family).
    #[serde(skip)]
    pub alone: Option<RuleVerdict>,
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
    /// A significant trend over the series, when its change reaches the threshold.
    pub drift: Option<Drift>,
    /// A candidate/control ratio (a run with `controls:`): its values are
    /// ratios, not req/s or ms.
    pub ratio: bool,
}

/// A slow trend over a series.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Drift {
    /// Relative change per run, `exp(slope) - 1`.
    pub per_run: f64,
    /// Relative change over the series' points.
    pub total: f64,
    /// Holm-adjusted two-sided p of "no slope".
    pub p_adjusted: f64,
    /// Whether the trend goes the worse way.
    pub worse: bool,
}

/// A series whose newest point is the newest run's, before its verdict.
struct Pending {
    series: Series,
    detection: Detection,
    /// Point indices of the baseline; empty when there is none.
    baseline: Range<usize>,
    /// `None` when the series does not end with the newest run (not
    /// judged); else whether the detector puts a change point where the
    /// newest run confirms it (the baseline is then the regime before).
    confirmed: Option<bool>,
}

/// Detects change points in every series and judges each newest point.
/// `newest_run` is the index of the newest run; `measured_in_newest` the
/// configurations with rows (usable or not) in it.
pub fn judge_all(
    series: Vec<Series>,
    newest_run: usize,
    measured_in_newest: &BTreeSet<String>,
    settings: &HistorySettings,
) -> (Vec<SeriesReport>, RunLevelNoise) {
    let m = settings.min_segment;
    let pending: Vec<Pending> = series
        .into_iter()
        .map(|s| {
            let detection = detect(&s.values(), &settings.detector(s.metric));
            let has_newest = s.points.last().is_some_and(|p| p.run == newest_run);
            let n = s.points.len();
            let (baseline, confirmed) = if has_newest {
                let (b, c) = baseline(n, &detection, m);
                (b, Some(c))
            } else {
                // Not judged; its last regime is still its stable one.
                let last = detection.regimes.last().map_or(0..0, |r| r.start..r.end);
                (last, None)
            };
            Pending {
                series: s,
                detection,
                baseline,
                confirmed,
            }
        })
        .collect();
    let rule = settings.rule();
    let run_level = run_level_of(&pending, settings);
    let newest = family(&pending, &rule, &run_level, |p| {
        let n = p.series.points.len();
        (p.confirmed.is_some() && !p.baseline.is_empty()).then(|| (p.baseline.clone(), n - 1..n))
    });
    let confirmation = family(&pending, &rule, &run_level, |p| {
        let tail = tail_split(p, m)?;
        Some((tail, p.series.points.len() - m..p.series.points.len()))
    });
    let drifts = drifts(&pending, settings);
    let reports = pending
        .into_iter()
        .zip(newest)
        .zip(confirmation.into_iter().zip(drifts))
        .map(|((p, n), (c, d))| report(p, n, c, d, measured_in_newest, m))
        .collect();
    (reports, run_level)
}

/// The regime before the newest `m` points: from the start of the regime
/// that holds the point just before them; `None` without two such points
/// or when the series does not end with the newest run.
fn tail_split(p: &Pending, m: usize) -> Option<Range<usize>> {
    let n = p.series.points.len();
    if p.confirmed.is_none() || n < m + 2 {
        return None;
    }
    let cut = n - m;
    let start = p
        .detection
        .regimes
        .iter()
        .find(|r| (r.start..r.end).contains(&(cut - 1)))
        .map_or(0, |r| r.start);
    (cut - start >= 2).then_some(start..cut)
}

/// One side of a test: the repeats pooled over its runs, and where those
/// runs lie in the history.
struct PooledSide {
    repeats: Vec<f64>,
    at: Vec<usize>,
}

/// One family of tests, one per series that `sides` gives two point ranges
/// for (baseline, judged), judged by the compare rule with Holm across the
/// family; `None` for the others.
fn family(
    pending: &[Pending],
    rule: &Rule,
    run_level: &RunLevelNoise,
    sides: impl Fn(&Pending) -> Option<(Range<usize>, Range<usize>)>,
) -> Vec<Option<Judged>> {
    let values: Vec<Option<[PooledSide; 2]>> = pending
        .iter()
        .map(|p| {
            let (a, b) = sides(p)?;
            let pool = |r: Range<usize>| {
                let points = &p.series.points[r];
                PooledSide {
                    repeats: points
                        .iter()
                        .flat_map(|x| x.repeats.iter().copied())
                        .collect(),
                    at: points.iter().map(|x| x.run).collect(),
                }
            };
            Some([pool(a), pool(b)])
        })
        .collect();
    let pairs: Vec<Pair> = pending
        .iter()
        .zip(&values)
        .filter_map(|(p, v)| {
            let [a, b] = v.as_ref()?;
            Some(Pair {
                runtime: &p.series.runtime,
                metric: p.series.metric.stats(),
                a: &a.repeats,
                b: &b.repeats,
                a_runs: &a.at,
                b_runs: &b.at,
                judged: !(p.series.metric == Metric::Throughput && p.series.open_loop),
            })
        })
        .collect();
    let mut judged = judge_pairs(&pairs, rule, run_level).into_iter();
    values
        .iter()
        .map(|v| v.as_ref().and_then(|_| judged.next()))
        .collect()
}

/// The run-level noise of every runtime and metric from the baselines'
/// runs (the floor where fewer than three).
fn run_level_of(pending: &[Pending], settings: &HistorySettings) -> RunLevelNoise {
    let mut runs: BTreeSet<usize> = BTreeSet::new();
    let configs: Vec<RunsOfConfig> = pending
        .iter()
        .filter(|p| p.confirmed.is_some())
        .map(|p| {
            let points = &p.series.points[p.baseline.clone()];
            runs.extend(points.iter().map(|x| x.run));
            RunsOfConfig {
                runtime: &p.series.runtime,
                metric: p.series.metric.stats(),
                runs: points
                    .iter()
                    .map(|x| (x.run, x.repeats.as_slice()))
                    .collect(),
            }
        })
        .collect();
    RunLevelNoise::estimate(settings.run_noise, runs.len(), configs)
}

/// Each series' drift: a least-squares slope of its log points, a t test
/// on it, Holm across series; kept when significant at the family's alpha
/// and its change over the series reaches the threshold.
fn drifts(pending: &[Pending], settings: &HistorySettings) -> Vec<Option<Drift>> {
    let slopes: Vec<Option<(f64, f64, usize)>> =
        pending.iter().map(|p| slope(&p.series.values())).collect();
    let p: Vec<f64> = slopes.iter().flatten().map(|s| s.1).collect();
    let mut adjusted = holm(&p).into_iter();
    pending
        .iter()
        .zip(slopes)
        .map(|(pending, s)| {
            let (slope, _, n) = s?;
            let p_adjusted = adjusted.next().expect("one per slope");
            let metric = pending.series.metric;
            let total = (slope * (n - 1) as f64).exp_m1();
            (p_adjusted < FAMILY_ALPHA && total.abs() >= settings.threshold_for(metric)).then(
                || Drift {
                    per_run: slope.exp_m1(),
                    total,
                    p_adjusted,
                    worse: metric.is_worse(1.0, 1.0 + total),
                },
            )
        })
        .collect()
}

/// The least-squares slope of the logs of `values` against their index,
/// its two-sided p, and the number of points; `None` below 6 points.
fn slope(values: &[f64]) -> Option<(f64, f64, usize)> {
    let n = values.len();
    if n < MIN_DRIFT_POINTS || values.iter().any(|v| *v <= 0.0) {
        return None;
    }
    let y: Vec<f64> = values.iter().map(|v| v.ln()).collect();
    let x_mean = (n - 1) as f64 / 2.0;
    let y_mean = y.iter().sum::<f64>() / n as f64;
    let sxx: f64 = (0..n).map(|i| (i as f64 - x_mean).powi(2)).sum();
    let sxy: f64 = (0..n).map(|i| (i as f64 - x_mean) * (y[i] - y_mean)).sum();
    let b = sxy / sxx;
    let rss: f64 = (0..n)
        .map(|i| (y[i] - y_mean - b * (i as f64 - x_mean)).powi(2))
        .sum();
    let se = (rss / (n - 2) as f64 / sxx).sqrt();
    let p = if se > 0.0 {
        2.0 * t_cdf(-(b / se).abs(), (n - 2) as f64)
    } else if b == 0.0 {
        1.0
    } else {
        0.0
    };
    Some((b, p, n))
}

/// Fewest points a drift is looked for in.
const MIN_DRIFT_POINTS: usize = 6;

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

fn report(
    p: Pending,
    newest: Option<Judged>,
    confirmation: Option<Judged>,
    drift: Option<Drift>,
    measured_in_newest: &BTreeSet<String>,
    min_segment: usize,
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
    let confirmed_verdict = confirmation
        .as_ref()
        .map(|c| c.verdict)
        .filter(|v| matches!(v, RuleVerdict::Regression | RuleVerdict::Improvement));
    let verdict = match (&p.confirmed, &newest, confirmed_verdict) {
        (None, _, _) if measured_in_newest.contains(&p.series.config_id) => Verdict::Failed,
        (None, _, _) => Verdict::NotMeasured,
        (_, _, Some(RuleVerdict::Regression)) => Verdict::Regression,
        (_, None, _) if p.baseline.is_empty() => Verdict::NoBaseline,
        (_, None, _) => Verdict::Inconclusive,
        (_, Some(j), confirmed) => match j.verdict {
            RuleVerdict::Regression | RuleVerdict::Failed => Verdict::Regression,
            RuleVerdict::Improvement => Verdict::Improvement,
            _ if confirmed == Some(RuleVerdict::Improvement) => Verdict::Improvement,
            RuleVerdict::BelowThreshold => Verdict::BelowThreshold,
            RuleVerdict::Unchanged => Verdict::Unchanged,
            RuleVerdict::Inconclusive | RuleVerdict::Insufficient | RuleVerdict::NotJudged => {
                Verdict::Inconclusive
            }
        },
    };
    let confirmed = confirmed_verdict.is_some();
    let baseline_runs: Vec<usize> = points[p.baseline.clone()].iter().map(|x| x.run).collect();
    let effect = newest.as_ref().and_then(|j| j.effect);
    let newest = Newest {
        verdict,
        confirmed,
        confirmed_from: confirmed.then(|| points[points.len() - min_segment].run),
        confirmation: confirmation.as_ref().and_then(|c| c.effect),
        baseline: points[p.baseline.clone()]
            .iter()
            .map(|x| x.run_id.clone())
            .collect(),
        effect,
        run_level: newest.as_ref().and_then(|j| j.run_level),
        p_worse: effect.map(|e| metric.stats().one_sided_p(&e, true)),
        p_worse_adjusted: newest.as_ref().and_then(|j| j.p_worse),
        p_better: effect.map(|e| metric.stats().one_sided_p(&e, false)),
        p_better_adjusted: newest.as_ref().and_then(|j| j.p_better),
        baseline_runs,
        alone: newest.as_ref().map(|j| j.verdict),
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
        drift,
        ratio: p.series.ratio,
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
}
