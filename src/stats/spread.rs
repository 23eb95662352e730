//! Pure statistics over repeats and per-second samples. No I/O here, so
//! every rule can be unit-tested on its own.
use serde::Serialize;

/// Median, mean, min, max and relative spread of a set of values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    pub n: usize,
    pub median: f64,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    /// `(max - min) / median`: 0 for a single value; the noise of the repeats.
    pub spread: f64,
}

impl Spread {
    /// `None` for an empty set (every repeat failed).
    pub fn of(values: &[f64]) -> Option<Self> {
        let median = median(values)?;
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let spread = if median != 0.0 {
            (max - min) / median
        } else {
            0.0
        };
        Some(Spread {
            n: values.len(),
            median,
            mean,
            min,
            max,
            spread,
        })
    }

    /// Whether the `[min, max]` ranges of two sets overlap.
    pub fn overlaps(&self, other: &Spread) -> bool {
        self.min <= other.max && other.min <= self.max
    }
}

/// The median (mean of the two middle values for an even count).
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    Some(if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    })
}

/// `value` rounded to `decimals` places (what the tables show and the CSVs hold).
pub fn round_to(value: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (value * f).round() / f
}

/// Median of optional values, ignoring the missing ones.
pub fn median_of_some(values: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let present: Vec<f64> = values.into_iter().flatten().collect();
    median(&present)
}

/// Result of a two-sided Mann-Whitney U test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MannWhitney {
    /// U of the first sample.
    pub u: f64,
    /// Standardised statistic (continuity and tie corrected).
    pub z: f64,
    /// Two-sided p-value from the normal approximation.
    pub p: f64,
}

/// Two-sided Mann-Whitney U test with the normal approximation, corrected
/// for ties and continuity. Rank-based, so one outlier second (a GC pause)
/// cannot drive the verdict the way it would move a mean. `None` when either
/// sample is empty or every value is tied (no information).
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let mut all: Vec<(f64, bool)> = a
        .iter()
        .map(|&x| (x, true))
        .chain(b.iter().map(|&x| (x, false)))
        .collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    let n = all.len();
    let mut rank_sum_a = 0.0;
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let avg_rank = (i + j) as f64 / 2.0 + 1.0;
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        rank_sum_a += all[i..=j].iter().filter(|(_, in_a)| *in_a).count() as f64 * avg_rank;
        i = j + 1;
    }
    let u = rank_sum_a - n1 * (n1 + 1.0) / 2.0;
    let mean_u = n1 * n2 / 2.0;
    let total = n1 + n2;
    let variance = n1 * n2 / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0)));
    if variance <= 0.0 {
        return None;
    }
    let diff = u - mean_u;
    let corrected = (diff.abs() - 0.5).max(0.0) * diff.signum();
    let z = corrected / variance.sqrt();
    let p = (2.0 * (1.0 - standard_normal_cdf(z.abs()))).clamp(0.0, 1.0);
    Some(MannWhitney { u, z, p })
}

/// Standard normal CDF via the Abramowitz-Stegun 7.1.26 erf approximation
/// (absolute error below 1.5e-7, ample for a significance verdict).
fn standard_normal_cdf(z: f64) -> f64 {
    let x = z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-x * x).exp();
    let erf = if x >= 0.0 { erf } else { -erf };
    0.5 * (1.0 + erf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_of_repeats() {
        let s = Spread::of(&[100.0, 110.0, 90.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.n), (100.0, 90.0, 110.0, 3));
        assert!((s.spread - 0.2).abs() < 1e-12);
        assert_eq!(Spread::of(&[]), None);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }

    #[test]
    fn overlap_is_symmetric() {
        let a = Spread::of(&[100.0, 110.0]).unwrap();
        let b = Spread::of(&[109.0, 130.0]).unwrap();
        let c = Spread::of(&[111.0, 130.0]).unwrap();
        assert!(a.overlaps(&b) && b.overlaps(&a));
        assert!(!a.overlaps(&c) && !c.overlaps(&a));
    }

    #[test]
    fn mann_whitney_separated_samples_are_significant() {
        let a: Vec<f64> = (0..10).map(|i| 100.0 + i as f64).collect();
        let b: Vec<f64> = (0..10).map(|i| 80.0 + i as f64 * 0.5).collect();
        let r = mann_whitney(&a, &b).unwrap();
        assert_eq!(r.u, 100.0);
        // Reference: scipy.stats.mannwhitneyu(a, b, method="asymptotic") p = 0.000183.
        assert!((r.p - 0.000_183).abs() < 0.000_01, "p = {}", r.p);
    }

    #[test]
    fn mann_whitney_identical_samples_are_not_significant() {
        let a = [10.0, 11.0, 12.0, 13.0];
        let r = mann_whitney(&a, &a).unwrap();
        assert!(r.p > 0.9, "p = {}", r.p);
        assert_eq!(mann_whitney(&[5.0, 5.0], &[5.0]), None);
        assert_eq!(mann_whitney(&[], &[5.0]), None);
    }

    #[test]
    fn normal_cdf_reference_points() {
        assert!((standard_normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((standard_normal_cdf(1.959_964) - 0.975).abs() < 1e-6);
    }
}
