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
//!
//! Runs are not always exchangeable: a host can wander (a random walk of the
//! level), so that the newest run is further from an old baseline than the
//! baseline's runs are from each other, and an offset-only estimate fails an
//! unchanged system (4.3% of histories with a 1% per run walk). With four or
//! more runs whose positions in the history are known, the specific part is
//! fitted as a variogram, `gamma(h) = tau² + walk h / 2` for runs `h` apart
//! (a nugget for the offsets, a slope for the wander), and a comparison's
//! variance follows from where its runs lie: `-sum c_i c_j gamma(t_i - t_j)`
//! with weights `+1/n` on B's runs and `-1/n` on A's. Exchangeable runs
//! (no walk, or positions unknown) give back `tau² (1/n_A + 1/n_B)`.
use indexmap::IndexMap;
use serde::Serialize;

use super::effect::log_mean;
use super::effect::{PooledVariance, VarianceTerm};
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

/// The run-level variance of one runtime and metric, in two parts
/// estimated apart (see [`RunLevelNoise::estimate`]) and a wander.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RunLevel {
    /// Variance of one run's log offset common to the runtime's
    /// configurations, with its degrees of freedom (infinite for a floor).
    pub common: PooledVariance,
    /// Variance of one run's log offset specific to the configuration.
    pub specific: PooledVariance,
    /// Variance added per run of distance by a wander of the level (a
    /// random walk), with the degrees of freedom of its estimate: 0 when
    /// none was seen or fewer than four runs were there to see it.
    pub walk: PooledVariance,
    pub source: RunLevelSource,
}

impl RunLevel {
    /// Variance of one run's offset, common and specific together.
    pub fn var(&self) -> f64 {
        self.common.var + self.specific.var
    }

    /// Relative SD of one run's offset, `exp(sd) - 1`.
    pub fn relative_sd(&self) -> f64 {
        self.var().sqrt().exp_m1()
    }

    /// The run-level terms of the variance of B's log mean minus A's, each
    /// side pooled over the runs `a` and `b` (history indices; empty: one
    /// run read on its own): the common offset, the specific offset and the
    /// wander, each with its degrees of freedom.
    pub fn terms(&self, a: &[usize], b: &[usize]) -> [VarianceTerm; 3] {
        let known = !a.is_empty() && !b.is_empty();
        let offsets = if known {
            variogram_var(a, b, |h| if h > 0 { 1.0 } else { 0.0 })
        } else {
            1.0 / a.len().max(1) as f64 + 1.0 / b.len().max(1) as f64
        };
        let wander = if known && self.walk.var > 0.0 {
            variogram_var(a, b, |h| h as f64 / 2.0)
        } else {
            0.0
        };
        [
            VarianceTerm {
                var: self.common.var * offsets,
                df: self.common.df,
            },
            VarianceTerm {
                var: self.specific.var * offsets,
                df: self.specific.df,
            },
            VarianceTerm {
                var: self.walk.var * wander,
                df: self.walk.df,
            },
        ]
    }
}

/// `Var(mean of B's runs - mean of A's)` for a process with semivariogram
/// `gamma` (at lag 0 it must be 0): `-sum_i sum_j c_i c_j gamma(|t_i - t_j|)`
/// with `c = +1/n_B` on B's runs and `-1/n_A` on A's (weights summing to
/// zero, so the level itself drops out).
fn variogram_var(a: &[usize], b: &[usize], gamma: impl Fn(usize) -> f64) -> f64 {
    let weighted: Vec<(usize, f64)> = a
        .iter()
        .map(|&t| (t, -1.0 / a.len() as f64))
        .chain(b.iter().map(|&t| (t, 1.0 / b.len() as f64)))
        .collect();
    let mut sum = 0.0;
    for &(ti, ci) in &weighted {
        for &(tj, cj) in &weighted {
            sum += ci * cj * gamma(ti.abs_diff(tj));
        }
    }
    (-sum).max(0.0)
}

