//! Run-level noise: what changes between two runs of an unchanged system
//! beyond what its repeats show.
//!
//! A run is one draw of the host (its temperature, its neighbours, the day),
//! of the build and, when every repeat shares a start, of the starts. Each
//! configuration then carries an offset common to all of its repeats in that
//! run, which the repeats of one run cannot see: two runs of an unchanged
//! system differ by it, and a rule that ignores it fails unchanged systems
//! (5 of 10 pairs with a one-sigma offset per run, issue 27). So every
//! interval that compares runs adds the run-level variance `tau²` once per
//! run on each side (`tau² / k` for a side pooled over `k` runs):
//!
//! - **from history**: with three or more comparable runs, `tau²` per
//!   runtime and metric is the spread of a configuration's run means beyond
//!   what its repeats explain (method of moments, pooled over the runtime's
//!   configurations, never below zero), with its degrees of freedom;
//! - **a floor** otherwise: a stated relative SD per metric (compare's
//!   `--run-noise`, `--latency-run-noise`), whose defaults were measured on
//!   this project's shared host (docs/compare.md says how).
use indexmap::IndexMap;
use serde::Serialize;

use super::effect::PooledVariance;
use super::effect::log_mean;
use super::moderated::sample_variance;
use super::repeats::Metric;

/// compare's default floors: the relative SD of a run's offset, for
/// throughput and for p99 (measured on the project's host, docs/compare.md).
pub const DEFAULT_FLOOR: Floor = Floor {
    throughput: 0.05,
    p99: 0.12,
};

/// The between-run relative SDs assumed without history.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Floor {
    /// Relative SD of a run's throughput offset (0.05 = 5%).
    pub throughput: f64,
    /// The same for p99 (and p50) latency.
    pub p99: f64,
}

impl Floor {
    /// No run-level noise: for comparisons inside one run (pairs, wins) and
    /// for calibrating the repeat rule alone.
    pub const NONE: Floor = Floor {
        throughput: 0.0,
        p99: 0.0,
    };

    fn log_var(&self, metric: Metric) -> f64 {
        let rel = match metric {
            Metric::Throughput => self.throughput,
            Metric::P50 | Metric::P99 => self.p99,
        };
        rel.ln_1p().powi(2)
    }
}

/// Where a comparison's run-level variance came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum RunLevelSource {
    /// Estimated from this many comparable runs of the experiment.
    History { runs: usize },
    /// The stated floor (no history of three comparable runs).
    Floor,
}

/// The run-level variance of one runtime and metric.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RunLevel {
    /// Variance of one run's log offset.
    pub var: f64,
    /// Its degrees of freedom (infinite for a stated floor).
    pub df: f64,
    pub source: RunLevelSource,
}

impl RunLevel {
    /// Relative SD of one run's offset, `exp(sd) - 1`.
    pub fn relative_sd(&self) -> f64 {
        self.var.sqrt().exp_m1()
    }
}

/// Run-level variance per runtime and metric: estimated where history
/// allows, the floor elsewhere.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunLevelNoise {
    pub floor: Floor,
    /// Comparable runs the estimate was drawn from (0: none).
    pub history_runs: usize,
    #[serde(skip)]
    estimated: IndexMap<(String, Metric), PooledVariance>,
}

/// One configuration's repeats in each of several runs, for the estimate.
pub struct RunsOfConfig<'a> {
    pub runtime: &'a str,
    pub metric: Metric,
    /// Per run: the run's index in the history (the same index for the same
    /// run in every configuration) and its usable repeat values.
    pub runs: Vec<(usize, &'a [f64])>,
}

impl RunLevelNoise {
    /// Only the floor.
    pub fn floor(floor: Floor) -> Self {
        RunLevelNoise {
            floor,
            history_runs: 0,
            estimated: IndexMap::new(),
        }
    }

