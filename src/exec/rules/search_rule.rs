//! The maximum sustainable rate search as pure functions: whether a step
//! held, and which rate to probe next. Kept apart from the load engine so the
//! rule can be tested on a model service (see the tests below).
//!
//! The rule: step up geometrically from `from` (× `factor`, capped at `to`)
//! until a step fails; then bisect (geometric mean) between the highest held
//! rate and the lowest failed rate above it until the two are within
//! `precision` of the held one, or `max_steps` steps were taken.
use std::time::Duration;

use crate::plan::contract::search::{RATE_HELD_SHARE, SearchPlan};

/// What one measured step showed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepFigures {
    pub target_rps: f64,
    pub achieved_rps: f64,
    /// Coordinated-omission corrected p99.
    pub p99: Duration,
    pub requests: u64,
    pub errors: u64,
}

/// Whether a step held, and if not the first reason it did not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StepVerdict {
    Held,
    /// Achieved below [`RATE_HELD_SHARE`] of the target.
    RateMissed {
        achieved_rps: f64,
    },
    /// The p99 was above the SLO.
    LatencyOver {
        p99: Duration,
    },
    /// The error share was above the SLO.
    ErrorsOver {
        share: f64,
    },
}

impl StepVerdict {
    pub fn held(&self) -> bool {
        matches!(self, StepVerdict::Held)
    }

    /// The `why_not` column: empty when the step held.
    pub fn why_not(&self, plan: &SearchPlan, target_rps: f64) -> String {
        match *self {
            StepVerdict::Held => String::new(),
            StepVerdict::RateMissed { achieved_rps } => format!(
                "achieved {achieved_rps:.0} req/s, below {:.0}% of {target_rps:.0}",
                RATE_HELD_SHARE * 100.0
            ),
            StepVerdict::LatencyOver { p99 } => format!(
                "p99 {:.1} ms above the SLO's {:.1} ms",
                p99.as_secs_f64() * 1e3,
                plan.slo_p99.as_secs_f64() * 1e3
            ),
            StepVerdict::ErrorsOver { share } => format!(
                "errors {:.3}% above the SLO's {:.3}%",
                share * 100.0,
                plan.slo_errors * 100.0
            ),
        }
    }
}

/// Judges one step: the rate first (a generator that could not send is not
/// a latency figure), then errors, then p99.
pub fn judge(plan: &SearchPlan, f: &StepFigures) -> StepVerdict {
    if f.achieved_rps < RATE_HELD_SHARE * f.target_rps {
        return StepVerdict::RateMissed {
            achieved_rps: f.achieved_rps,
        };
    }
    let share = if f.requests == 0 {
        1.0
    } else {
        f.errors as f64 / f.requests as f64
    };
    if share > plan.slo_errors {
        return StepVerdict::ErrorsOver { share };
    }
    if f.p99 > plan.slo_p99 {
        return StepVerdict::LatencyOver { p99: f.p99 };
    }
    StepVerdict::Held
}

/// How a search ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SearchEnd {
    /// The highest held rate, with the lowest failed rate above it within precision.
    Found { rate: f64, first_failed: f64 },
    /// `to` held: the maximum is above the searched range.
    AboveRange { rate: f64 },
    /// Even `from` failed: the maximum is below the searched range.
    BelowRange,
    /// `max_steps` ran out before the bracket was narrow enough.
    StepLimit {
        held: Option<f64>,
        first_failed: Option<f64>,
    },
}

/// The search's next move.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Next {
    Probe(f64),
    Done(SearchEnd),
}

/// The highest held rate and the lowest failed rate above it (a failed rate
/// below a held one is noise and does not bound the search).
fn bracket(probes: &[(f64, bool)]) -> (Option<f64>, Option<f64>) {
    let held = probes
        .iter()
        .filter(|p| p.1)
        .map(|p| p.0)
        .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))));
    let failed = probes
        .iter()
        .filter(|p| !p.1 && held.is_none_or(|h| p.0 > h))
        .map(|p| p.0)
        .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.min(r))));
    (held, failed)
}

