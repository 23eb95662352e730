//! Effects with confidence intervals, with the repeat as the unit.
//!
//! A run's per-second samples are autocorrelated and share their repeat's
//! offset (a service start, a JIT outcome, a neighbour's load): in the
//! reference run ~65% of the variance sits between repeats. So every
//! statistic here takes one value per repeat (its mean throughput, its p99)
//! and nothing else.
//!
//! The scale is logarithmic: a ratio B/A is a difference of log means, the
//! noise of a service is roughly proportional to its level, and a ratio's
//! interval is symmetric on this scale. The interval is a Student t interval
//! on the difference of log repeat means. Its variance comes from the
//! *pooled* between-repeat variance of the runtime across all of its
//! configurations in the run (each side pooled apart): with 2 to 5 repeats a
//! configuration's own variance has 1 to 4 degrees of freedom, which makes
//! its interval uselessly wide (t(0.975, 1) = 12.7); pooling the 28
//! configurations of a runtime gives ~28 to ~112. The assumption is that a
//! runtime's relative repeat-to-repeat noise does not depend much on the
//! configuration; docs/compare.md says so, and the calibration script
//! (scripts/calibrate-compare.sh) measures what the rule does on noise drawn
//! from the reference run's own figures.
//!
//! statrs provides Student's t; the rest is a few lines of arithmetic kept
//! here so that every rule is unit-tested on its own.
use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF, StudentsT};

/// The between-repeat variance of log values, pooled over groups (the
/// configurations of one runtime in one run), with its degrees of freedom.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PooledVariance {
    /// Variance of the natural log of one repeat's value.
    pub var: f64,
    /// Sum over groups of (repeats - 1).
    pub df: f64,
}

impl PooledVariance {
    /// Pools the log-variance of every group with >= 2 positive values;
    /// `None` when no group has two (nothing to estimate noise from).
    pub fn of<'v>(groups: impl IntoIterator<Item = &'v [f64]>) -> Option<Self> {
        let (mut sum_sq, mut df) = (0.0, 0.0);
        for group in groups {
            let logs = logs(group);
            if logs.len() < 2 {
                continue;
            }
            let mean = mean(&logs);
            sum_sq += logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>();
            df += (logs.len() - 1) as f64;
        }
        (df > 0.0).then(|| PooledVariance {
            var: sum_sq / df,
            df,
        })
    }

    /// Relative standard deviation of one repeat, `exp(sd) - 1` (0.10 = 10%).
    pub fn relative_sd(&self) -> f64 {
        self.var.sqrt().exp_m1()
    }
}

/// The ratio B/A of one metric of one configuration, with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Effect {
    /// Geometric mean of B's repeats over A's.
    pub ratio: f64,
    /// The confidence interval of the ratio at [`Effect::level`].
    pub lo: f64,
    pub hi: f64,
    pub level: f64,
    /// Two-sided p-value of "no change" (log ratio 0), unadjusted.
    pub p: f64,
    /// One-sided p-values, unadjusted: of "B is not below A" (small when
    /// B is lower) and of "B is not above A" (small when B is higher).
    pub p_lower: f64,
    pub p_higher: f64,
    /// Standard error of the log ratio, and its Welch-Satterthwaite degrees of freedom.
    pub se: f64,
    pub df: f64,
}

impl Effect {
    /// Compares the repeats `a` and `b` (positive values), whose noise is
    /// `va` and `vb`. `None` when a side has no positive value.
    pub fn between(
        a: &[f64],
        va: PooledVariance,
        b: &[f64],
        vb: PooledVariance,
        level: f64,
    ) -> Option<Effect> {
        let (la, lb) = (logs(a), logs(b));
        if la.is_empty() || lb.is_empty() {
            return None;
        }
        let d = mean(&lb) - mean(&la);
        let terms = [
            VarianceTerm::of_mean(va, la.len()),
            VarianceTerm::of_mean(vb, lb.len()),
        ];
        Some(Effect::of_log_difference(d, &terms, level))
    }

    /// The effect of a log difference `d` whose variance is the sum of
    /// independent `terms` (each with its degrees of freedom; Welch-
    /// Satterthwaite gives the total's).
    pub fn of_log_difference(d: f64, terms: &[VarianceTerm], level: f64) -> Effect {
        let var: f64 = terms.iter().map(|t| t.var).sum();
        let se = var.sqrt();
        let df = welch_df(terms);
        if se == 0.0 {
            let p = if d == 0.0 { 1.0 } else { 0.0 };
            let r = d.exp();
            return Effect {
                ratio: r,
                lo: r,
                hi: r,
                level,
                p,
                p_lower: if d < 0.0 { 0.0 } else { 1.0 },
                p_higher: if d > 0.0 { 0.0 } else { 1.0 },
                se,
                df,
            };
        }
        let t = t_quantile(0.5 + level / 2.0, df);
        Effect {
            ratio: d.exp(),
            lo: (d - t * se).exp(),
            hi: (d + t * se).exp(),
            level,
            p: two_sided_p(d / se, df),
            p_lower: t_cdf(d / se, df),
            p_higher: t_cdf(-d / se, df),
            se,
            df,
        }
    }

