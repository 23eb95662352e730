//! The spec's `memory:` resolved: how many fresh processes per runtime, the
//! settle time before the idle reading, and the load between the readings
//! (see [`crate::spec::keys::memory`] and [`crate::exec::start::memory_phases`]).
use std::time::Duration;

use serde::Serialize;

use crate::spec::keys::memory::{DEFAULT_MEMORY_REPEATS, MemorySpec};

/// Wait after health before the idle reading when `settle` is left out:
/// long enough for a runtime's start-up allocations to settle.
pub const DEFAULT_SETTLE: Duration = Duration::from_secs(2);

/// Memory phases, for every runtime of the plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryPlan {
    /// Fresh processes per runtime.
    pub repeats: u32,
    pub settle: Duration,
    pub connections: u32,
    pub duration: Duration,
}

impl MemoryPlan {
    pub fn of(spec: &MemorySpec) -> MemoryPlan {
        MemoryPlan {
            repeats: spec.repeats.unwrap_or(DEFAULT_MEMORY_REPEATS),
            settle: spec.settle.map_or(DEFAULT_SETTLE, |d| d.0),
            connections: spec.connections,
            duration: spec.duration.0,
        }
    }
}
