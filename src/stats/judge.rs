//! The verdicts of a comparison, from the repeats and the run-level noise.
//!
//! Rule (docs/compare.md states it for users, with its calibration):
//! 1. Each configuration and metric gives one value per usable repeat
//!    (throughput, p50, p99 of the repeat); per-second samples are never
//!    treated as independent observations.
//! 2. The effect is the ratio B/A of the geometric means of the repeats. Its
//!    variance has three parts: the configuration's repeat noise (both
//!    sides' pooled, moderated toward its runtime's: `stats::moderated`)
//!    over each side's repeats, and each side's run-level noise over its
//!    runs (`stats::run_level`: estimated from history, or a stated floor). The
//!    95% interval is a t interval with Welch-Satterthwaite degrees of
//!    freedom; it is *not* adjusted for the family, and says so where shown.
//! 3. The alarm is for regressions, so each test is one-sided: "is B worse
//!    than A?" (less throughput, more p99). Throughput and p99 of every
//!    configuration form one family, and Holm's adjustment keeps the chance
//!    of any false alarm across the family at or below `alpha` (0.01).
//!    "Is B better?" is a second family, adjusted the same way, and never
//!    fails a comparison. p50 is reported with its interval but not judged,
//!    and so is throughput in open loop (the offered rate fixes it).
//! 4. A regression is significant in its family after adjustment (B is
//!    worse) with an interval that reaches a threshold-sized loss: the loss
//!    is real and may be as large as the threshold (so a loss of exactly the
//!    threshold is found with the test's power, not half the time, as a rule
//!    on the point estimate would). A significant loss whose interval rules
//!    out the threshold is `below-threshold`. Improvements mirror this.
//!    Without significance the interval decides, as an equivalence test
//!    would (TOST at 2.5% per side): when it reaches a threshold-sized
//!    change for the worse, the comparison cannot tell (`inconclusive`);
//!    when it rules that out and excludes no change, a small change was
//!    seen (`below-threshold`); when it rules that out and includes no
//!    change, `unchanged`. So `unchanged` always comes with an interval that
//!    rules out a threshold-sized loss and never with one that excludes zero.
use serde::Serialize;

use super::effect::{Effect, PooledVariance, VarianceTerm, detectable_change, holm, log_mean};
use indexmap::IndexMap;

use super::moderated::{Prior, pooled_pair, sample_variance};
use super::outliers::outlier_repeats;
use super::repeats::{Better, ConfigRepeats, Metric, RunRepeats};
use super::run_level::{RunLevel, RunLevelNoise};

/// Confidence level of the reported intervals.
pub const LEVEL: f64 = 0.95;
/// Power at which the detectable change is stated.
pub const POWER: f64 = 0.8;

/// Family-wise error rate across all judged tests of one comparison: the
/// chance that an unchanged system is reported as changed anywhere.
pub const ALPHA: f64 = 0.01;

/// compare's defaults (`--threshold 5%`, `--latency-threshold 10%`), for
/// what judges or predicts a comparison without a command line (`runner plan`).
pub const DEFAULT_RULE: Rule = Rule {
    threshold: 0.05,
    latency_threshold: Some(0.10),
    alpha: ALPHA,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Significant after adjustment and worse by more than the threshold.
    Regression,
    /// Every repeat failed in B where A had usable ones: counted as a regression.
    Failed,
    /// Significant after adjustment and better by more than the threshold.
    Improvement,
    /// A change was seen (the interval excludes none), but its interval
    /// rules out one of the threshold's size for the worse.
    BelowThreshold,
    /// The interval includes no change and rules out a threshold-sized
    /// change for the worse.
    Unchanged,
    /// Not a regression, but the interval still reaches a threshold-sized
    /// change for the worse: the comparison cannot tell.
    Inconclusive,
    /// No usable repeat on a side, or no noise estimate (one repeat everywhere).
    Insufficient,
    /// Reported with its interval, not judged (p50; throughput in open loop).
    NotJudged,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Regression => "REGRESSION",
            Verdict::Failed => "FAILED in B",
            Verdict::Improvement => "improvement",
            Verdict::BelowThreshold => "below threshold",
            Verdict::Unchanged => "unchanged",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Insufficient => "insufficient data",
            Verdict::NotJudged => "",
        }
    }

    pub fn is_regression(self) -> bool {
        matches!(self, Verdict::Regression | Verdict::Failed)
    }

    /// The comparison could not tell whether this changed.
    pub fn cannot_tell(self) -> bool {
        matches!(self, Verdict::Inconclusive | Verdict::Insufficient)
    }
}

