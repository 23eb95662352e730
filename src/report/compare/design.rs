//! What a comparison's design can see: per runtime, the repeat-to-repeat
//! noise of each side, the smallest change it could detect with the repeats
//! it has, and the repeats it would need to detect the threshold. This is
//! what turns a silent "no regression" into "cannot detect a 5% change with
//! 2 repeats: need >= 9".
use serde::Serialize;

use crate::stats::effect::{MAX_REPEATS, detectable_change, repeats_needed_with_runs};
use crate::stats::spread::median;
use crate::stats::{Better, ConfigJudged, Metric, POWER, Rule, RunNoise, RunRepeats};

/// One runtime and metric.
#[derive(Debug, Clone, Serialize)]
pub struct DesignRow {
    pub runtime: String,
    pub metric: Metric,
    /// Relative SD of one repeat (pooled over the runtime's configurations).
    pub a_noise: Option<f64>,
    pub b_noise: Option<f64>,
    /// Median usable repeats per configuration on each side.
    pub a_repeats: usize,
    pub b_repeats: usize,
    /// The smallest change for the worse detectable in one configuration
    /// (80% power, at Holm's strictest level), for the runtime's least
    /// sensitive configuration: the one whose verdict decides
    /// "inconclusive". Its other configurations can see as small a change
    /// or smaller. Stated the way it can happen ([`worse_change`]): a
    /// throughput loss (a fraction, below 1), a latency increase (any size).
    pub detectable: Option<f64>,
    /// The threshold of this metric, and the repeats per side needed to
    /// detect it (`None`: more than [`MAX_REPEATS`], or no noise estimate).
    pub threshold: f64,
    pub repeats_needed: Option<u32>,
    /// Relative SD of one run's offset in the comparison (estimated or the floor).
    pub run_noise: Option<f64>,
    /// The run-level noise alone keeps the threshold out of sight: no number
    /// of repeats helps; runs in the history (or a measured floor) would.
    pub limited_by_runs: bool,
}

/// The design rows of the judged metrics for every runtime in both runs;
/// `judged` is [`crate::stats::judge_all`]'s answer for the same runs.
pub fn design(
    a: &RunRepeats,
    b: &RunRepeats,
    rule: &Rule,
    judged: &[ConfigJudged],
) -> Vec<DesignRow> {
    let (na, nb) = (RunNoise::of(a), RunNoise::of(b));
    let tests = judged
        .iter()
        .flat_map(|c| c.metrics.iter())
        .filter(|m| m.detectable.is_some())
        .count();
    let strictest = rule.alpha / tests.max(1) as f64;
    let mut rows = Vec::new();
    for runtime in na.runtimes().filter(|r| nb.runtimes().any(|x| x == *r)) {
        for metric in rule.judged() {
            let (pa, pb) = (na.get(runtime, metric), nb.get(runtime, metric));
            let (ka, kb) = (repeats_of(a, runtime), repeats_of(b, runtime));
            let configs = a.values().filter(|c| c.runtime == runtime).count();
            let threshold = rule.threshold_of(metric).expect("a judged metric");
            let detectable = judged
                .iter()
                .filter(|c| c.runtime == runtime)
                .filter_map(|c| c.metrics[metric as usize].detectable)
                .reduce(f64::max)
                .map(|change| worse_change(metric, change));
            // The run-level part of a log ratio's variance, largest over the
            // runtime's configurations: it does not shrink with repeats.
            let run_level = judged
                .iter()
                .filter(|c| c.runtime == runtime)
                .filter_map(|c| {
                    let j = &c.metrics[metric as usize];
                    let rl = j.run_level?;
                    let runs = |id: &str, run: &RunRepeats| {
                        run.get(id).map_or(1, |r| r.runs(metric)) as f64
                    };
                    Some((
                        rl,
                        rl.var() * (1.0 / runs(&c.config_id, a) + 1.0 / runs(&c.config_id, b)),
                    ))
                })
                .max_by(|x, y| x.1.total_cmp(&y.1));
            let run_var = run_level.map_or(0.0, |r| r.1);
            let limited_by_runs = worse_change(
                metric,
                detectable_change(run_var.sqrt(), 1e6, strictest, POWER),
            ) > threshold;
            let needed = match (pa, pb) {
                (Some(pa), Some(pb)) if !limited_by_runs => repeats_needed_with_runs(
                    pa,
                    pb,
                    configs,
                    run_var,
                    threshold,
                    strictest,
                    POWER,
                    MAX_REPEATS,
                ),
                _ => None,
            };
            rows.push(DesignRow {
                runtime: runtime.to_string(),
                metric,
                a_noise: pa.map(|p| p.relative_sd()),
                b_noise: pb.map(|p| p.relative_sd()),
                a_repeats: ka,
                b_repeats: kb,
                detectable,
                threshold,
                repeats_needed: needed,
                run_noise: run_level.map(|r| r.0.relative_sd()),
                limited_by_runs,
            });
        }
    }
    rows
}

/// A detectable change the way it can happen for the metric, from
/// `detectable_change`'s `exp(k) - 1` (k the detectable log ratio): a
/// throughput loss is `1 - exp(-k)`, so it stays below 100% however noisy
/// the runs (a "loss of 2933.9%" cannot happen: it is a ratio of x0.033); a
/// latency increase is `exp(k) - 1` and can exceed 100%. Thresholds are read
/// the same way (`--threshold 5%`: 5% less throughput; `--latency-threshold
/// 10%`: 10% more latency).
pub fn worse_change(metric: Metric, change: f64) -> f64 {
    match metric.better() {
        Better::Higher => change / (1.0 + change),
        Better::Lower => change,
    }
}

fn repeats_of(run: &RunRepeats, runtime: &str) -> usize {
    let counts: Vec<f64> = run
        .values()
        .filter(|c| c.runtime == runtime)
        .map(|c| c.usable() as f64)
        .collect();
    median(&counts).map_or(0, |m| m.round() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_throughput_loss_stays_below_100_percent_a_latency_increase_does_not() {
        // exp(k) - 1 = 29.339 is a ratio of x0.033 for throughput: a 96.7% loss.
        let loss = worse_change(Metric::Throughput, 29.339);
        assert!((loss - 0.96704).abs() < 1e-4, "{loss}");
        assert!(worse_change(Metric::Throughput, 1e9) < 1.0);
        assert_eq!(worse_change(Metric::P99, 1.835), 1.835);
        // Small changes read nearly the same either way.
        assert!((worse_change(Metric::Throughput, 0.05) - 0.047619).abs() < 1e-6);
    }
}
