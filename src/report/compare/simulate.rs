//! Run pairs drawn from a hierarchical noise model, to calibrate the judge:
//! how often an unchanged system is flagged, how often a real change is
//! found. scripts/calibrate-compare.sh prints the figures; the unit tests
//! here check the same properties at small counts.
//!
//! The model, per runtime and metric, with the run's own noise figures:
//! a repeat's log value is `level + offset + mean(w_1..w_T)`, where the
//! offset (a fresh start, a JIT outcome, a neighbour) is normal with the
//! between-repeat variance and `w` is an AR(1) series of per-second noise
//! (autocorrelation `rho`) whose mean over the window carries the rest. A
//! "noise" figure is the relative SD of a repeat's value, the quantity
//! [`RunNoise`](super::RunNoise) estimates from a real run.
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};

use crate::stats::{ConfigRepeats, Metric, RunRepeats};

/// The noise of one runtime.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Noise {
    /// Log SD of a repeat's throughput and p99 (0.10 ~ 10%).
    pub throughput: f64,
    pub p99: f64,
    /// Share of a repeat's variance that is between repeats (the offset);
    /// the rest comes from the per-second noise averaged over the window.
    pub between_share: f64,
}

/// A matrix to simulate: runtimes (each with its noise) x configurations.
#[derive(Debug, Clone)]
pub struct Model {
    pub runtimes: Vec<(String, Noise)>,
    pub configs_per_runtime: usize,
    pub repeats: usize,
    /// Seconds per measured window, and the per-second autocorrelation.
    pub seconds: usize,
    pub rho: f64,
}

/// A change injected into side B: `factor` multiplies the throughput of
/// one configuration (and divides its p99, as Little's law would).
#[derive(Debug, Clone, Copy)]
pub struct Change {
    pub runtime: usize,
    pub config: usize,
    pub factor: f64,
}

impl Model {
    /// The id of configuration `config` of runtime `runtime`.
    pub fn config_id(&self, runtime: usize, config: usize) -> String {
        format!("{}/c={config}", self.runtimes[runtime].0)
    }

    /// One run drawn from the model, with `change` applied.
    pub fn draw(&self, rng: &mut StdRng, change: Option<Change>) -> RunRepeats {
        let mut run = RunRepeats::new();
        for (r, (name, noise)) in self.runtimes.iter().enumerate() {
            for c in 0..self.configs_per_runtime {
                let level = (1000.0 + 250.0 * c as f64).ln();
                let factor = match change {
                    Some(ch) if ch.runtime == r && ch.config == c => ch.factor.ln(),
                    _ => 0.0,
                };
                let mut values: [Vec<f64>; 3] = Default::default();
                for _ in 0..self.repeats {
                    let t = level + factor + self.repeat_noise(rng, noise.throughput, noise);
                    let p99 = -level - factor + self.repeat_noise(rng, noise.p99, noise);
                    values[Metric::Throughput as usize].push(t.exp());
                    values[Metric::P50 as usize].push((p99 - 1.0).exp());
                    values[Metric::P99 as usize].push(p99.exp());
                }
                run.insert(
                    self.config_id(r, c),
                    ConfigRepeats {
                        runtime: name.clone(),
                        axes: format!("c={c}"),
                        values,
                        failed: 0,
                    },
                );
            }
        }
        run
    }

    /// One repeat's log deviation: offset plus the window's mean of AR(1) noise.
    fn repeat_noise(&self, rng: &mut StdRng, sd: f64, noise: &Noise) -> f64 {
        let var = sd * sd;
        let offset = (var * noise.between_share).sqrt() * normal(rng);
        let per_second = self.per_second_sd((var * (1.0 - noise.between_share)).max(0.0));
        let mut w = per_second * normal(rng);
        let mut sum = w;
        for _ in 1..self.seconds {
            w = self.rho * w + (1.0 - self.rho * self.rho).sqrt() * per_second * normal(rng);
            sum += w;
        }
        offset + sum / self.seconds as f64
    }

