//! The verdicts of a comparison, from the repeats alone.
//!
//! Rule (docs/compare.md states it for users):
//! 1. Each configuration and metric gives one value per usable repeat
//!    (throughput, p50, p99 of the repeat); per-second samples are never
//!    treated as independent observations.
//! 2. The effect is the ratio B/A of the geometric means of the repeats, with
//!    a 95% t interval whose variance is each side's between-repeat variance
//!    pooled over the configurations of the runtime (see `stats::effect`).
//! 3. The alarm is for regressions, so each test is one-sided: "is B worse
//!    than A?" (less throughput, more p99). Throughput and p99 of every
//!    configuration form one family, and Holm's adjustment keeps the chance
//!    of any false alarm across the family at or below `alpha` (0.01): an
//!    unchanged system fails a nightly comparison on at most ~1% of nights.
//!    "Is B better?" is a second family, adjusted the same way, and never
//!    fails a comparison. p50 is reported with its interval but not judged
//!    (in closed loop it carries what throughput carries, and would only
//!    spend the family's alpha).
//! 4. A regression (improvement) is significant in its family after
//!    adjustment and beyond the threshold in the worse (better) direction;
//!    significant but inside the threshold is "below threshold". A test that
//!    is significant in neither is "unchanged" when the design could have
//!    detected a threshold-sized change (the detectable change at Holm's
//!    strictest level, alpha / tests, one-sided, 80% power, is within the
//!    threshold), else "inconclusive": the comparison cannot tell.
use serde::Serialize;

use super::effect::{Effect, detectable_change, holm, log_mean};
use super::repeats::{Better, ConfigRepeats, Metric, RunNoise, RunRepeats};

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
    /// Significant after adjustment, but smaller than the threshold.
    BelowThreshold,
    /// Not significant, and the design would have seen a threshold-sized change.
    Unchanged,
    /// Not significant, and the design could not see a threshold-sized change.
    Inconclusive,
    /// No usable repeat on a side, or no noise estimate (one repeat everywhere).
    Insufficient,
    /// Reported with its interval, not judged (p50).
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

/// Judges every configuration present in both runs, in A's order.
pub fn judge_all(a: &RunRepeats, b: &RunRepeats, rule: &Rule) -> Vec<ConfigJudged> {
    let (noise_a, noise_b) = (RunNoise::of(a), RunNoise::of(b));
    let mut out: Vec<ConfigJudged> = a
        .iter()
        .filter_map(|(id, ca)| {
            let cb = b.get(id)?;
            let metrics = Metric::ALL.map(|metric| measure(metric, ca, cb, &noise_a, &noise_b));
            Some(ConfigJudged {
                config_id: id.clone(),
                runtime: ca.runtime.clone(),
                axes: ca.axes.clone(),
                metrics,
            })
        })
        .collect();
    decide(&mut out, rule);
    out
}

/// The effect of one metric, before the family is adjusted.
fn measure(
    metric: Metric,
    a: &ConfigRepeats,
    b: &ConfigRepeats,
    noise_a: &RunNoise,
    noise_b: &RunNoise,
) -> Judged {
    let (va, vb) = (a.of(metric), b.of(metric));
    let effect = match (
        noise_a.get(&a.runtime, metric),
        noise_b.get(&b.runtime, metric),
    ) {
        (Some(pa), Some(pb)) => Effect::between(va, pa, vb, pb, LEVEL),
        _ => None,
    };
    let verdict = if !va.is_empty() && vb.is_empty() {
        Verdict::Failed
    } else {
        Verdict::Insufficient
    };
    Judged {
        a_mean: geometric_mean(va),
        b_mean: geometric_mean(vb),
        a_repeats: va.len(),
        b_repeats: vb.len(),
        effect,
        p_worse: None,
        p_better: None,
        detectable: None,
        verdict,
    }
}