    /// The relative change `ratio - 1` (+0.05 = 5% more).
    pub fn change(&self) -> f64 {
        self.ratio - 1.0
    }
}

/// The geometric mean of one configuration's repeats with its confidence
/// interval: a Student t interval on the mean of the log values, from the
/// configuration's own repeats (`n - 1` degrees of freedom). What adaptive
/// repeats stop on (exec::repeats): the same scale and statistic as
/// [`Effect`], for one side.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MeanInterval {
    /// The geometric mean.
    pub mean: f64,
    /// `exp(t x sd / sqrt(n)) - 1`: the interval is `mean / (1 + h)` to
    /// `mean x (1 + h)`; 0.03 = "within 3%".
    pub half_width: f64,
    pub repeats: usize,
}

impl MeanInterval {
    /// The interval of the positive, finite `values` at `level`; `None`
    /// with fewer than two.
    pub fn of(values: &[f64], level: f64) -> Option<Self> {
        let logs = logs(values);
        let n = logs.len();
        if n < 2 {
            return None;
        }
        let m = mean(&logs);
        let var = logs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1) as f64;
        let t = t_quantile(0.5 + level / 2.0, (n - 1) as f64);
        Some(MeanInterval {
            mean: m.exp(),
            half_width: (t * (var / n as f64).sqrt()).exp_m1(),
            repeats: n,
        })
    }
}

/// The smallest relative change a one-sided test at `alpha` detects with
/// probability `power`, for a log ratio of standard error `se` with `df`
/// degrees of freedom: `exp((t(1-alpha) + t(power)) * se) - 1`.
pub fn detectable_change(se: f64, df: f64, alpha: f64, power: f64) -> f64 {
    ((t_quantile(1.0 - alpha, df) + t_quantile(power, df)) * se).exp_m1()
}

/// The standard error of a log ratio with `n` repeats on each side.
pub fn se_with_repeats(va: PooledVariance, vb: PooledVariance, n: u32) -> f64 {
    ((va.var + vb.var) / n as f64).sqrt()
}

/// Largest number of repeats a design looks for ([`repeats_needed`]'s
/// `max` in compare's design rows and `runner plan`'s).
pub const MAX_REPEATS: u32 = 50;

/// The fewest repeats per side (up to `max`) for which a change of
/// `threshold` is detectable at `alpha` with `power`; `None` beyond `max`.
/// The degrees of freedom are those of the pools, which grow with the
/// repeats: `df` scales with `n - 1` per configuration.
pub fn repeats_needed(
    va: PooledVariance,
    vb: PooledVariance,
    configs: usize,
    threshold: f64,
    alpha: f64,
    power: f64,
    max: u32,
) -> Option<u32> {
    repeats_needed_with_runs(va, vb, configs, 0.0, threshold, alpha, power, max)
}

/// [`repeats_needed`] when the log ratio also carries `run_var`, a
/// run-level variance that repeats do not shrink: `None` beyond `max`,
/// and always when the run-level part alone hides the threshold.
#[allow(clippy::too_many_arguments)]
pub fn repeats_needed_with_runs(
    va: PooledVariance,
    vb: PooledVariance,
    configs: usize,
    run_var: f64,
    threshold: f64,
    alpha: f64,
    power: f64,
    max: u32,
) -> Option<u32> {
    (2..=max).find(|&n| {
        let df = (configs.max(1) * (n as usize - 1) * 2) as f64;
        let se = (se_with_repeats(va, vb, n).powi(2) + run_var).sqrt();
        detectable_change(se, df, alpha, power) <= threshold
    })
}

/// Holm's step-down adjustment: adjusted p-values, in input order, such that
/// rejecting every adjusted p below alpha keeps the chance of any false
/// rejection across the family at or below alpha, whatever the dependence
/// between the tests.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    let mut adjusted = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * p[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

/// One independent part of a difference's variance, with its degrees of freedom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VarianceTerm {
    pub var: f64,
    /// Degrees of freedom of the estimate (infinite for a stated value).
    pub df: f64,
}

impl VarianceTerm {
    /// The variance of a mean of `n` values whose variance is `v`.
    pub fn of_mean(v: PooledVariance, n: usize) -> Self {
        VarianceTerm {
            var: v.var / n as f64,
            df: v.df,
        }
    }
}