/// What a comparison is judged against.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// Relative throughput change (0.05 = 5%) a significant change must reach.
    pub threshold: f64,
    /// The same for p99 latency; `None`: p99 is reported, not judged.
    pub latency_threshold: Option<f64>,
    /// Family-wise error rate across all judged tests.
    pub alpha: f64,
}

impl Rule {
    /// The threshold of a judged metric; `None` for a metric that is only
    /// reported (p50 always, p99 when its threshold is off).
    pub fn threshold_of(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Throughput => Some(self.threshold),
            Metric::P50 => None,
            Metric::P99 => self.latency_threshold,
        }
    }

    /// The metrics that enter the family of tests.
    pub fn judged(&self) -> impl Iterator<Item = Metric> + '_ {
        Metric::ALL
            .into_iter()
            .filter(|m| self.threshold_of(*m).is_some())
    }
}

/// The judgement of one metric of one configuration.
#[derive(Debug, Clone, Serialize)]
pub struct Judged {
    /// Geometric means of the usable repeats.
    pub a_mean: Option<f64>,
    pub b_mean: Option<f64>,
    pub a_repeats: usize,
    pub b_repeats: usize,
    /// The ratio B/A with its 95% interval and unadjusted p-values.
    pub effect: Option<Effect>,
    /// The run-level noise in the effect's variance, and where it came from.
    pub run_level: Option<RunLevel>,
    /// Repeats (1-based, in run order) far outside the others of their
    /// side: shown and named, kept in the figures.
    pub a_outliers: Vec<usize>,
    pub b_outliers: Vec<usize>,
    /// Holm-adjusted one-sided p-values (judged metrics only): of "B is
    /// worse" (the regression family) and of "B is better".
    pub p_worse: Option<f64>,
    pub p_better: Option<f64>,
    /// The smallest change this comparison could detect here (relative,
    /// at Holm's strictest level and 80% power).
    pub detectable: Option<f64>,
    pub verdict: Verdict,
}

impl Judged {
    /// `ratio - 1`, the relative change.
    pub fn change(&self) -> Option<f64> {
        self.effect.map(|e| e.change())
    }
}

/// One configuration's judgements, per metric in [`Metric::ALL`] order.
#[derive(Debug, Clone)]
pub struct ConfigJudged {
    pub config_id: String,
    pub runtime: String,
    pub axes: String,
    pub metrics: [Judged; 3],
}

/// Judges every configuration present in both runs, in A's order, with
/// `run_level` added once per run on each side.
pub fn judge_all(
    a: &RunRepeats,
    b: &RunRepeats,
    rule: &Rule,
    run_level: &RunLevelNoise,
) -> Vec<ConfigJudged> {
    let matched: Vec<(&String, &ConfigRepeats, &ConfigRepeats)> = a
        .iter()
        .filter_map(|(id, ca)| Some((id, ca, b.get(id)?)))
        .collect();
    let pairs: Vec<Pair> = matched
        .iter()
        .flat_map(|(_, ca, cb)| Metric::ALL.map(|metric| Pair::of(ca, cb, metric, rule)))
        .collect();
    let mut judged = judge_pairs(&pairs, rule, run_level).into_iter();
    matched
        .into_iter()
        .map(|(id, ca, _)| ConfigJudged {
            config_id: id.clone(),
            runtime: ca.runtime.clone(),
            axes: ca.axes.clone(),
            metrics: std::array::from_fn(|_| judged.next().expect("three per configuration")),
        })
        .collect()
}

/// One test of a family: a metric of one configuration, its values on
/// each side and how many runs they come from.
#[derive(Debug, Clone)]
pub struct Pair<'a> {
    pub runtime: &'a str,
    pub metric: Metric,
    pub a: &'a [f64],
    pub b: &'a [f64],
    /// The runs each side's values come from, as history indices (a wander
    /// of the level makes distant runs differ more); empty for one run read
    /// on its own.
    pub a_runs: &'a [usize],
    pub b_runs: &'a [usize],
    /// Whether it enters the family (a judged metric, not throughput in
    /// open loop); the others are measured and reported only.
    pub judged: bool,
}