/// The next rate to probe after `probes` (rate, held), in the order probed.
pub fn next_step(plan: &SearchPlan, probes: &[(f64, bool)]) -> Next {
    if probes.is_empty() {
        return Next::Probe(plan.from);
    }
    let (held, failed) = bracket(probes);
    let next = match (held, failed) {
        (None, _) => return Next::Done(SearchEnd::BelowRange),
        (Some(h), None) if h >= plan.to => return Next::Done(SearchEnd::AboveRange { rate: h }),
        (Some(h), None) => (h * plan.factor).min(plan.to),
        (Some(h), Some(f)) if (f - h) / h <= plan.precision => {
            return Next::Done(SearchEnd::Found {
                rate: h,
                first_failed: f,
            });
        }
        (Some(h), Some(f)) => (h * f).sqrt(),
    };
    if probes.len() >= plan.max_steps as usize {
        return Next::Done(SearchEnd::StepLimit {
            held,
            first_failed: failed,
        });
    }
    Next::Probe(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(from: f64, to: f64) -> SearchPlan {
        SearchPlan {
            from,
            to,
            connections: 8,
            slo_p99: Duration::from_millis(50),
            slo_errors: 0.001,
            step_warmup: Duration::from_secs(1),
            step_window: Duration::from_secs(3),
            factor: 2.0,
            precision: 0.05,
            max_steps: 20,
        }
    }

    /// A model service with capacity `c`: below it every figure holds; above
    /// it the achieved rate is capped at `c` and the queue grows the p99.
    fn model(c: f64, rate: f64) -> StepFigures {
        let over = rate > c;
        StepFigures {
            target_rps: rate,
            achieved_rps: rate.min(c),
            p99: Duration::from_millis(if over { 900 } else { 4 }),
            requests: (rate.min(c) * 3.0) as u64,
            errors: 0,
        }
    }

    fn search(p: &SearchPlan, c: f64) -> (SearchEnd, usize) {
        let mut probes = Vec::new();
        loop {
            match next_step(p, &probes) {
                Next::Probe(rate) => probes.push((rate, judge(p, &model(c, rate)).held())),
                Next::Done(end) => return (end, probes.len()),
            }
        }
    }

    #[test]
    fn converges_within_ten_percent_of_a_step_capacity() {
        let p = plan(100.0, 100_000.0);
        for c in [137.0, 200.0, 737.0, 5_000.0, 61_000.0] {
            let (end, steps) = search(&p, c);
            let SearchEnd::Found { rate, first_failed } = end else {
                panic!("capacity {c}: {end:?}");
            };
            assert!(rate <= c && rate >= 0.9 * c, "capacity {c}: found {rate}");
            assert!(first_failed > c, "capacity {c}: {first_failed} failed");
            assert!(steps <= 20, "capacity {c}: {steps} steps");
        }
    }

    #[test]
    fn capacity_above_the_range_says_so() {
        let p = plan(100.0, 1_000.0);
        assert_eq!(
            search(&p, 5_000.0).0,
            SearchEnd::AboveRange { rate: 1_000.0 }
        );
    }

    #[test]
    fn capacity_below_from_says_so() {
        assert_eq!(search(&plan(100.0, 1_000.0), 50.0).0, SearchEnd::BelowRange);
    }

    #[test]
    fn step_limit_keeps_the_bracket() {
        let p = SearchPlan {
            max_steps: 3,
            ..plan(100.0, 100_000.0)
        };
        // 100, 200, 400 held: the limit stops before 800.
        assert_eq!(
            search(&p, 737.0).0,
            SearchEnd::StepLimit {
                held: Some(400.0),
                first_failed: None
            }
        );
    }

    #[test]
    fn a_failed_rate_below_a_held_one_does_not_bound_the_search() {
        let p = plan(100.0, 100_000.0);
        let probes = [(100.0, true), (200.0, false), (150.0, true), (400.0, true)];
        assert_eq!(next_step(&p, &probes), Next::Probe(800.0));
    }

    #[test]
    fn judge_checks_rate_then_errors_then_latency() {
        let p = plan(100.0, 1_000.0);
        let ok = StepFigures {
            target_rps: 1000.0,
            achieved_rps: 960.0,
            p99: Duration::from_millis(49),
            requests: 3000,
            errors: 3,
        };
        assert_eq!(judge(&p, &ok), StepVerdict::Held);
        let slow_send = StepFigures {
            achieved_rps: 940.0,
            ..ok
        };
        assert!(matches!(
            judge(&p, &slow_send),
            StepVerdict::RateMissed { .. }
        ));
        let errors = StepFigures { errors: 4, ..ok };
        assert!(matches!(judge(&p, &errors), StepVerdict::ErrorsOver { .. }));
        let slow = StepFigures {
            p99: Duration::from_millis(51),
            ..ok
        };
        let verdict = judge(&p, &slow);
        assert_eq!(
            verdict.why_not(&p, 1000.0),
            "p99 51.0 ms above the SLO's 50.0 ms"
        );
        let none = StepFigures {
            requests: 0,
            achieved_rps: 1000.0,
            ..ok
        };
        assert!(
            !judge(&p, &none).held(),
            "a step with no requests cannot hold"
        );
    }
}