/// Welch-Satterthwaite degrees of freedom of a sum of variance terms (a
/// term with infinite degrees of freedom adds nothing to the denominator),
/// with each estimated term weighed at its upper 95% confidence bound.
///
/// Why the bound: the plain formula weighs each term by its estimate, so a
/// term estimated from few degrees of freedom that happened to come out
/// small (a run-level variance from five runs) hands the sum the many
/// degrees of freedom of the repeats exactly when the interval is too
/// narrow already. Weighed at what the term could be, its few degrees of
/// freedom keep their say: 1.5% of unchanged histories with a 3% host
/// shift per runtime failed at alpha 1% with the plain formula
/// (scripts/calibrate-compare.sh). Terms with equal degrees of freedom
/// scale alike, so a plain two-sample comparison keeps its figure.
fn welch_df(terms: &[VarianceTerm]) -> f64 {
    let weighed: Vec<(f64, f64)> = terms
        .iter()
        .map(|t| (t.var * upper_bound_factor(t.df), t.df))
        .collect();
    let num = weighed.iter().map(|(v, _)| v).sum::<f64>().powi(2);
    let den: f64 = weighed
        .iter()
        .filter(|(_, df)| df.is_finite() && *df > 0.0)
        .map(|(v, df)| v.powi(2) / df)
        .sum();
    if den > 0.0 {
        (num / den).min(LARGE_DF)
    } else {
        terms.iter().map(|t| t.df).sum::<f64>().min(LARGE_DF)
    }
}

/// How far above its estimate a variance with `df` degrees of freedom
/// may lie at 95% confidence: `df / chi2(0.05, df)`; 1 for a stated value.
fn upper_bound_factor(df: f64) -> f64 {
    if !df.is_finite() || df >= LARGE_DF {
        return 1.0;
    }
    let chi2 = ChiSquared::new(df.max(0.5)).expect("positive degrees of freedom");
    df.max(0.5) / chi2.inverse_cdf(0.05)
}

/// Degrees of freedom that stand for "known": Student's t is the normal there.
const LARGE_DF: f64 = 1e6;

/// The `q` quantile of Student's t with `df` degrees of freedom.
pub fn t_quantile(q: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df.max(1.0))
        .expect("df >= 1 and a unit scale are valid")
        .inverse_cdf(q)
}

fn two_sided_p(t: f64, df: f64) -> f64 {
    (2.0 * t_cdf(-t.abs(), df)).min(1.0)
}

/// `P(T <= t)` for Student's t with `df` degrees of freedom.
pub fn t_cdf(t: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df.max(1.0))
        .expect("df >= 1 and a unit scale are valid")
        .cdf(t)
}

/// The mean of the natural logs of the positive, finite values (the log of
/// their geometric mean); `None` when there is none. The one definition of a
/// "mean over repeats" that compare, wins, pairs and history share.
pub fn log_mean(values: &[f64]) -> Option<f64> {
    let logs = logs(values);
    (!logs.is_empty()).then(|| mean(&logs))
}