impl<'a> Pair<'a> {
    /// `metric` of a configuration measured on both sides.
    pub fn of(a: &'a ConfigRepeats, b: &'a ConfigRepeats, metric: Metric, rule: &Rule) -> Self {
        Pair {
            runtime: &a.runtime,
            metric,
            a: a.of(metric),
            b: b.of(metric),
            a_runs: &a.at[metric as usize],
            b_runs: &b.at[metric as usize],
            judged: rule.threshold_of(metric).is_some()
                && !(metric == Metric::Throughput && (a.open_loop || b.open_loop)),
        }
    }
}

/// Judges a family of tests: each effect with its interval, Holm across
/// the judged ones (once per direction), then each verdict. The one rule
/// behind compare, compare against history, and history's judgement of its
/// newest run.
///
/// A configuration's repeat noise is moderated toward the prior of its
/// runtime and metric, fitted on the two sides' pooled variances of every
/// pair of the family (`stats::moderated`). Each side then uses the larger
/// of its own moderated variance and the pooled one. Pooling is what keeps
/// skewed real noise honest: a side that happened to draw none of its rare
/// slow repeats has a low mean *and* a low variance, and judged on its own
/// variance looks like a significant change (12% of unchanged histories
/// failed that way on the committed runs' residuals); the larger-of keeps an
/// outlier on one side from hiding in the other side's quiet repeats (7.5%
/// of histories with 3% outlier repeats failed with the pooled alone).
pub fn judge_pairs(pairs: &[Pair], rule: &Rule, run_level: &RunLevelNoise) -> Vec<Judged> {
    let samples: Vec<Samples> = pairs.iter().map(Samples::of).collect();
    let mut by_key: IndexMap<(&str, Metric), Vec<(f64, f64)>> = IndexMap::new();
    for (pair, sample) in pairs.iter().zip(&samples) {
        if let Some(pooled) = sample.pooled {
            by_key
                .entry((pair.runtime, pair.metric))
                .or_default()
                .push(pooled);
        }
    }
    let priors: IndexMap<(&str, Metric), Prior> = by_key
        .into_iter()
        .filter_map(|(key, samples)| Some((key, Prior::fit_samples(samples)?)))
        .collect();
    let mut judged: Vec<Judged> = pairs
        .iter()
        .zip(&samples)
        .map(|(pair, sample)| {
            let prior = priors.get(&(pair.runtime, pair.metric));
            measure(pair, prior, sample, run_level)
        })
        .collect();
    decide(pairs, &mut judged, rule);
    judged
}

/// The effect of one test, before the family is adjusted.
fn measure(
    pair: &Pair,
    prior: Option<&Prior>,
    samples: &Samples,
    run_level: &RunLevelNoise,
) -> Judged {
    let (metric, va, vb) = (pair.metric, pair.a, pair.b);
    let run_level = run_level.of(pair.runtime, metric);
    let effect = match (prior, log_mean(va), log_mean(vb)) {
        (Some(prior), Some(la), Some(lb)) => {
            let pooled = prior.moderate_sample(samples.pooled);
            // Each side's noise is the larger of its own (moderated) and
            // the pooled: neither a side that drew none of its rare slow
            // repeats nor an outlier on one side makes a change look sure.
            // The variance of the side's mean.
            let side = |own: Option<(f64, f64)>, values: &[f64]| {
                prior.moderate_sample(own).var.max(pooled.var) / positive(values) as f64
            };
            let [common, specific, wander] = run_level.terms(pair.a_runs, pair.b_runs);
            let terms = [
                repeat_term(side(samples.a, va) + side(samples.b, vb), pooled),
                common,
                specific,
                wander,
            ];
            Some(Effect::of_log_difference(lb - la, &terms, LEVEL))
        }
        _ => None,
    };
    let verdict = if !va.is_empty() && vb.is_empty() {
        Verdict::Failed
    } else {
        Verdict::Insufficient
    };
    let outliers = |values: &[f64]| {
        prior
            .map(|p| outlier_repeats(values, p))
            .unwrap_or_default()
    };
    Judged {
        a_mean: geometric_mean(va),
        b_mean: geometric_mean(vb),
        a_repeats: va.len(),
        b_repeats: vb.len(),
        effect,
        run_level: effect.map(|_| run_level),
        a_outliers: outliers(va),
        b_outliers: outliers(vb),
        p_worse: None,
        p_better: None,
        detectable: None,
        verdict,
    }
}

