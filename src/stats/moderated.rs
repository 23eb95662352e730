//! Each configuration's own repeat noise, moderated toward its runtime's.
//!
//! Why not one pooled variance per runtime: real hosts do not give every
//! configuration of a runtime the same noise (in the committed runs one JVM
//! configuration's p99 varies 3% between repeats and another's 42%). A pooled
//! variance then makes the quiet configurations look noisier than they are
//! (a loss there is missed) and the noisy ones quieter (an unchanged system
//! fails). Why not each configuration's own variance alone: with 2 to 5
//! repeats it has 1 to 4 degrees of freedom, and its t interval is useless.
//!
//! The middle way is the one limma uses for gene-wise variances (Smyth
//! 2004, "Linear models and empirical Bayes methods for assessing
//! differential expression in microarray experiments"): the configurations'
//! sample variances are treated as draws from a scaled inverse chi-square
//! prior whose scale `s0²` and degrees of freedom `d0` are estimated from
//! the variances themselves (by moments of their logs). Each configuration's
//! posterior variance is `(d0 s0² + d s²) / (d0 + d)` with `d0 + d` degrees
//! of freedom. When the configurations share one noise level, `d0` is large
//! and the estimate is the pool (capped at the pool's degrees of freedom);
//! when they differ, `d0` is small and each keeps mostly its own. Written
//! here (statrs has digamma but not trigamma or its inverse): it is thirty
//! lines and unit-tested against an independent computation.
use serde::Serialize;
use statrs::function::gamma::digamma;

use super::effect::PooledVariance;

/// The prior of a runtime's configuration variances (log scale).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Prior {
    /// The prior's scale: a typical configuration's variance.
    pub var: f64,
    /// How many degrees of freedom the prior lends each configuration;
    /// capped at the pooled degrees of freedom (complete pooling).
    pub df: f64,
    /// The pool of every configuration (what complete pooling would use).
    pub pooled: PooledVariance,
}

impl Prior {
    /// Fits the prior to the sample variances of the `groups` (each one
    /// configuration's log repeat values); `None` with no group of two.
    pub fn fit<'v>(groups: impl IntoIterator<Item = &'v [f64]>) -> Option<Prior> {
        Prior::fit_samples(groups.into_iter().filter_map(sample_variance).collect())
    }

    /// Fits the prior to sample variances `(s², d)` already computed (one
    /// per configuration); `None` without one.
    pub fn fit_samples(samples: Vec<(f64, f64)>) -> Option<Prior> {
        let df: f64 = samples.iter().map(|s| s.1).sum();
        if df <= 0.0 {
            return None;
        }
        let pooled = PooledVariance {
            var: samples.iter().map(|(v, d)| v * d).sum::<f64>() / df,
            df,
        };
        let positive: Vec<(f64, f64)> = samples.into_iter().filter(|(v, _)| *v > 0.0).collect();
        let (var, df) = match fit_f_dist(&positive) {
            Some((var, df)) if df.is_finite() => (var, df.min(pooled.df)),
            // Variances no more spread than chance: complete pooling.
            _ => (pooled.var, pooled.df),
        };
        Some(Prior { var, df, pooled })
    }

    /// The moderated variance of one configuration with these repeats.
    pub fn moderate(&self, values: &[f64]) -> PooledVariance {
        self.moderate_sample(sample_variance(values))
    }

    /// The moderated variance of a sample variance `(s², d)`; the prior
    /// alone for none (one repeat).
    pub fn moderate_sample(&self, sample: Option<(f64, f64)>) -> PooledVariance {
        match sample {
            Some((var, df)) => PooledVariance {
                var: (self.df * self.var + df * var) / (self.df + df),
                df: (self.df + df).min(self.pooled.df.max(df)),
            },
            None => PooledVariance {
                var: self.var,
                df: self.df,
            },
        }
    }
}

/// The variance of two samples pooled, each around its own mean:
/// `(d1 s1² + d2 s2²) / (d1 + d2)` with `d1 + d2` degrees of freedom.
pub fn pooled_pair(a: Option<(f64, f64)>, b: Option<(f64, f64)>) -> Option<(f64, f64)> {
    let parts = [a, b];
    let df: f64 = parts.iter().flatten().map(|p| p.1).sum();
    (df > 0.0).then(|| {
        (
            parts.iter().flatten().map(|(v, d)| v * d).sum::<f64>() / df,
            df,
        )
    })
}

/// The sample variance of the logs of the positive values and its degrees
/// of freedom; `None` with fewer than two.
pub fn sample_variance(values: &[f64]) -> Option<(f64, f64)> {
    let logs: Vec<f64> = values
        .iter()
        .filter(|v| **v > 0.0 && v.is_finite())
        .map(|v| v.ln())
        .collect();
    let n = logs.len();
    if n < 2 {
        return None;
    }
    let mean = logs.iter().sum::<f64>() / n as f64;
    let ss = logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>();
    Some((ss / (n - 1) as f64, (n - 1) as f64))
}