/// Holm across every judged test, once per direction, then each test's verdict.
fn decide(configs: &mut [ConfigJudged], rule: &Rule) {
    let mut tests: Vec<(usize, usize)> = Vec::new();
    for (c, config) in configs.iter().enumerate() {
        for metric in rule.judged() {
            if config.metrics[metric as usize].effect.is_some() {
                tests.push((c, metric as usize));
            }
        }
    }
    let one_sided = |worse: bool| -> Vec<f64> {
        let p: Vec<f64> = tests
            .iter()
            .map(|&(c, m)| {
                let e = configs[c].metrics[m]
                    .effect
                    .expect("only tests with an effect");
                let lower_is_worse = Metric::ALL[m].better() == Better::Higher;
                if lower_is_worse == worse {
                    e.p_lower
                } else {
                    e.p_higher
                }
            })
            .collect();
        holm(&p)
    };
    let (worse, better) = (one_sided(true), one_sided(false));
    let strictest = rule.alpha / tests.len().max(1) as f64;
    for (i, &(c, m)) in tests.iter().enumerate() {
        let judged = &mut configs[c].metrics[m];
        let effect = judged.effect.expect("only tests with an effect");
        let metric = Metric::ALL[m];
        let threshold = rule
            .threshold_of(metric)
            .expect("only judged metrics are tested");
        let detectable = detectable_change(effect.se, effect.df, strictest, POWER);
        judged.p_worse = Some(worse[i]);
        judged.p_better = Some(better[i]);
        judged.detectable = Some(detectable);
        if judged.verdict == Verdict::Failed {
            continue;
        }
        // The change as users read it: `ratio - 1`, positive = better
        // whichever way the metric improves (a 5% threshold is 5% less
        // throughput, or 5% more latency).
        let gain = match metric.better() {
            Better::Higher => effect.change(),
            Better::Lower => -effect.change(),
        };
        // The worst change the interval allows, read the same way: a
        // significant loss smaller than the threshold is "below threshold"
        // only when the interval rules out a threshold-sized loss too.
        let worst_gain = match metric.better() {
            Better::Higher => effect.lo - 1.0,
            Better::Lower => 1.0 - effect.hi,
        };
        let (is_worse, is_better) = (worse[i] < rule.alpha, better[i] < rule.alpha);
        judged.verdict = if is_worse && gain <= -threshold {
            Verdict::Regression
        } else if is_better && gain >= threshold {
            Verdict::Improvement
        } else if is_worse && worst_gain <= -threshold {
            Verdict::Inconclusive
        } else if is_worse || is_better {
            Verdict::BelowThreshold
        } else if detectable <= threshold {
            Verdict::Unchanged
        } else {
            Verdict::Inconclusive
        };
    }
    for config in configs.iter_mut() {
        for metric in Metric::ALL
            .into_iter()
            .filter(|m| rule.threshold_of(*m).is_none())
        {
            let reported = &mut config.metrics[metric as usize];
            if reported.verdict != Verdict::Failed {
                reported.verdict = Verdict::NotJudged;
            }
        }
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
            failed: 0,
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

    const RULE: Rule = Rule {
        threshold: 0.05,
        latency_threshold: Some(0.10),
        alpha: 0.01,
    };

    #[test]
    fn a_clear_drop_in_one_configuration_is_a_regression_of_that_one_only() {
        let a = run(1.0, 0.01);
        let b = run(0.7, 0.012);
        let judged = judge_all(&a, &b, &RULE);
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

    #[test]
    fn a_significant_loss_is_below_threshold_only_when_its_interval_rules_out_the_threshold() {
        let verdict = |scale, jitter| {
            judge_all(&run(1.0, jitter), &run(scale, jitter), &RULE)[0].metrics
                [Metric::Throughput as usize]
                .clone()
        };
        let reaching = verdict(0.96, 0.01);
        let e = reaching.effect.unwrap();
        assert!(e.lo < 0.95 && e.ratio > 0.95, "{e:?}");
        assert_eq!(reaching.verdict, Verdict::Inconclusive);
        let clear = verdict(0.98, 0.002);
        assert!(clear.effect.unwrap().lo > 0.95);
        assert_eq!(clear.verdict, Verdict::BelowThreshold);
    }

    #[test]
    fn noise_too_large_for_the_threshold_is_inconclusive_not_unchanged() {
        let judged = judge_all(&run(1.0, 0.2), &run(1.0, 0.21), &RULE);
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
        let judged = judge_all(&a, &b, &RULE);
        assert_eq!(judged[0].metrics[0].verdict, Verdict::Failed);
        let single: RunRepeats = [("go/x".to_string(), config("go", &[5.0], &[1.0]))].into();
        let judged = judge_all(&single, &single, &RULE);
        assert_eq!(judged[0].metrics[0].verdict, Verdict::Insufficient);
    }

    #[test]
    fn identical_runs_are_unchanged_everywhere() {
        let a = run(1.0, 0.01);
        let judged = judge_all(&a, &a, &RULE);
        assert!(
            judged
                .iter()
                .all(|c| c.metrics[0].verdict == Verdict::Unchanged
                    && c.metrics[2].verdict == Verdict::Unchanged)
        );
    }
}
