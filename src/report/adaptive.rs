//! What a report says about a run's adaptive design: per configuration the
//! repeats it got, the interval half-width reached and why it stopped
//! (repeats.csv), and how long the automatic cell warmups ran
//! (measurements.csv `warmup_s`, `warmup_end`). Empty for a fixed design,
//! so the reports of fixed runs are unchanged.
use serde::Serialize;

use super::run_data::RunData;
use crate::results::{RepeatsRow, RepeatsStop, WarmupEnd};

/// The template variable `adaptive` (docs/templates.md).
#[derive(Debug, Clone, Serialize, Default)]
pub struct AdaptiveView {
    /// repeats.csv rows, when any runtime has adaptive repeats; else empty.
    pub repeats: Vec<RepeatsRow>,
    /// Configurations that stopped at their target, and at their max.
    pub at_target: usize,
    pub at_max: usize,
    /// Automatic cell warmups, when the run had any.
    pub warmup: Option<AutoWarmupView>,
}

/// How long the `auto` cell warmups ran.
#[derive(Debug, Clone, Serialize)]
pub struct AutoWarmupView {
    pub cells: usize,
    /// Ended because throughput stopped trending / because `max` was reached.
    pub stable: usize,
    pub at_max: usize,
    pub min_s: f64,
    pub mean_s: f64,
    pub max_s: f64,
}

impl AdaptiveView {
    pub fn of(run: &RunData) -> Self {
        let adaptive = run.repeats.iter().any(|r| r.target_ci.is_some());
        let repeats = if adaptive {
            run.repeats.clone()
        } else {
            Vec::new()
        };
        let count = |stop| repeats.iter().filter(|r| r.stop == stop).count();
        AdaptiveView {
            at_target: count(RepeatsStop::Target),
            at_max: count(RepeatsStop::Max),
            repeats,
            warmup: auto_warmup(run),
        }
    }
}

fn auto_warmup(run: &RunData) -> Option<AutoWarmupView> {
    let auto: Vec<(f64, WarmupEnd)> = run
        .measurements
        .iter()
        .filter(|m| matches!(m.warmup_end, WarmupEnd::Stable | WarmupEnd::Max))
        .map(|m| (m.warmup_s, m.warmup_end))
        .collect();
    if auto.is_empty() {
        return None;
    }
    let seconds = auto.iter().map(|(s, _)| *s);
    Some(AutoWarmupView {
        cells: auto.len(),
        stable: auto.iter().filter(|(_, e)| *e == WarmupEnd::Stable).count(),
        at_max: auto.iter().filter(|(_, e)| *e == WarmupEnd::Max).count(),
        min_s: seconds.clone().fold(f64::INFINITY, f64::min),
        mean_s: seconds.clone().sum::<f64>() / auto.len() as f64,
        max_s: seconds.fold(0.0, f64::max),
    })
}
