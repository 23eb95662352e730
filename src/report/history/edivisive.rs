//! E-divisive means change-point detection (Matteson & James 2014, "A
//! nonparametric approach for multiple change point analysis of
//! multivariate data", JASA 109(505)), in the form Hunter/Otava use for
//! performance histories.
//!
//! - **Divergence.** For a split of a segment into a left part X (n points)
//!   and a right part Y (m points), with alpha = 1:
//!   `E = 2/(nm) Σ|x-y| - Σ_{i<k}|x_i-x_k| / C(n,2) - Σ_{j<k}|y_j-y_k| / C(m,2)`
//!   and the statistic `Q = nm/(n+m) E`. Q is large when the two parts come
//!   from different distributions (any difference, not only of the mean).
//!   As in Hunter, the right part always runs to the end of the segment
//!   (the original also searches its end, which costs a factor n).
//! - **Recursive bisection.** The split with the largest Q over all current
//!   segments is the candidate; if significant it becomes a change point
//!   and its segment is split in two, then the search repeats.
//! - **Significance.** A permutation test: the points of every current
//!   segment are shuffled within their segment, the largest Q is taken
//!   again, `permutations` times; p = (count of Q_perm >= Q + 1) /
//!   (permutations + 1). The shuffles come from a seeded SplitMix64, so a
//!   history gives the same answer every time it is read.
//! - **Minimum change.** Significant change points whose regimes' means
//!   differ by less than `min_change` (relative) are dropped, smallest first,
//!   merging their two regimes, until every one left is at least that large.
//!
//! The series is taken on a log scale (values must be positive): noise of a
//! service's throughput or latency is roughly proportional to its level, and
//! a regime's mean is then a geometric mean, its change a ratio.
//!
//! A permutation test on a short series has a floor: with k points after a
//! step in a series of n, at best about 2 / C(n, k) of the shuffles give the
//! same split (either side), so the smallest reachable p is about that: a
//! 3-point regime needs ~8 points in all to reach p < 0.05. docs/history.md
//! tells what follows for the newest runs.
use serde::Serialize;

/// How the detector searches and what it reports.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Settings {
    /// Fewest points a regime may have (>= 2: one point is an outlier, not a regime).
    pub min_segment: usize,
    /// Shuffles per permutation test.
    pub permutations: u32,
    /// A candidate is a change point when its permutation p is below this.
    pub significance: f64,
    /// Smallest relative change between neighbouring regimes' means that is reported.
    pub min_change: f64,
    /// Seed of the shuffles.
    pub seed: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            min_segment: 3,
            permutations: 199,
            significance: 0.05,
            min_change: 0.05,
            seed: 0x5eed_0011,
        }
    }
}

/// A change point: the regime starting at `index` differs from the one before.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ChangePoint {
    /// Index of the first point of the new regime.
    pub index: usize,
    /// The divergence statistic Q of the split when it was accepted.
    pub q: f64,
    /// Its permutation p-value.
    pub p: f64,
    /// Geometric means of the regimes before and after.
    pub before: f64,
    pub after: f64,
}

impl ChangePoint {
    /// `after / before - 1` (-0.2 = 20% lower).
    pub fn change(&self) -> f64 {
        self.after / self.before - 1.0
    }
}

/// Points `start..end` (end exclusive) between two change points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Regime {
    pub start: usize,
    pub end: usize,
    /// Geometric mean of the regime's values.
    pub mean: f64,
}

/// What the detector found: change points in order, and the regimes they
/// bound (always at least one regime for a non-empty series).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Detection {
    pub change_points: Vec<ChangePoint>,
    pub regimes: Vec<Regime>,
}

/// Finds the change points of a series of positive values.
pub fn detect(values: &[f64], settings: &Settings) -> Detection {
    debug_assert!(
        values.iter().all(|v| *v > 0.0 && v.is_finite()),
        "values must be positive"
    );
    let logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
    let significant = bisect(&logs, settings);
    let kept = drop_small_changes(&logs, significant, settings.min_change);
    let bounds = boundaries(logs.len(), kept.iter().map(|c| c.index));
    let regimes: Vec<Regime> = bounds
        .windows(2)
        .filter(|w| w[1] > w[0])
        .map(|w| Regime {
            start: w[0],
            end: w[1],
            mean: mean(&logs[w[0]..w[1]]).exp(),
        })
        .collect();
    let change_points = kept
        .iter()
        .zip(regimes.windows(2))
        .map(|(c, pair)| ChangePoint {
            index: c.index,
            q: c.q,
            p: c.p,
            before: pair[0].mean,
            after: pair[1].mean,
        })
        .collect();
    Detection {
        change_points,
        regimes,
    }
}

