//! Which request a connection sends next: round-robin when the workload gives
//! no weights, otherwise a seeded weighted draw.
//!
//! Every connection has its own generator, seeded from the run's mix seed and
//! the connection's index (not the worker's), so the sequence each connection
//! sends depends only on (seed, connection index) and not on how connections
//! are spread over worker threads. The draw costs one `next_u64` and a scan of
//! a short threshold table: no allocation on the hot path.
//!
//! The generator is rand's `Xoshiro256PlusPlus`, named rather than `SmallRng`
//! because rand documents `SmallRng`'s algorithm as free to change between
//! versions, and a documented seed should keep meaning the same sequence.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};

/// How a run chooses among its requests (built once, shared by all connections).
#[derive(Debug, Clone, PartialEq)]
pub enum RequestMix {
    /// Requests in list order, connection `i` starting at request `i % n`:
    /// the unweighted workload, exactly equal shares.
    RoundRobin { requests: usize },
    /// Request `i` is drawn when a uniform `u64` is below `thresholds[i]` and
    /// not below `thresholds[i - 1]`; the last threshold is `u64::MAX`.
    Weighted { thresholds: Vec<u64>, seed: u64 },
}

impl RequestMix {
    /// Round-robin when `weights` are all `None`, weighted otherwise (a
    /// missing weight then counts as 1). Weights must be positive and finite
    /// (checked by `LoadConfig::validate` and the spec validation).
    pub fn new(weights: &[Option<f64>], seed: u64) -> Self {
        if weights.iter().all(Option::is_none) {
            return RequestMix::RoundRobin {
                requests: weights.len().max(1),
            };
        }
        let weights: Vec<f64> = weights.iter().map(|w| w.unwrap_or(1.0)).collect();
        let total: f64 = weights.iter().sum();
        let mut cumulative = 0.0;
        let mut thresholds: Vec<u64> = weights
            .iter()
            .map(|w| {
                cumulative += w;
                // The float-to-int cast saturates, so the top stays at u64::MAX.
                ((cumulative / total) * u64::MAX as f64) as u64
            })
            .collect();
        if let Some(last) = thresholds.last_mut() {
            *last = u64::MAX;
        }
        RequestMix::Weighted { thresholds, seed }
    }

    /// The picker of connection `conn_index`.
    pub fn picker(&self, conn_index: usize) -> Picker<'_> {
        match self {
            RequestMix::RoundRobin { requests } => Picker::RoundRobin {
                next: conn_index % requests,
                requests: *requests,
            },
            RequestMix::Weighted { thresholds, seed } => Picker::Weighted {
                thresholds,
                rng: connection_rng(*seed, conn_index),
            },
        }
    }
}

/// The generator of one connection: the run seed and the connection index
/// mixed through SplitMix64 (inside `seed_from_u64`), so neighbouring
/// connections get unrelated sequences.
fn connection_rng(seed: u64, conn_index: usize) -> Xoshiro256PlusPlus {
    // An odd constant (2^64 / golden ratio) spreads consecutive indices.
    let mixed = seed ^ (conn_index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    Xoshiro256PlusPlus::seed_from_u64(mixed)
}

/// One connection's position in the mix.
#[derive(Debug, Clone)]
pub enum Picker<'m> {
    RoundRobin {
        next: usize,
        requests: usize,
    },
    Weighted {
        thresholds: &'m [u64],
        rng: Xoshiro256PlusPlus,
    },
}

impl Picker<'_> {
    /// The index of the request to send next.
    pub fn next_index(&mut self) -> usize {
        match self {
            Picker::RoundRobin { next, requests } => {
                let i = *next;
                *next = (i + 1) % *requests;
                i
            }
            Picker::Weighted { thresholds, rng } => {
                let draw = rng.next_u64();
                thresholds
                    .iter()
                    .position(|&t| draw < t)
                    .unwrap_or(thresholds.len() - 1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(mix: &RequestMix, conn: usize, draws: usize) -> Vec<usize> {
        let n = match mix {
            RequestMix::RoundRobin { requests } => *requests,
            RequestMix::Weighted { thresholds, .. } => thresholds.len(),
        };
        let mut out = vec![0; n];
        let mut picker = mix.picker(conn);
        for _ in 0..draws {
            out[picker.next_index()] += 1;
        }
        out
    }

    #[test]
    fn weighted_draws_follow_the_weights() {
        let mix = RequestMix::new(&[Some(60.0), Some(20.0), Some(10.0), Some(10.0)], 7);
        let draws = 100_000;
        let got = counts(&mix, 0, draws);
        for (count, share) in got.iter().zip([0.6, 0.2, 0.1, 0.1]) {
            let seen = *count as f64 / draws as f64;
            // Binomial spread at 100k draws is ~0.0016; 0.02 never flakes.
            assert!((seen - share).abs() < 0.02, "{got:?}");
        }
    }

    #[test]
    fn a_missing_weight_counts_as_one_beside_given_weights() {
        let mix = RequestMix::new(&[Some(3.0), None], 1);
        let got = counts(&mix, 0, 40_000);
        let share = got[0] as f64 / 40_000.0;
        assert!((share - 0.75).abs() < 0.02, "{got:?}");
    }

    #[test]
    fn same_seed_and_connection_give_the_same_sequence() {
        let mix = RequestMix::new(&[Some(1.0), Some(1.0), Some(2.0)], 42);
        let seq = |mix: &RequestMix, conn| {
            let mut p = mix.picker(conn);
            (0..200).map(|_| p.next_index()).collect::<Vec<_>>()
        };
        assert_eq!(seq(&mix, 3), seq(&mix, 3));
        assert_ne!(seq(&mix, 3), seq(&mix, 4), "connections share a sequence");
        let other = RequestMix::new(&[Some(1.0), Some(1.0), Some(2.0)], 43);
        assert_ne!(seq(&mix, 3), seq(&other, 3), "the seed changes nothing");
    }

    #[test]
    fn unweighted_requests_go_round_robin_from_the_connection_offset() {
        let mix = RequestMix::new(&[None, None, None], 9);
        let mut p = mix.picker(4);
        let got: Vec<usize> = (0..4).map(|_| p.next_index()).collect();
        assert_eq!(got, [1, 2, 0, 1]);
    }

    #[test]
    fn a_single_weighted_request_is_always_drawn() {
        let mix = RequestMix::new(&[Some(0.5)], 0);
        assert_eq!(counts(&mix, 0, 1000), [1000]);
    }
}