fn logs(values: &[f64]) -> Vec<f64> {
    values
        .iter()
        .filter(|v| **v > 0.0 && v.is_finite())
        .map(|v| v.ln())
        .collect()
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn pooling_weights_groups_by_their_degrees_of_freedom() {
        // ln values: group 1 {0, 0.2} var 0.02 (df 1); group 2 {0, 0.1, 0.2} var 0.01 (df 2).
        let g1 = [1.0, 0.2f64.exp()];
        let g2 = [1.0, 0.1f64.exp(), 0.2f64.exp()];
        let single = [5.0];
        let pooled = PooledVariance::of([&g1[..], &g2[..], &single[..]]).unwrap();
        assert_eq!(pooled.df, 3.0);
        assert!(
            close(pooled.var, (0.02 + 2.0 * 0.01) / 3.0, 1e-12),
            "{pooled:?}"
        );
        assert!(PooledVariance::of([&single[..]]).is_none());
    }

    #[test]
    fn a_ratio_and_its_interval_worked_by_hand() {
        // A: ln 100 for both repeats; B: ln 110. Pooled var 0.01 on each side, df 10.
        let v = PooledVariance {
            var: 0.01,
            df: 10.0,
        };
        let e = Effect::between(&[100.0, 100.0], v, &[110.0, 110.0], v, 0.95).unwrap();
        assert!(close(e.ratio, 1.1, 1e-12));
        let se = (0.01f64 / 2.0 + 0.01 / 2.0).sqrt(); // 0.1
        assert!(close(e.se, se, 1e-12));
        assert!(
            close(e.df, 20.0, 1e-9),
            "Welch of two equal pools: {}",
            e.df
        );
        // t(0.975, 20) = 2.0860
        let t = 2.085_963;
        assert!(close(e.lo, ((1.1f64).ln() - t * se).exp(), 1e-5), "{e:?}");
        assert!(close(e.hi, ((1.1f64).ln() + t * se).exp(), 1e-5), "{e:?}");
        // t = ln(1.1)/0.1 = 0.953 on 20 df: two-sided p = 0.352, one-sided 0.176
        assert!(close(e.p, 0.352, 0.002), "{e:?}");
        assert!(close(e.p_higher, 0.176, 0.001), "{e:?}");
        assert!(close(e.p_lower, 1.0 - 0.176, 0.001), "{e:?}");
    }

    #[test]
    fn detectable_change_matches_the_normal_formula_at_large_df() {
        // One-sided at 0.025: (1.95996 + 0.84162) * 0.05 = 0.14008 -> exp - 1 = 0.1504
        let c = detectable_change(0.05, 1e6, 0.025, 0.8);
        assert!(close(c, 0.1504, 0.0005), "{c}");
    }

    #[test]
    fn repeats_needed_grows_with_noise_and_shrinks_with_threshold() {
        let quiet = PooledVariance {
            var: 0.03f64.powi(2),
            df: 28.0,
        };
        let noisy = PooledVariance {
            var: 0.10f64.powi(2),
            df: 28.0,
        };
        let n_quiet = repeats_needed(quiet, quiet, 28, 0.05, 0.01, 0.8, 100).unwrap();
        let n_noisy = repeats_needed(noisy, noisy, 28, 0.05, 0.01, 0.8, 100).unwrap();
        assert!(n_quiet < n_noisy, "{n_quiet} vs {n_noisy}");
        assert!(repeats_needed(noisy, noisy, 28, 0.05, 0.01, 0.8, 3).is_none());
        let loose = repeats_needed(noisy, noisy, 28, 0.20, 0.01, 0.8, 100).unwrap();
        assert!(loose < n_noisy);
    }

    #[test]
    fn holm_adjusts_step_down_and_stays_monotone() {
        let adjusted = holm(&[0.01, 0.04, 0.03, 0.005]);
        // sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1 -> max(0.06, 0.04)=0.06
        assert_eq!(adjusted.len(), 4);
        assert!(close(adjusted[3], 0.02, 1e-12));
        assert!(close(adjusted[0], 0.03, 1e-12));
        assert!(close(adjusted[2], 0.06, 1e-12));
        assert!(close(adjusted[1], 0.06, 1e-12));
        assert!(holm(&[0.9, 0.8]).iter().all(|p| *p <= 1.0));
    }

    #[test]
    fn a_mean_interval_worked_by_hand() {
        // ln values 0, 0.1, 0.2: mean 0.1, sd 0.1, se 0.0577; t(0.975, 2) = 4.3027
        let values = [1.0, 0.1f64.exp(), 0.2f64.exp()];
        let m = MeanInterval::of(&values, 0.95).unwrap();
        assert!(close(m.mean, 0.1f64.exp(), 1e-12));
        let h = (4.302_653 * 0.1 / 3f64.sqrt()).exp_m1();
        assert!(close(m.half_width, h, 1e-5), "{m:?}");
        assert_eq!(m.repeats, 3);
        assert!(
            MeanInterval::of(&[5.0, -1.0], 0.95).is_none(),
            "one usable value"
        );
        let same = MeanInterval::of(&[5.0, 5.0], 0.95).unwrap();
        assert_eq!(same.half_width, 0.0);
    }

    #[test]
    fn no_noise_and_equal_means_is_no_change() {
        let v = PooledVariance { var: 0.0, df: 4.0 };
        let e = Effect::between(&[5.0, 5.0], v, &[5.0], v, 0.95).unwrap();
        assert_eq!((e.ratio, e.p), (1.0, 1.0));
        assert!(Effect::between(&[], v, &[5.0], v, 0.95).is_none());
    }

    #[test]
    fn a_small_estimate_with_few_degrees_of_freedom_keeps_its_say_in_the_df() {
        let term = |var: f64, df: f64| VarianceTerm { var, df };
        // Equal degrees of freedom scale alike: the plain Welch figure.
        let equal = welch_df(&[term(1e-4, 8.0), term(1e-4, 8.0)]);
        assert!((equal - 16.0).abs() < 1e-9, "{equal}");
        // A run-level variance from 4 runs that came out at a tenth of the
        // repeats' would hardly move the plain formula (91 degrees of freedom); weighed
        // at its upper bound (x8.5 for 3 degrees of freedom) it does.
        let plain = (1.1e-4f64).powi(2) / ((1e-4f64).powi(2) / 100.0 + (1e-5f64).powi(2) / 3.0);
        let weighed = welch_df(&[term(1e-4, 100.0), term(1e-5, 3.0)]);
        assert!(plain > 90.0 && weighed < 20.0, "{plain} {weighed}");
        // A stated value (infinite df) is taken as it is.
        assert_eq!(upper_bound_factor(f64::INFINITY), 1.0);
    }
}