/// Run-level variance per runtime and metric: estimated where history
/// allows, the floor elsewhere.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunLevelNoise {
    pub floor: Floor,
    /// Comparable runs the estimate was drawn from (0: none).
    pub history_runs: usize,
    #[serde(skip)]
    estimated: IndexMap<(String, Metric), RunLevel>,
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
        let source = RunLevelSource::History { runs: history_runs };
        let estimated = groups
            .into_iter()
            .filter_map(|(key, configs)| Some((key, common_and_specific(&configs, source)?)))
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
            Some(level) => *level,
            None => RunLevel {
                common: PooledVariance {
                    var: self.floor.log_var(metric),
                    df: f64::INFINITY,
                },
                specific: PooledVariance {
                    var: 0.0,
                    df: f64::INFINITY,
                },
                walk: NO_WALK,
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
/// means, and the wander of the specific part where four or more runs
/// show it; `None` without three runs.
fn common_and_specific(configs: &[Vec<RunMean>], source: RunLevelSource) -> Option<RunLevel> {
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
    let residuals: Vec<Vec<(usize, f64, f64)>> = configs
        .iter()
        .map(|runs| {
            runs.iter()
                .map(|r| (r.run, r.mean - shift(r.run), r.within))
                .collect()
        })
        .collect();
    let (specific, walk) = if k >= 4 {
        let stationary = PooledVariance {
            var: specific,
            df: df_specific,
        };
        specific_variogram(&residuals, g, stationary).unwrap_or((specific, NO_WALK))
    } else {
        (specific, NO_WALK)
    };
    Some(RunLevel {
        common: PooledVariance {
            var: common,
            df: (k - 1) as f64,
        },
        specific: PooledVariance {
            var: specific,
            df: df_specific,
        },
        walk,
        source,
    })
}

/// No wander seen.
const NO_WALK: PooledVariance = PooledVariance {
    var: 0.0,
    df: f64::INFINITY,
};

/// The specific part as a variogram: at each lag `h` (runs apart), the
/// mean over configurations of half the squared difference of two run
/// means (the runs' common shifts taken out, the repeats' share taken
/// off), fitted by least squares weighted by the pairs at each lag to
/// `tau² + walk h / 2`, neither below zero. `None` with fewer than three
/// lags to fit.
///
/// The walk enters at the **upper 95% bound of its slope**, the slope's
/// standard error from a jackknife over the configurations (each left out
/// once; they are the independent units, the lags are not), as a stated
/// term. Why a bound: a slope read off three or four lags is often too
/// small, and a newest run that has wandered further than it says fails
/// an unchanged system (2.2% of histories with a 1% per run walk with the
/// slope itself). Why not the slope's own degrees of freedom instead: from
/// its sampling variance over a handful of lags they are few, and weighed
/// at their upper bound (`effect::welch_df`) they widen every interval of
/// a runtime whose history does not wander at all (the power to find a
/// 10% loss against a stationary history of 5 runs fell from 97% to 68%).
/// The bound adds what the wander could be, no more. Without a rising
/// bound, the `stationary` estimate and no walk.
fn specific_variogram(
    residuals: &[Vec<(usize, f64, f64)>],
    configs: usize,
    stationary: PooledVariance,
) -> Option<(f64, PooledVariance)> {
    let (nugget, slope) = fit_variogram(residuals.iter(), configs)?;
    let g = residuals.len();
    let jackknife: Vec<f64> = (0..g)
        .filter_map(|out| {
            let kept = residuals
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != out)
                .map(|(_, r)| r);
            fit_variogram(kept, configs).map(|(_, s)| s)
        })
        .collect();
    let se = if jackknife.len() >= 2 {
        let n = jackknife.len() as f64;
        let mean = jackknife.iter().sum::<f64>() / n;
        ((n - 1.0) / n * jackknife.iter().map(|s| (s - mean).powi(2)).sum::<f64>()).sqrt()
    } else {
        0.0
    };
    let bound = slope + WALK_BOUND_Z * se;
    if bound <= 0.0 {
        // No wander: the offsets' own estimate, from every cell.
        return Some((stationary.var, NO_WALK));
    }
    let nugget = if slope > 0.0 { nugget } else { stationary.var };
    Some((
        nugget,
        PooledVariance {
            var: bound,
            df: f64::INFINITY,
        },
    ))
}

