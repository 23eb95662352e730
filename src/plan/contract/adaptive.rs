//! The adaptive parts of a plan, resolved from the spec: how many repeats a
//! runtime's configurations get ([`RepeatPolicy`]) and how long a cell warms
//! up ([`CellWarmup`]). Exec applies them (exec::repeats, exec::warmup);
//! the estimate gives their range.
use std::time::Duration;

use serde::Serialize;

use crate::spec::LoadedSpec;
use crate::spec::keys::adaptive::{CellWarmupSpec, RepeatsSpec};
use crate::spec::model::RuntimeSpec;

/// How many repeats each configuration of a runtime gets.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum RepeatPolicy {
    /// Exactly this many.
    Fixed { repeats: u32 },
    /// At least `min`, then one more (in the plan's order) until the 95%
    /// interval of the configuration's throughput is within `target_ci` of
    /// its mean, or `max` repeats were measured.
    Adaptive { min: u32, max: u32, target_ci: f64 },
    /// At least `min`, then round after round for the runtimes whose
    /// findings (report::analysis::findings) are still open, up to `max`.
    Decided { min: u32, max: u32 },
}

impl RepeatPolicy {
    /// The repeats every configuration gets.
    pub fn min(self) -> u32 {
        match self {
            RepeatPolicy::Fixed { repeats } => repeats,
            RepeatPolicy::Adaptive { min, .. } | RepeatPolicy::Decided { min, .. } => min,
        }
    }

    /// The repeats a configuration may get: the plan has a cell for each.
    pub fn max(self) -> u32 {
        match self {
            RepeatPolicy::Fixed { repeats } => repeats,
            RepeatPolicy::Adaptive { max, .. } | RepeatPolicy::Decided { max, .. } => max,
        }
    }
}

impl From<RepeatsSpec> for RepeatPolicy {
    fn from(spec: RepeatsSpec) -> Self {
        match spec {
            RepeatsSpec::Fixed(repeats) => RepeatPolicy::Fixed { repeats },
            RepeatsSpec::Adaptive(a) => match (a.target_ci, a.until) {
                (Some(target_ci), _) => RepeatPolicy::Adaptive {
                    min: a.min,
                    max: a.max,
                    target_ci: target_ci.0,
                },
                // The spec's check (`RepeatsSpec::problem`) leaves exactly one.
                (None, _) => RepeatPolicy::Decided {
                    min: a.min,
                    max: a.max,
                },
            },
        }
    }
}

/// The runtime's own `repeats`, else the spec's.
pub fn repeat_policy(rt: &RuntimeSpec, loaded: &LoadedSpec) -> RepeatPolicy {
    rt.repeats.unwrap_or(loaded.spec.repeats).into()
}

/// Load applied before a cell's measurement, not recorded.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum CellWarmup {
    /// A fixed duration (zero: none).
    Fixed { duration: Duration },
    /// Until throughput stops trending (exec::warmup_rule), within `max`.
    Auto(AutoWarmup),
    /// This many requests at the cell's load shape (`{ requests: 1000 }`):
    /// its length is unknown before the run, like `measure.requests`.
    Requests { count: u64 },
}

/// The parameters of `warmup: { cell: auto }` (docs/spec.md, "Auto warmup").
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AutoWarmup {
    /// Throughput is counted per window of this length.
    pub window: Duration,
    /// The rule looks at the last this many windows (and never ends the
    /// warmup before that many have passed).
    pub windows: u32,
    /// The longest the warmup runs, stable or not.
    pub max: Duration,
    /// A fitted drift over the last windows below this fraction of their
    /// mean counts as flat even when it is statistically significant.
    pub flat_within: f64,
}

/// Defaults of `warmup: { cell: auto }` (documented in docs/spec.md).
pub const AUTO_WARMUP_WINDOW: Duration = Duration::from_secs(1);
pub const AUTO_WARMUP_WINDOWS: u32 = 5;
pub const AUTO_WARMUP_MAX: Duration = Duration::from_secs(30);
pub const AUTO_WARMUP_FLAT_WITHIN: f64 = 0.02;

impl CellWarmup {
    /// The longest this warmup can take: what the estimate counts at most.
    pub fn longest(self) -> Duration {
        match self {
            CellWarmup::Fixed { duration } => duration,
            CellWarmup::Auto(a) => a.max,
            CellWarmup::Requests { .. } => Duration::ZERO,
        }
    }

    /// The shortest this warmup can take: what the estimate counts at least.
    pub fn shortest(self) -> Duration {
        match self {
            CellWarmup::Fixed { duration } => duration,
            CellWarmup::Auto(a) => (a.window * a.windows).min(a.max),
            CellWarmup::Requests { .. } => Duration::ZERO,
        }
    }

    /// Every duration passed through `shorten` (for `--quick`).
    pub fn shortened(self, shorten: impl Fn(Duration) -> Duration) -> Self {
        match self {
            CellWarmup::Fixed { duration } => CellWarmup::Fixed {
                duration: shorten(duration),
            },
            CellWarmup::Auto(a) => CellWarmup::Auto(AutoWarmup {
                window: shorten(a.window),
                max: shorten(a.max),
                ..a
            }),
            // A count, not a duration: `Plan::quick` divides it as it
            // divides `measure.requests`.
            requests @ CellWarmup::Requests { .. } => requests,
        }
    }
}

/// The spec's `warmup.cell` (and `warmup.max`), resolved.
pub fn cell_warmup(loaded: &LoadedSpec) -> CellWarmup {
    let warmup = &loaded.spec.warmup;
    match warmup.cell {
        None => CellWarmup::Fixed {
            duration: Duration::ZERO,
        },
        Some(CellWarmupSpec::Fixed(d)) => CellWarmup::Fixed { duration: d.0 },
        Some(CellWarmupSpec::Requests(count)) => CellWarmup::Requests { count },
        Some(CellWarmupSpec::Auto) => CellWarmup::Auto(AutoWarmup {
            window: AUTO_WARMUP_WINDOW,
            windows: AUTO_WARMUP_WINDOWS,
            max: warmup.max.map_or(AUTO_WARMUP_MAX, |m| m.0),
            flat_within: AUTO_WARMUP_FLAT_WITHIN,
        }),
    }
}