/// limma's `fitFDist` without covariates: the scale and degrees of freedom
/// of the prior from sample variances `(s², d)`, by the moments of
/// `log s²`. `None` with fewer than two; infinite `d0` when the variances
/// vary no more than their own sampling error explains.
fn fit_f_dist(samples: &[(f64, f64)]) -> Option<(f64, f64)> {
    let g = samples.len();
    if g < 2 {
        return None;
    }
    let e: Vec<f64> = samples
        .iter()
        .map(|(var, d)| var.ln() - digamma(d / 2.0) + (d / 2.0).ln())
        .collect();
    let emean = e.iter().sum::<f64>() / g as f64;
    let spread = e.iter().map(|x| (x - emean).powi(2)).sum::<f64>() / (g - 1) as f64;
    let expected = samples.iter().map(|(_, d)| trigamma(d / 2.0)).sum::<f64>() / g as f64;
    let evar = spread - expected;
    if evar <= 0.0 {
        return Some((emean.exp(), f64::INFINITY));
    }
    let d0 = 2.0 * trigamma_inverse(evar);
    let s0 = (emean + digamma(d0 / 2.0) - (d0 / 2.0).ln()).exp();
    Some((s0, d0))
}

/// The trigamma function (derivative of digamma), by recurrence up to 6 and
/// its asymptotic series beyond.
pub fn trigamma(mut x: f64) -> f64 {
    let mut acc = 0.0;
    while x < 6.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    let x2 = 1.0 / (x * x);
    acc + 1.0 / x
        + x2 / 2.0
        + (1.0 / x) * x2 * (1.0 / 6.0 - x2 * (1.0 / 30.0 - x2 * (1.0 / 42.0 - x2 / 30.0)))
}

/// The tetragamma function (derivative of trigamma), the same way.
fn tetragamma(mut x: f64) -> f64 {
    let mut acc = 0.0;
    while x < 6.0 {
        acc -= 2.0 / (x * x * x);
        x += 1.0;
    }
    let x2 = 1.0 / (x * x);
    acc - x2 - x2 / x - x2 * x2 * (0.5 - x2 * (1.0 / 6.0 - x2 * (1.0 / 6.0 - x2 * 0.3)))
}

/// The `x` with `trigamma(x) = y`, by limma's Newton iteration on `1/x`.
fn trigamma_inverse(y: f64) -> f64 {
    if y > 1e7 {
        return 1.0 / y.sqrt();
    }
    if y < 1e-6 {
        return 1.0 / y;
    }
    let mut x = 0.5 + 1.0 / y;
    for _ in 0..50 {
        let tri = trigamma(x);
        let step = tri * (1.0 - tri / y) / tetragamma(x);
        x += step;
        if -step / x < 1e-8 {
            break;
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-12)
    }

    #[test]
    fn polygammas_match_their_known_values() {
        // trigamma(1) = pi^2/6, trigamma(0.5) = pi^2/2, tetragamma(1) = -2 zeta(3)
        let pi2 = std::f64::consts::PI.powi(2);
        assert!(close(trigamma(1.0), pi2 / 6.0, 1e-9), "{}", trigamma(1.0));
        assert!(close(trigamma(0.5), pi2 / 2.0, 1e-9));
        assert!(close(tetragamma(1.0), -2.0 * 1.202_056_903_159_594, 1e-9));
        for y in [0.05, 0.5, 3.0, 40.0] {
            assert!(close(trigamma(trigamma_inverse(y)), y, 1e-7), "{y}");
        }
    }

    /// With every variance equal, the prior's degrees of freedom are
    /// infinite (capped at the pool's) and its scale the common variance.
    #[test]
    fn equal_variances_pool_completely() {
        let group = [1.0, 0.1f64.exp(), 0.2f64.exp()];
        let groups: Vec<&[f64]> = vec![&group; 10];
        let prior = Prior::fit(groups.iter().copied()).unwrap();
        assert!(close(prior.var, 0.01, 1e-9), "{prior:?}");
        assert_eq!(prior.df, prior.pooled.df);
        let m = prior.moderate(&group);
        assert!(close(m.var, 0.01, 1e-9));
    }

    /// Variances spread far more than sampling explains keep mostly their
    /// own: a quiet configuration stays quiet, a noisy one stays noisy.
    #[test]
    fn spread_variances_keep_mostly_their_own() {
        let quiet = [1.0, 0.01f64.exp(), 0.02f64.exp(), 0.005f64.exp()];
        let noisy = [1.0, 0.4f64.exp(), 0.8f64.exp(), 0.2f64.exp()];
        let mid = [1.0, 0.1f64.exp(), 0.2f64.exp(), 0.05f64.exp()];
        let groups: Vec<&[f64]> = vec![&quiet, &noisy, &mid, &quiet, &noisy, &mid];
        let prior = Prior::fit(groups.iter().copied()).unwrap();
        assert!(prior.df < 10.0, "{prior:?}");
        let (q, n) = (prior.moderate(&quiet), prior.moderate(&noisy));
        assert!(q.var < prior.pooled.var / 3.0, "{q:?} vs {prior:?}");
        assert!(n.var > prior.pooled.var * 1.5, "{n:?} vs {prior:?}");
        assert!(q.df > 3.0 && q.df <= prior.pooled.df);
    }

    /// The same moments computed independently with scipy (`digamma`,
    /// `polygamma(1, .)` and a root finder for the inverse):
    /// s0² = 0.0062741, d0 = 1.44849.
    #[test]
    fn fit_matches_limma() {
        let samples: Vec<(f64, f64)> = [0.001, 0.004, 0.01, 0.04, 0.1]
            .iter()
            .map(|v| (*v, 4.0))
            .collect();
        let (s0, d0) = fit_f_dist(&samples).unwrap();
        assert!(
            close(s0, 0.006_274_1, 1e-4) && close(d0, 1.448_49, 1e-4),
            "{s0} {d0}"
        );
    }
}