/// A significant split found by the bisection.
#[derive(Debug, Clone, Copy)]
struct Accepted {
    index: usize,
    q: f64,
    p: f64,
}

/// The best split of one segment: its absolute index and statistic.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    index: usize,
    q: f64,
}

fn bisect(logs: &[f64], settings: &Settings) -> Vec<Accepted> {
    let m = settings.min_segment.max(1);
    let mut rng = SplitMix64(settings.seed);
    let mut accepted: Vec<Accepted> = Vec::new();
    loop {
        let bounds = boundaries(logs.len(), accepted.iter().map(|a| a.index));
        let Some(best) = best_over_segments(logs, &bounds, m) else {
            break;
        };
        let p = permutation_p(logs, &bounds, m, best.q, settings.permutations, &mut rng);
        if p >= settings.significance {
            break;
        }
        accepted.push(Accepted {
            index: best.index,
            q: best.q,
            p,
        });
    }
    accepted.sort_by_key(|a| a.index);
    accepted
}

/// `0, the change points in order, n`.
fn boundaries(n: usize, change_points: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut bounds: Vec<usize> = std::iter::once(0)
        .chain(change_points)
        .chain(std::iter::once(n))
        .collect();
    bounds.sort_unstable();
    bounds.dedup();
    bounds
}

/// The split with the largest Q over every segment (the first on ties).
fn best_over_segments(x: &[f64], bounds: &[usize], m: usize) -> Option<Candidate> {
    let mut best: Option<Candidate> = None;
    for w in bounds.windows(2) {
        if let Some((offset, q)) = best_split(&x[w[0]..w[1]], m)
            && best.is_none_or(|b| q > b.q)
        {
            best = Some(Candidate {
                index: w[0] + offset,
                q,
            });
        }
    }
    best
}

/// Shuffles within every segment and counts how often the best split of the
/// shuffled series is at least as strong as the observed one.
fn permutation_p(
    x: &[f64],
    bounds: &[usize],
    m: usize,
    observed: f64,
    permutations: u32,
    rng: &mut SplitMix64,
) -> f64 {
    // A shuffle that reproduces the observed split gives the same Q up to
    // rounding: count it as "at least as strong".
    let bar = observed - observed.abs() * 1e-9;
    let mut shuffled = x.to_vec();
    let mut at_least = 0u32;
    for _ in 0..permutations {
        for w in bounds.windows(2) {
            rng.shuffle(&mut shuffled[w[0]..w[1]]);
        }
        if best_over_segments(&shuffled, bounds, m).is_some_and(|c| c.q >= bar) {
            at_least += 1;
        }
    }
    f64::from(at_least + 1) / f64::from(permutations + 1)
}

/// The best split `tau` of `x` into `x[..tau]` and `x[tau..]`, both at least
/// `m` long, and its Q. O(n²): the three distance sums are updated as one
/// point at a time moves from the right part to the left.
fn best_split(x: &[f64], m: usize) -> Option<(usize, f64)> {
    let n = x.len();
    if n < 2 * m {
        return None;
    }
    let d = |i: usize, j: usize| (x[i] - x[j]).abs();
    let (mut left, mut right, mut between) = (0.0, 0.0, 0.0);
    for i in 0..n {
        for j in i + 1..n {
            match (i < m, j < m) {
                (true, true) => left += d(i, j),
                (false, false) => right += d(i, j),
                _ => between += d(i, j),
            }
        }
    }
    let mut best: Option<(usize, f64)> = None;
    for tau in m..=n - m {
        let q = statistic(tau, n - tau, between, left, right);
        if best.is_none_or(|(_, b)| q > b) {
            best = Some((tau, q));
        }
        // Move point `tau` from the right part to the left.
        let to_left: f64 = (0..tau).map(|i| d(i, tau)).sum();
        let to_right: f64 = (tau + 1..n).map(|k| d(tau, k)).sum();
        left += to_left;
        right -= to_right;
        between += to_right - to_left;
    }
    best
}