    /// Estimates `tau²` from configurations measured in several runs; a
    /// runtime and metric with fewer than three runs keeps the floor.
    ///
    /// A run's offset has two parts, estimated apart because they behave
    /// differently: a **shift common to every configuration of the runtime**
    /// in that run (the host had a slow day, a runtime block ran after a
    /// noisy neighbour started), and what is **specific to the
    /// configuration**. The common part has only `runs - 1` degrees of
    /// freedom however many configurations share it (treating 28
    /// configurations as 28 independent witnesses of one shift fails an
    /// unchanged system on 4% of runs in the calibration); the specific part
    /// has `(runs - 1) x (configurations - 1)`. `tau²` is their sum, with
    /// Welch-Satterthwaite degrees of freedom.
    pub fn estimate<'a>(
        floor: Floor,
        history_runs: usize,
        configs: impl IntoIterator<Item = RunsOfConfig<'a>>,
    ) -> Self {
        let mut groups: IndexMap<(String, Metric), Vec<Vec<RunMean>>> = IndexMap::new();
        if history_runs >= 3 {
            for config in configs {
                let means: Vec<RunMean> = config
                    .runs
                    .iter()
                    .filter_map(|(run, values)| RunMean::of(*run, values))
                    .collect();
                if means.len() >= 3 {
                    groups
                        .entry((config.runtime.to_string(), config.metric))
                        .or_default()
                        .push(means);
                }
            }
        }
        let estimated = groups
            .into_iter()
            .filter_map(|(key, configs)| Some((key, common_and_specific(&configs)?)))
            .collect();
        RunLevelNoise {
            floor,
            history_runs,
            estimated,
        }
    }

    /// The run-level variance of `runtime`'s `metric`.
    pub fn of(&self, runtime: &str, metric: Metric) -> RunLevel {
        match self.estimated.get(&(runtime.to_string(), metric)) {
            Some(v) => RunLevel {
                var: v.var,
                df: v.df,
                source: RunLevelSource::History {
                    runs: self.history_runs,
                },
            },
            None => RunLevel {
                var: self.floor.log_var(metric),
                df: f64::INFINITY,
                source: RunLevelSource::Floor,
            },
        }
    }
}

/// One run's log mean of a configuration, and the variance of that mean
/// its own repeats explain.
#[derive(Debug, Clone, Copy)]
struct RunMean {
    run: usize,
    mean: f64,
    within: f64,
}

impl RunMean {
    fn of(run: usize, values: &[f64]) -> Option<RunMean> {
        let (var, df) = sample_variance(values)?;
        Some(RunMean {
            run,
            mean: log_mean(values)?,
            within: var / (df + 1.0),
        })
    }
}