/// The repeats' part of a log difference's variance, `var` (both sides'
/// means together), as one term with the degrees of freedom of the
/// `pooled` estimate (the prior's and both sides' own).
///
/// Why one term: the two sides' noise estimates are not independent. Most
/// often both are the same pooled estimate, from both sides' repeats, and
/// otherwise each still holds the same prior; Welch-Satterthwaite on them
/// as two independent terms counted the same degrees of freedom twice.
/// Where the configurations of a runtime differ in noise (the prior lends
/// little), a 5-against-5 comparison claimed about 17 degrees of freedom
/// for an estimate of about 9, and at Holm's levels (one-sided ~1e-4)
/// t(17) is 4.7 where t(9) is 6.0. A side's own variance, where it is the
/// larger, only widens a term that the pooled estimate bounds from below,
/// so the pooled degrees of freedom stay (the fewer of the two sides'
/// would take the power to find a 20% loss on the committed runs' noise
/// from 60% to 33% and their false alarms from 0.75% to 0%).
/// scripts/calibrate-compare.sh, 2,000 unchanged pairs on the committed
/// runs' noise: 1.50% failed with the degrees of freedom counted twice,
/// 0.75% now.
fn repeat_term(var: f64, pooled: PooledVariance) -> VarianceTerm {
    VarianceTerm { var, df: pooled.df }
}

/// The sample variances of one pair: each side's and the two pooled.
struct Samples {
    a: Option<(f64, f64)>,
    b: Option<(f64, f64)>,
    pooled: Option<(f64, f64)>,
}

impl Samples {
    fn of(pair: &Pair) -> Self {
        let (a, b) = (sample_variance(pair.a), sample_variance(pair.b));
        Samples {
            a,
            b,
            pooled: pooled_pair(a, b),
        }
    }
}

/// How many of the values enter a log mean.
fn positive(values: &[f64]) -> usize {
    values.iter().filter(|v| **v > 0.0 && v.is_finite()).count()
}

/// Holm across every judged test, once per direction, then each test's verdict.
fn decide(pairs: &[Pair], judged: &mut [Judged], rule: &Rule) {
    let tests: Vec<usize> = (0..pairs.len())
        .filter(|&i| pairs[i].judged && judged[i].effect.is_some())
        .collect();
    let one_sided = |worse: bool| -> Vec<f64> {
        let p: Vec<f64> = tests
            .iter()
            .map(|&i| {
                let e = judged[i].effect.expect("only tests with an effect");
                pairs[i].metric.one_sided_p(&e, worse)
            })
            .collect();
        holm(&p)
    };
    let (worse, better) = (one_sided(true), one_sided(false));
    let strictest = rule.alpha / tests.len().max(1) as f64;
    for (k, &i) in tests.iter().enumerate() {
        let metric = pairs[i].metric;
        let test = &mut judged[i];
        let effect = test.effect.expect("only tests with an effect");
        let threshold = rule
            .threshold_of(metric)
            .expect("only judged metrics are tested");
        test.p_worse = Some(worse[k]);
        test.p_better = Some(better[k]);
        test.detectable = Some(detectable_change(effect.se, effect.df, strictest, POWER));
        if test.verdict != Verdict::Failed {
            test.verdict = verdict(
                metric,
                &effect,
                threshold,
                (worse[k] < rule.alpha, better[k] < rule.alpha),
            );
        }
    }
    for (pair, test) in pairs.iter().zip(judged.iter_mut()) {
        if !pair.judged && test.verdict != Verdict::Failed {
            test.verdict = Verdict::NotJudged;
        }
    }
}

/// One test's verdict from its effect and its Holm-adjusted significance
/// (`is_worse`, `is_better` at the family's alpha).
fn verdict(
    metric: Metric,
    effect: &Effect,
    threshold: f64,
    (is_worse, is_better): (bool, bool),
) -> Verdict {
    // Changes as users read them: positive = better whichever way the
    // metric improves (a 5% threshold is 5% less throughput, or 5% more
    // latency); the worst and the best change the interval allows.
    let (worst_gain, best_gain) = match metric.better() {
        Better::Higher => (effect.lo - 1.0, effect.hi - 1.0),
        Better::Lower => (1.0 - effect.hi, 1.0 - effect.lo),
    };
    let excludes_no_change = worst_gain > 0.0 || best_gain < 0.0;
    if is_worse && worst_gain <= -threshold {
        // Certainly worse, and by as much as the threshold for all the
        // interval can tell: a regression.
        Verdict::Regression
    } else if is_better && best_gain >= threshold {
        Verdict::Improvement
    } else if is_worse || is_better || (excludes_no_change && worst_gain > -threshold) {
        // A change, which the interval rules smaller than the threshold
        // (for the worse; an improvement is never a concern).
        Verdict::BelowThreshold
    } else if worst_gain <= -threshold {
        Verdict::Inconclusive
    } else {
        Verdict::Unchanged
    }
}

