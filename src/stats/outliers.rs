//! Outlier repeats: named for the reader, never dropped.
//!
//! A repeat that lands far from the others of its configuration (a
//! neighbour's burst, a bad JIT outcome, a GC storm in the window) is real
//! data about the service on this host, so the verdicts keep it: it widens
//! its configuration's own variance (`stats::moderated`), which is what
//! keeps the false-alarm rate down when 3% of repeats are such outliers
//! (docs/compare.md, calibration). What this module adds is the name: which
//! repeat, so that a reader can look at it.
//!
//! The test is leave-one-out: repeat `i` against the mean of the others,
//! scaled by the others' variance moderated toward the runtime's (so that
//! three identical repeats do not make a 1% deviation an outlier), at a
//! two-sided 0.1% level per configuration.
use super::effect::{VarianceTerm, t_quantile};
use super::moderated::Prior;

/// Two-sided level at which one repeat is named an outlier.
const LEVEL: f64 = 0.001;
/// The normal's `1 - LEVEL / 2` quantile.
const NORMAL_QUANTILE: f64 = 3.290_526_731;

/// The 1-based positions of the repeats of `values` that lie outside the
/// others' spread; empty with fewer than three repeats.
pub fn outlier_repeats(values: &[f64], prior: &Prior) -> Vec<usize> {
    if values.len() < 3 || values.iter().any(|v| *v <= 0.0 || !v.is_finite()) {
        return Vec::new();
    }
    let logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
    (0..values.len())
        .filter(|&i| {
            let others: Vec<f64> = values
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, v)| *v)
                .collect();
            let noise = prior.moderate(&others);
            let n = others.len();
            let mean = others.iter().map(|v| v.ln()).sum::<f64>() / n as f64;
            // The spread of one new repeat around the others' mean.
            let spread = noise.var + VarianceTerm::of_mean(noise, n).var;
            if spread <= 0.0 {
                return false;
            }
            let z = (logs[i] - mean).abs() / spread.sqrt();
            // The normal's quantile bounds Student's from below: most
            // repeats are cleared without computing the t quantile.
            z > NORMAL_QUANTILE && z > t_quantile(1.0 - LEVEL / 2.0, noise.df)
        })
        .map(|i| i + 1)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prior(sd: f64) -> Prior {
        let group: Vec<f64> = [-1.0, 0.0, 1.0].iter().map(|e| (e * sd).exp()).collect();
        let groups: Vec<&[f64]> = vec![&group; 20];
        Prior::fit(groups.iter().copied()).unwrap()
    }

    #[test]
    fn a_repeat_at_seventy_percent_among_quiet_ones_is_named() {
        let values = [1000.0, 1010.0, 700.0, 995.0, 1005.0];
        assert_eq!(outlier_repeats(&values, &prior(0.01)), [3]);
    }

    #[test]
    fn ordinary_spread_and_short_series_name_nothing() {
        let values = [1000.0, 1010.0, 990.0, 995.0, 1005.0];
        assert!(outlier_repeats(&values, &prior(0.01)).is_empty());
        assert!(outlier_repeats(&[1000.0, 700.0], &prior(0.01)).is_empty());
        // In a noisy runtime, 30% is within its spread.
        let noisy = [1000.0, 1300.0, 700.0, 1100.0, 900.0];
        assert!(outlier_repeats(&noisy, &prior(0.3)).is_empty());
    }
}
