//! `memory: { repeats: 3, settle: 2s, connections: 300, duration: 15s }`:
//! memory measured in phases on fresh processes, apart from the latency
//! cells (the "Node.js vs Go for a JSON API" study's method). For every
//! runtime, `repeats` times: a fresh start, the idle reading `settle` after
//! it is healthy, a closed-loop load of `connections` for `duration`, the
//! reading right after, stop. See [`crate::exec::start::memory_phases`].
use schemars::JsonSchema;
use serde::Deserialize;

use crate::spec::validate::Finding;
use crate::spec::values::HumanDuration;

/// Fresh processes per runtime when `repeats` is left out.
pub const DEFAULT_MEMORY_REPEATS: u32 = 3;

/// The `memory:` section.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with repeats, settle, connections, duration (e.g. { connections: 300, duration: 15s })"
)]
pub struct MemorySpec {
    /// Fresh processes per runtime (default 3): the spread is over these.
    pub repeats: Option<u32>,
    /// Wait after the service is healthy before the idle reading (default 2s).
    pub settle: Option<HumanDuration>,
    /// Closed-loop connections of the load between the two readings.
    pub connections: u32,
    /// How long that load lasts.
    pub duration: HumanDuration,
}

/// Checks the values serde cannot: at least one process, one connection,
/// a load that lasts.
pub fn check_memory(memory: &MemorySpec, out: &mut Vec<Finding>) {
    let mut add = |field: &str, message: String, help: &str| {
        out.push(Finding {
            field: format!("memory.{field}"),
            message,
            help: help.into(),
        })
    };
    if memory.repeats == Some(0) {
        add(
            "repeats",
            "memory phases need at least one fresh process per runtime".into(),
            "write `repeats: 3` (the default), or drop `memory:`",
        );
    }
    if memory.connections == 0 {
        add(
            "connections",
            "the memory load needs at least one connection".into(),
            "write the concurrency whose memory you want, e.g. `connections: 300`",
        );
    }
    if memory.duration.0.is_zero() {
        add(
            "duration",
            "the memory load lasts 0s, so `after` would read an idle process again".into(),
            "give the load a length, e.g. `duration: 15s`",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn zero_values_are_each_named() {
        let memory = MemorySpec {
            repeats: Some(0),
            settle: None,
            connections: 0,
            duration: HumanDuration(Duration::ZERO),
        };
        let mut out = Vec::new();
        check_memory(&memory, &mut out);
        let fields: Vec<_> = out.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(
            fields,
            ["memory.repeats", "memory.connections", "memory.duration"]
        );
    }

    #[test]
    fn a_sound_section_has_no_findings() {
        let memory = MemorySpec {
            repeats: None,
            settle: None,
            connections: 300,
            duration: HumanDuration(Duration::from_secs(15)),
        };
        let mut out = Vec::new();
        check_memory(&memory, &mut out);
        assert!(out.is_empty());
    }
}