/// The one-sided 95% normal quantile: the walk's slope enters at its upper bound.
const WALK_BOUND_Z: f64 = 1.645;

/// The least-squares fit of `tau² + walk h / 2` to the variogram of these
/// configurations' residuals: `(tau², walk)`, the nugget never below zero
/// (through the origin when it would be), the slope as fitted (possibly
/// negative); `None` with fewer than three lags.
fn fit_variogram<'r>(
    residuals: impl Iterator<Item = &'r Vec<(usize, f64, f64)>>,
    configs: usize,
) -> Option<(f64, f64)> {
    // Per lag: sum of half squared differences, sum of the repeats' share, pairs.
    let mut lags: IndexMap<usize, (f64, f64, f64)> = IndexMap::new();
    for runs in residuals {
        for (i, (ti, ri, wi)) in runs.iter().enumerate() {
            for (tj, rj, wj) in &runs[i + 1..] {
                let entry = lags.entry(ti.abs_diff(*tj)).or_default();
                entry.0 += (ri - rj).powi(2) / 2.0;
                entry.1 += (wi + wj) / 2.0;
                entry.2 += 1.0;
            }
        }
    }
    if lags.len() < 3 {
        return None;
    }
    // Taking out the shifts, estimated from the same configurations,
    // shrinks what is left by (g - 1) / g.
    let inflate = if configs > 1 {
        configs as f64 / (configs - 1) as f64
    } else {
        1.0
    };
    // (x = h / 2, semivariance less the repeats' share, pairs)
    let points: Vec<(f64, f64, f64)> = lags
        .iter()
        .map(|(h, (half_sq, share, n))| (*h as f64 / 2.0, (inflate * half_sq - share) / n, *n))
        .collect();
    let total: f64 = points.iter().map(|p| p.2).sum();
    let x_bar = points.iter().map(|p| p.0 * p.2).sum::<f64>() / total;
    let y_bar = points.iter().map(|p| p.1 * p.2).sum::<f64>() / total;
    let sxx: f64 = points.iter().map(|p| p.2 * (p.0 - x_bar).powi(2)).sum();
    let sxy: f64 = points
        .iter()
        .map(|p| p.2 * (p.0 - x_bar) * (p.1 - y_bar))
        .sum();
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let nugget = y_bar - slope * x_bar;
    if slope <= 0.0 || nugget >= 0.0 {
        return Some((nugget.max(0.0), slope));
    }
    // Through the origin: all wander, no offset.
    let through_origin = points.iter().map(|p| p.2 * p.0 * p.1).sum::<f64>()
        / points.iter().map(|p| p.2 * p.0 * p.0).sum::<f64>();
    Some((0.0, through_origin.max(0.0)))
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
            (level.var() - (0.002 - 0.0001 / 3.0)).abs() < 1e-9,
            "{level:?}"
        );
        assert_eq!((level.specific.df, level.walk.var), (4.0, 0.0));
        // The same offsets in both: a common shift, with 4 degrees of freedom.
        let common = RunLevelNoise::estimate(Floor::NONE, 5, [config(1.0), config(1.0)]);
        let level = common.of("go", Metric::Throughput);
        assert!(
            (level.var() - (0.001 - 0.0001 / 3.0 / 2.0)).abs() < 1e-9,
            "{level:?}"
        );
        assert_eq!((level.common.df, level.specific.var), (4.0, 0.0));
        assert_eq!(level.source, RunLevelSource::History { runs: 5 });
        let other = noise.of("java", Metric::Throughput);
        assert_eq!((other.var(), other.source), (0.0, RunLevelSource::Floor));
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

    #[test]
    fn exchangeable_runs_give_back_tau_squared_over_each_side() {
        // A pools runs 0..4, B is run 5: offsets alone are 1/4 + 1/1.
        let v = variogram_var(&[0, 1, 2, 3], &[5], |h| if h > 0 { 1.0 } else { 0.0 });
        assert!((v - 1.25).abs() < 1e-12, "{v}");
        // The same run on both sides cancels.
        assert_eq!(variogram_var(&[2], &[2], |h| h as f64), 0.0);
        // A walk: run 5 against the mean of 0..4 (steps 1..5 of unit
        // variance): e5 + e4 + (X3 - mean X0..3) = 1 + 1 + (1 + 4 + 9) / 16.
        let w = variogram_var(&[0, 1, 2, 3], &[5], |h| h as f64 / 2.0);
        assert!((w - 2.875).abs() < 1e-12, "{w}");
    }

    #[test]
    fn a_wander_is_seen_from_four_runs_and_widens_distant_comparisons() {
        // 30 configurations walking apart by known steps, no repeat noise
        // beyond +-0.1%: run t of configuration c sits at c's walk.
        let sign = |c: u64, s: u64| {
            let mut x = (c + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ (s + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x ^= x >> 31;
            x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
            if (x >> 40).is_multiple_of(2) {
                0.02
            } else {
                -0.02
            }
        };
        let steps = |c: usize, t: usize| -> f64 { (0..t).map(|s| sign(c as u64, s as u64)).sum() };
        let runs: Vec<Vec<Vec<f64>>> = (0..30)
            .map(|c| {
                (0..5)
                    .map(|t| {
                        [-0.001, 0.0, 0.001]
                            .iter()
                            .map(|e| (5.0 + steps(c, t) + e).exp())
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let configs = runs.iter().map(|runs| RunsOfConfig {
            runtime: "go",
            metric: Metric::Throughput,
            runs: runs.iter().map(Vec::as_slice).enumerate().collect(),
        });
        let level = RunLevelNoise::estimate(Floor::NONE, 5, configs).of("go", Metric::Throughput);
        assert!(level.walk.var > 1e-4, "{level:?}");
        let at = |a: &'static [usize], b: &'static [usize]| {
            level.terms(a, b).iter().map(|t| t.var).sum::<f64>()
        };
        assert!(at(&[0, 1, 2, 3], &[4]) < at(&[0, 1], &[4]), "{level:?}");
        // Two runs read on their own (no place in a history): the wander
        // cannot be placed, offsets only, one run a side.
        let unplaced: f64 = level.terms(&[], &[]).iter().map(|t| t.var).sum();
        assert!((unplaced - level.var() * 2.0).abs() < 1e-15, "{level:?}");
    }

    /// Configurations that disagree about the wander (half walk, half
    /// stand still) leave its slope uncertain: it enters at an upper bound
    /// above the fitted slope, as a stated term. Configurations that agree
    /// there is none add no walk.
    #[test]
    fn the_walk_enters_at_the_upper_bound_of_its_slope() {
        let residuals = |walking: usize| -> Vec<Vec<(usize, f64, f64)>> {
            (0..10)
                .map(|c| {
                    (0..5)
                        .map(|t| {
                            let step = if c < walking { 0.02 } else { 0.0 };
                            let wobble = if (c + t) % 2 == 0 { 0.001 } else { -0.001 };
                            (
                                t,
                                step * t as f64 * if c % 2 == 0 { 1.0 } else { -1.0 } + wobble,
                                0.0,
                            )
                        })
                        .collect()
                })
                .collect()
        };
        let stationary = PooledVariance {
            var: 1e-6,
            df: 30.0,
        };
        let mixed = residuals(5);
        let (_, slope) = fit_variogram(mixed.iter(), 10).unwrap();
        let (_, walk) = specific_variogram(&mixed, 10, stationary).unwrap();
        assert!(slope > 0.0 && walk.var > 1.2 * slope, "{slope} {walk:?}");
        assert_eq!(walk.df, f64::INFINITY);
        let (nugget, walk) = specific_variogram(&residuals(0), 10, stationary).unwrap();
        assert_eq!((nugget, walk), (stationary.var, NO_WALK));
    }
}