/// Q for parts of `n1` and `n2` points with the given sums of distances
/// between the parts and within each.
fn statistic(n1: usize, n2: usize, between: f64, left: f64, right: f64) -> f64 {
    let (a, b) = (n1 as f64, n2 as f64);
    let within = |sum: f64, k: f64| {
        let pairs = k * (k - 1.0) / 2.0;
        if pairs > 0.0 { sum / pairs } else { 0.0 }
    };
    let e = 2.0 * between / (a * b) - within(left, a) - within(right, b);
    a * b / (a + b) * e
}

/// Drops the change point with the smallest relative change while it is
/// below `min_change`, recomputing the merged regime's mean each time.
fn drop_small_changes(logs: &[f64], mut kept: Vec<Accepted>, min_change: f64) -> Vec<Accepted> {
    loop {
        let bounds = boundaries(logs.len(), kept.iter().map(|a| a.index));
        let means: Vec<f64> = bounds.windows(2).map(|w| mean(&logs[w[0]..w[1]])).collect();
        let smallest = means
            .windows(2)
            .map(|pair| (pair[1] - pair[0]).exp_m1().abs())
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match smallest {
            Some((i, change)) if change < min_change => {
                kept.remove(i);
            }
            _ => return kept,
        }
    }
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// SplitMix64 (Steele, Lea & Flood 2014): tiny, fast, and its output for a
/// seed never changes, unlike a library RNG whose algorithm may.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform index below `n` (multiply-shift; its bias is ~n / 2^64).
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Fisher-Yates.
    fn shuffle(&mut self, values: &mut [f64]) {
        for i in (1..values.len()).rev() {
            let j = self.below(i + 1);
            values.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `level` times (1 + ~3% noise), deterministic: a sum of four uniforms
    /// from its own SplitMix64 stream, scaled to a standard deviation of 3%.
    fn noisy(levels: &[(usize, f64)], seed: u64) -> Vec<f64> {
        let mut rng = SplitMix64(seed);
        let mut uniform = || rng.next_u64() as f64 / u64::MAX as f64;
        let mut out = Vec::new();
        for &(count, level) in levels {
            for _ in 0..count {
                // Sum of 4 U(0,1): mean 2, variance 1/3.
                let z = ((0..4).map(|_| uniform()).sum::<f64>() - 2.0) / (1.0f64 / 3.0).sqrt();
                out.push(level * (1.0 + 0.03 * z));
            }
        }
        out
    }

    fn indices(d: &Detection) -> Vec<usize> {
        d.change_points.iter().map(|c| c.index).collect()
    }

    #[test]
    fn a_step_is_found_at_its_index() {
        for seed in 1..=5 {
            let x = noisy(&[(7, 1000.0), (5, 800.0)], seed);
            let d = detect(&x, &Settings::default());
            assert_eq!(indices(&d), [7], "seed {seed}: {x:?}");
            let cp = d.change_points[0];
            assert!((-0.24..-0.16).contains(&cp.change()), "{cp:?}");
            assert!(cp.p < 0.05);
            assert_eq!(d.regimes.len(), 2);
            assert_eq!((d.regimes[0].start, d.regimes[0].end), (0, 7));
            assert_eq!((d.regimes[1].start, d.regimes[1].end), (7, 12));
        }
    }

    #[test]
    fn a_flat_noisy_series_has_none() {
        let x = noisy(&[(12, 1000.0)], 1);
        let d = detect(&x, &Settings::default());
        assert!(d.change_points.is_empty(), "{d:?}");
        assert_eq!(d.regimes.len(), 1);
        assert_eq!((d.regimes[0].start, d.regimes[0].end), (0, 12));
    }

    #[test]
    fn flat_noisy_series_rarely_have_one() {
        // A test at p < 0.05 is wrong for ~5% of flat series before the
        // minimum change removes most of those (measured: ~1.5% at 3% noise).
        let false_alarms = (1..=200)
            .filter(|seed| {
                let x = noisy(&[(12, 1000.0)], *seed);
                !detect(&x, &Settings::default()).change_points.is_empty()
            })
            .count();
        assert!(false_alarms <= 8, "{false_alarms} of 200 flat series");
    }

    #[test]
    fn two_steps_are_both_found() {
        let x = noisy(&[(6, 1000.0), (6, 750.0), (6, 1100.0)], 7);
        let d = detect(&x, &Settings::default());
        assert_eq!(indices(&d), [6, 12], "{x:?}");
        assert!(d.change_points[0].change() < -0.15);
        assert!(d.change_points[1].change() > 0.3);
    }

    #[test]
    fn results_are_deterministic() {
        let x = noisy(&[(5, 1000.0), (4, 800.0)], 3);
        let settings = Settings::default();
        let first = detect(&x, &settings);
        assert_eq!(first, detect(&x, &settings));
        assert_eq!(indices(&first), [5]);
        // p is a count of shuffles over 200: a whole number of 1/200ths.
        let p = first.change_points[0].p * 200.0;
        assert!((p - p.round()).abs() < 1e-9 && p >= 1.0, "{p}");
    }

    #[test]
    fn a_step_in_the_last_three_points_is_found_once_the_history_is_long_enough() {
        let x = noisy(&[(7, 1000.0), (3, 800.0)], 5);
        assert_eq!(indices(&detect(&x, &Settings::default())), [7]);
    }

    #[test]
    fn a_step_in_the_middle_of_six_points_cannot_reach_significance() {
        // 3 + 3 points: 2 of the C(6,3) = 20 splits are the observed one, so p >= ~0.1.
        let x = [1000.0, 1010.0, 990.0, 800.0, 805.0, 795.0];
        assert!(detect(&x, &Settings::default()).change_points.is_empty());
        let logs: Vec<f64> = x.iter().map(|v| v.ln()).collect();
        let best = best_over_segments(&logs, &[0, 6], 3).unwrap();
        let p = permutation_p(&logs, &[0, 6], 3, best.q, 199, &mut SplitMix64(1));
        assert!((0.06..0.15).contains(&p), "{p}");
    }

    #[test]
    fn a_change_below_the_minimum_is_not_reported() {
        // A clean 3% step: significant, but below the 5% default.
        let x = [
            100.0, 100.1, 99.9, 100.0, 100.1, 103.0, 103.1, 102.9, 103.0, 103.1,
        ];
        let d = detect(&x, &Settings::default());
        assert!(d.change_points.is_empty(), "{d:?}");
        let loose = Settings {
            min_change: 0.02,
            ..Settings::default()
        };
        assert_eq!(indices(&detect(&x, &loose)), [5]);
    }

    #[test]
    fn no_regime_is_shorter_than_the_minimum_segment() {
        // Two low points at the end: a 2-point regime, refused with min 3.
        let x = [
            100.0, 101.0, 99.0, 100.0, 101.0, 99.0, 100.0, 101.0, 99.0, 100.0, 70.0, 70.5,
        ];
        assert!(detect(&x, &Settings::default()).change_points.is_empty());
        let two = Settings {
            min_segment: 2,
            ..Settings::default()
        };
        assert_eq!(indices(&detect(&x, &two)), [10]);
    }

    #[test]
    fn short_or_empty_series_have_one_regime_or_none() {
        assert_eq!(detect(&[], &Settings::default()).regimes, []);
        let d = detect(&[5.0, 6.0, 7.0], &Settings::default());
        assert!(d.change_points.is_empty());
        assert_eq!(d.regimes.len(), 1);
        assert!((d.regimes[0].mean - 210f64.powf(1.0 / 3.0)).abs() < 1e-9);
    }

    #[test]
    fn the_statistic_matches_the_definition_on_a_small_case() {
        // X = {0, 1}, Y = {3}: between = 3 + 2 = 5, within X = 1, within Y = 0.
        // E = 2*5/(2*1) - 1/1 - 0 = 4; Q = 2*1/3 * 4 = 8/3.
        assert!((statistic(2, 1, 5.0, 1.0, 0.0) - 8.0 / 3.0).abs() < 1e-12);
        let (tau, q) = best_split(&[0.0, 1.0, 3.0], 1).unwrap();
        // Splits: {0}|{1,3}: between 1+3=4, within Y 2 -> E = 4 - 2 = 2, Q = 2/3*2 = 4/3.
        //         {0,1}|{3}: 8/3 (above): the best.
        assert_eq!(tau, 2);
        assert!((q - 8.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn shuffles_are_uniform_enough() {
        // Every position of 4 receives each value about equally often.
        let mut rng = SplitMix64(1);
        let mut counts = [[0u32; 4]; 4];
        for _ in 0..4000 {
            let mut v = [0.0, 1.0, 2.0, 3.0];
            rng.shuffle(&mut v);
            for (pos, val) in v.iter().enumerate() {
                counts[pos][*val as usize] += 1;
            }
        }
        assert!(
            counts.iter().flatten().all(|c| (850..1150).contains(c)),
            "{counts:?}"
        );
    }
}