/// `tau² = common + specific` of one runtime and metric, by the method of
/// moments (each part never below zero), from each configuration's run
/// means; `None` without three runs.
fn common_and_specific(configs: &[Vec<RunMean>]) -> Option<PooledVariance> {
    // Each configuration's run means around its own grand mean.
    let deviations: Vec<Vec<(usize, f64)>> = configs
        .iter()
        .map(|runs| {
            let grand = runs.iter().map(|r| r.mean).sum::<f64>() / runs.len() as f64;
            runs.iter().map(|r| (r.run, r.mean - grand)).collect()
        })
        .collect();
    let within = configs.iter().flatten().map(|r| r.within).sum::<f64>()
        / configs.iter().map(Vec::len).sum::<usize>() as f64;
    // The common shift of each run: the mean deviation of the configurations measured in it.
    let mut shifts: IndexMap<usize, (f64, usize)> = IndexMap::new();
    for (run, d) in deviations.iter().flatten() {
        let entry = shifts.entry(*run).or_default();
        entry.0 += d;
        entry.1 += 1;
    }
    let k = shifts.len();
    if k < 3 {
        return None;
    }
    let shift = |run: usize| shifts[&run].0 / shifts[&run].1 as f64;
    // What is left once the shift is taken out: the specific offsets plus
    // the repeats' own noise.
    let (mut ss, mut cells) = (0.0, 0usize);
    for (run, d) in deviations.iter().flatten() {
        ss += (d - shift(*run)).powi(2);
        cells += 1;
    }
    let g = configs.len();
    let df_specific = (cells.saturating_sub(k + g - 1)).max(1) as f64;
    let specific = (ss / df_specific - within).max(0.0);
    let mean_shift = shifts.keys().map(|r| shift(*r)).sum::<f64>() / k as f64;
    let shift_var = shifts
        .keys()
        .map(|r| (shift(*r) - mean_shift).powi(2))
        .sum::<f64>()
        / (k - 1) as f64;
    let per_run = cells as f64 / k as f64;
    let common = (shift_var - (specific + within) / per_run).max(0.0);
    let df_common = (k - 1) as f64;
    let var = common + specific;
    let denominator = common.powi(2) / df_common + specific.powi(2) / df_specific;
    let df = if denominator > 0.0 {
        var.powi(2) / denominator
    } else {
        df_common + df_specific
    };
    Some(PooledVariance { var, df })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(offset: f64) -> Vec<f64> {
        [-0.01, 0.0, 0.01]
            .iter()
            .map(|e| (5.0 + offset + e).exp())
            .collect()
    }

    #[test]
    fn offsets_between_runs_are_estimated_beyond_the_repeat_noise() {
        let offsets = [0.0, 0.04, -0.04, 0.02, -0.02];
        let up: Vec<Vec<f64>> = offsets.map(run).to_vec();
        let down: Vec<Vec<f64>> = offsets.map(|o| run(-o)).to_vec();
        let config = |sign: f64| RunsOfConfig {
            runtime: "go",
            metric: Metric::Throughput,
            runs: if sign > 0.0 { &up } else { &down }
                .iter()
                .map(Vec::as_slice)
                .enumerate()
                .collect(),
        };
        // Two configurations whose offsets are opposite in every run: no
        // common shift, all of it specific.
        let noise = RunLevelNoise::estimate(Floor::NONE, 5, [config(1.0), config(-1.0)]);
        let level = noise.of("go", Metric::Throughput);
        // Residuals 0, ±0.04, ±0.02 in both: 0.008 over (5 - 1) x (2 - 1)
        // degrees of freedom, less the repeats' share 0.0001 / 3.
        assert!(
            (level.var - (0.002 - 0.0001 / 3.0)).abs() < 1e-9,
            "{level:?}"
        );
        assert_eq!(level.df, 4.0);
        // The same offsets in both: a common shift, with 4 degrees of freedom.
        let common = RunLevelNoise::estimate(Floor::NONE, 5, [config(1.0), config(1.0)]);
        let level = common.of("go", Metric::Throughput);
        assert!(
            (level.var - (0.001 - 0.0001 / 3.0 / 2.0)).abs() < 1e-9,
            "{level:?}"
        );
        assert_eq!(level.df, 4.0);
        assert_eq!(level.source, RunLevelSource::History { runs: 5 });
        let other = noise.of("java", Metric::Throughput);
        assert_eq!((other.var, other.source), (0.0, RunLevelSource::Floor));
    }

    #[test]
    fn two_runs_keep_the_floor_and_the_floor_is_a_relative_sd() {
        let runs: Vec<Vec<f64>> = [0.0, 0.3].map(run).to_vec();
        let config = RunsOfConfig {
            runtime: "go",
            metric: Metric::P99,
            runs: runs.iter().map(Vec::as_slice).enumerate().collect(),
        };
        let noise = RunLevelNoise::estimate(DEFAULT_FLOOR, 2, [config]);
        let level = noise.of("go", Metric::P99);
        assert_eq!(level.source, RunLevelSource::Floor);
        assert!((level.relative_sd() - 0.12).abs() < 1e-12);
    }
}