    /// The per-second SD whose mean over the window has variance `mean_var`
    /// (the variance of a mean of an AR(1) series, stationary start).
    fn per_second_sd(&self, mean_var: f64) -> f64 {
        let t = self.seconds as f64;
        (mean_var * t * t / self.window_factor()).sqrt()
    }

    /// `Var(sum of the window) / Var(one second)` for AR(1) noise:
    /// `T + 2 sum_k (T - k) rho^k`.
    fn window_factor(&self) -> f64 {
        let t = self.seconds as f64;
        (1..self.seconds).fold(t, |f, k| f + 2.0 * (t - k as f64) * self.rho.powi(k as i32))
    }

    /// The noise of a host described as "`between` relative SD between
    /// repeats and `per_second` relative SD per second" in this model's
    /// window: what a repeat's value then varies by, and how much of it is
    /// between repeats.
    pub fn noise_of(&self, between: f64, per_second: f64) -> (f64, f64) {
        let t = self.seconds as f64;
        let within = per_second * per_second * self.window_factor() / (t * t);
        let total = between * between + within;
        (total.sqrt(), between * between / total)
    }
}

fn normal(rng: &mut StdRng) -> f64 {
    StandardNormal.sample(rng)
}

/// A seeded generator, so that every figure can be reproduced.
pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Rule, Verdict, judge_all};

    const RULE: Rule = Rule {
        threshold: 0.05,
        latency_threshold: Some(0.10),
        alpha: 0.01,
    };

    fn quiet(repeats: usize) -> Model {
        let noise = Noise {
            throughput: 0.035,
            p99: 0.035,
            between_share: 0.7,
        };
        Model {
            runtimes: (0..3).map(|i| (format!("rt{i}"), noise)).collect(),
            configs_per_runtime: 28,
            repeats,
            seconds: 5,
            rho: 0.5,
        }
    }

    #[test]
    fn the_drawn_repeats_have_the_declared_noise() {
        let model = quiet(5);
        let mut rng = rng(7);
        let noise = crate::stats::RunNoise::of(&model.draw(&mut rng, None));
        let sd = noise.get("rt0", Metric::Throughput).unwrap().var.sqrt();
        // 28 configurations x 4 df = 112 df: the estimate is within ~20%.
        assert!((0.026..0.045).contains(&sd), "{sd}");
    }

    #[test]
    fn unchanged_pairs_are_rarely_flagged_and_a_large_change_is_found() {
        let model = quiet(5);
        let mut rng = rng(11);
        let mut false_alarms = 0;
        for _ in 0..40 {
            let (a, b) = (model.draw(&mut rng, None), model.draw(&mut rng, None));
            let judged = judge_all(&a, &b, &RULE);
            if judged
                .iter()
                .any(|c| c.metrics.iter().any(|m| m.verdict.is_regression()))
            {
                false_alarms += 1;
            }
        }
        // The target is <= 1%; 40 draws at 1% give 0 or 1 almost always (P(>= 4) < 1e-4).
        assert!(
            false_alarms < 4,
            "{false_alarms} of 40 unchanged pairs flagged"
        );

        let change = Change {
            runtime: 1,
            config: 3,
            factor: 0.75,
        };
        let mut found = 0;
        for _ in 0..20 {
            let (a, b) = (
                model.draw(&mut rng, None),
                model.draw(&mut rng, Some(change)),
            );
            let judged = judge_all(&a, &b, &RULE);
            let id = model.config_id(1, 3);
            let hit = judged.iter().find(|c| c.config_id == id).unwrap();
            if hit.metrics[Metric::Throughput as usize].verdict == Verdict::Regression {
                found += 1;
            }
        }
        // A 25% drop at 3.5% noise is ~9 standard errors: found every time.
        assert!(found >= 18, "a 25% drop found in {found} of 20 pairs");
    }
}
