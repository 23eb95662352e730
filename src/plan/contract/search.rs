//! The plan of a `mode: search` cell: the validated spec fields with their
//! defaults filled in, so the executor needs no spec knowledge.
use std::time::Duration;

use serde::Serialize;

use crate::spec::model::LoadSpec;

/// Measured window of one step when `step.duration` is not given: long
/// enough for a p99 over a few hundred requests at low rates, short enough
/// that a 20-step search stays near two minutes.
pub const DEFAULT_STEP_WINDOW: Duration = Duration::from_secs(3);
/// Load at the step's rate before its window: lets queues settle at the new rate.
pub const DEFAULT_STEP_WARMUP: Duration = Duration::from_secs(1);
/// Each step-up doubles the rate.
pub const DEFAULT_STEP_FACTOR: f64 = 2.0;
/// Bisection stops when the bracket is this narrow (relative to the held rate).
pub const DEFAULT_PRECISION: f64 = 0.05;
/// At most this many steps per cell.
pub const DEFAULT_MAX_STEPS: u32 = 20;
/// A step holds the rate when it achieves at least this share of its target.
pub const RATE_HELD_SHARE: f64 = 0.95;

/// How a search cell probes: see [`crate::exec::measure::search`] for the rule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SearchPlan {
    /// First rate probed (req/s).
    pub from: f64,
    /// Highest rate probed (req/s).
    pub to: f64,
    /// Connections each step's open-loop rate is spread over.
    pub connections: u32,
    /// A step fails when its p99 is above this.
    pub slo_p99: Duration,
    /// A step fails when its share of errors is above this (a fraction).
    pub slo_errors: f64,
    pub step_warmup: Duration,
    pub step_window: Duration,
    pub factor: f64,
    /// A fraction (0.05 = 5%).
    pub precision: f64,
    pub max_steps: u32,
}

impl SearchPlan {
    /// The longest a search can measure: every step taken.
    pub fn longest(&self) -> Duration {
        (self.step_warmup + self.step_window) * self.max_steps
    }
}

/// The search plan of a validated `load` section; `connections` as the
/// open mode resolves them.
pub fn search_plan(load: &LoadSpec, connections: u32) -> SearchPlan {
    let step = load.step.unwrap_or_default();
    let slo = load.slo;
    SearchPlan {
        from: load.from.unwrap_or(1.0),
        to: load.to.unwrap_or(1.0),
        connections,
        slo_p99: slo.map_or(Duration::ZERO, |s| s.p99.0),
        slo_errors: slo.map_or(0.0, |s| s.errors.0),
        step_warmup: step.warmup.map_or(DEFAULT_STEP_WARMUP, |d| d.0),
        step_window: step.duration.map_or(DEFAULT_STEP_WINDOW, |d| d.0),
        factor: step.factor.unwrap_or(DEFAULT_STEP_FACTOR),
        precision: step.precision.map_or(DEFAULT_PRECISION, |p| p.0),
        max_steps: step.max_steps.unwrap_or(DEFAULT_MAX_STEPS),
    }
}