fn geometric_mean(values: &[f64]) -> Option<f64> {
    log_mean(values).map(f64::exp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(runtime: &str, rps: &[f64], p99: &[f64]) -> ConfigRepeats {
        ConfigRepeats {
            runtime: runtime.into(),
            axes: String::new(),
            values: [rps.to_vec(), p99.to_vec(), p99.to_vec()],
            ..Default::default()
        }
    }

    /// 20 configurations of one runtime with ~1% repeat noise; `scale`
    /// multiplies configuration 0's throughput (and divides its latency).
    fn run(scale: f64, jitter: f64) -> RunRepeats {
        (0..20)
            .map(|i| {
                let base = 1000.0 + 100.0 * i as f64;
                let r = [base * (1.0 + jitter), base * (1.0 - jitter), base];
                let s = if i == 0 { scale } else { 1.0 };
                let rps: Vec<f64> = r.iter().map(|v| v * s).collect();
                let p99: Vec<f64> = r.iter().map(|v| 10_000.0 / v / s).collect();
                (format!("go/c={i}"), config("go", &rps, &p99))
            })
            .collect()
    }

    static NONE: std::sync::LazyLock<RunLevelNoise> =
        std::sync::LazyLock::new(|| RunLevelNoise::floor(crate::stats::Floor::NONE));

    const RULE: Rule = Rule {
        threshold: 0.05,
        latency_threshold: Some(0.10),
        alpha: 0.01,
    };

    #[test]
    fn a_clear_drop_in_one_configuration_is_a_regression_of_that_one_only() {
        let a = run(1.0, 0.01);
        let b = run(0.7, 0.012);
        let judged = judge_all(&a, &b, &RULE, &NONE);
        let regressed: Vec<&str> = judged
            .iter()
            .filter(|c| c.metrics.iter().any(|m| m.verdict.is_regression()))
            .map(|c| c.config_id.as_str())
            .collect();
        assert_eq!(regressed, ["go/c=0"]);
        let t = &judged[0].metrics[Metric::Throughput as usize];
        let e = t.effect.unwrap();
        assert!(
            (e.ratio - 0.7).abs() < 0.01 && e.lo < 0.7 && e.hi > 0.7,
            "{e:?}"
        );
        assert!(
            judged[1..]
                .iter()
                .all(|c| c.metrics[0].verdict == Verdict::Unchanged)
        );
        assert_eq!(
            judged[0].metrics[Metric::P50 as usize].verdict,
            Verdict::NotJudged
        );
    }

    /// Configurations whose noise differs tenfold lend each other little;
    /// a 5-against-5 comparison then rests on the pooled estimate's own
    /// degrees of freedom (the prior's and 4 + 4), not on twice them.
    #[test]
    fn the_repeats_degrees_of_freedom_are_counted_once() {
        let jitter = [0.9, -1.1, 0.4, -0.6, 0.3];
        let side = |shift: f64| -> RunRepeats {
            (0..12)
                .map(|i| {
                    let sd = 0.005 * 1.5f64.powi(i);
                    let rps: Vec<f64> = jitter
                        .iter()
                        .map(|j| (7.0 + sd * (j + shift * (i % 3) as f64)).exp())
                        .collect();
                    (format!("go/c={i}"), config("go", &rps, &rps))
                })
                .collect()
        };
        let (a, b) = (side(0.0), side(0.5));
        let pooled: Vec<(f64, f64)> = (0..12)
            .map(|i| {
                let id = format!("go/c={i}");
                let of = |r: &RunRepeats| sample_variance(r[&id].of(Metric::Throughput));
                pooled_pair(of(&a), of(&b)).unwrap()
            })
            .collect();
        let prior = Prior::fit_samples(pooled.clone()).unwrap();
        assert!(prior.df < 8.0, "the prior lends little: {prior:?}");
        let judged = judge_all(&a, &b, &RULE, &NONE);
        for (i, c) in judged.iter().enumerate() {
            let effect = c.metrics[Metric::Throughput as usize].effect.unwrap();
            let expected = prior.moderate_sample(Some(pooled[i])).df;
            assert!(
                (effect.df - expected).abs() < 1e-9,
                "{i}: {effect:?} vs {expected}"
            );
        }
    }

    #[test]
    fn a_significant_loss_is_a_regression_when_its_interval_reaches_the_threshold() {
        let verdict = |scale, jitter| {
            judge_all(&run(1.0, jitter), &run(scale, jitter), &RULE, &NONE)[0].metrics
                [Metric::Throughput as usize]
                .clone()
        };
        // A 4% loss, certain, whose interval reaches 5%: a loss of the
        // threshold's size cannot be ruled out, so it fails the comparison.
        let reaching = verdict(0.96, 0.01);
        let e = reaching.effect.unwrap();
        assert!(e.lo < 0.95 && e.ratio > 0.95, "{e:?}");
        assert!(reaching.p_worse.unwrap() < RULE.alpha, "{reaching:?}");
        assert_eq!(reaching.verdict, Verdict::Regression);
        let clear = verdict(0.98, 0.002);
        assert!(clear.effect.unwrap().lo > 0.95);
        assert_eq!(clear.verdict, Verdict::BelowThreshold);
    }

    #[test]
    fn noise_too_large_for_the_threshold_is_inconclusive_not_unchanged() {
        let judged = judge_all(&run(1.0, 0.2), &run(1.0, 0.21), &RULE, &NONE);
        assert!(
            judged
                .iter()
                .all(|c| c.metrics[0].verdict == Verdict::Inconclusive)
        );
        assert!(judged[0].metrics[0].detectable.unwrap() > 0.05);
    }

    #[test]
    fn all_repeats_failed_in_b_is_failed_and_one_repeat_everywhere_is_insufficient() {
        let a = run(1.0, 0.01);
        let mut b = run(1.0, 0.01);
        b[0] = ConfigRepeats {
            failed: 3,
            ..config("go", &[], &[])
        };
        let judged = judge_all(&a, &b, &RULE, &NONE);
        assert_eq!(judged[0].metrics[0].verdict, Verdict::Failed);
        let single: RunRepeats = [("go/x".to_string(), config("go", &[5.0], &[1.0]))].into();
        let judged = judge_all(&single, &single, &RULE, &NONE);
        assert_eq!(judged[0].metrics[0].verdict, Verdict::Insufficient);
    }

    #[test]
    fn identical_runs_are_unchanged_everywhere() {
        let a = run(1.0, 0.01);
        let judged = judge_all(&a, &a, &RULE, &NONE);
        assert!(
            judged
                .iter()
                .all(|c| c.metrics[0].verdict == Verdict::Unchanged
                    && c.metrics[2].verdict == Verdict::Unchanged)
        );
    }

    fn effect(ratio: f64, lo: f64, hi: f64) -> Effect {
        Effect {
            ratio,
            lo,
            hi,
            level: LEVEL,
            p: 0.5,
            p_lower: 0.5,
            p_higher: 0.5,
            se: 0.01,
            df: 20.0,
        }
    }

    /// Issue 27's cases: `unchanged` is granted on the interval, never on
    /// power, and never to an interval that excludes no change.
    #[test]
    fn unchanged_only_when_the_interval_rules_out_the_threshold_and_includes_no_change() {
        let throughput = |e: Effect| verdict(Metric::Throughput, &e, 0.05, (false, false));
        // 0.966 [0.948, 0.984] at 5%: the interval allows a 5.2% loss.
        assert_eq!(
            throughput(effect(0.966, 0.948, 0.984)),
            Verdict::Inconclusive
        );
        // An interval excluding zero but within the threshold: a small change seen.
        assert_eq!(
            throughput(effect(0.98, 0.965, 0.995)),
            Verdict::BelowThreshold
        );
        assert_eq!(throughput(effect(1.0, 0.97, 1.03)), Verdict::Unchanged);
        // -78.9% [-95.5%, -0.5%] is never unchanged.
        assert_eq!(
            throughput(effect(0.211, 0.045, 0.995)),
            Verdict::Inconclusive
        );
        // Latency: worse is up.
        let p99 = |e: Effect| verdict(Metric::P99, &e, 0.10, (false, false));
        assert_eq!(p99(effect(1.02, 0.95, 1.12)), Verdict::Inconclusive);
        assert_eq!(p99(effect(1.02, 0.96, 1.08)), Verdict::Unchanged);
    }
}
