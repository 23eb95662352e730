//! The `profile:` section (spec-wide, or per runtime, which then wins whole):
//! which cells get an extra, profiled repeat and what is collected there.
//! Profiling perturbs what it measures, so the profiled repeat never enters
//! the headline statistics (see docs/spec.md, `profile`).
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;

pub use crate::results::rows::profiles::Collector;
use crate::spec::values::AxisValue;

/// Which cells are profiled and with which collectors.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with cells, collect, async_profiler"
)]
pub struct ProfileSpec {
    /// Axis values of the profiled cells, e.g. `{ payload: [2048], concurrency: [96] }`;
    /// a cell is profiled when each named axis has one of the listed values.
    /// Left out: every configuration of the runtime is profiled.
    #[serde(default)]
    pub cells: IndexMap<String, Vec<AxisValue>>,
    /// What is collected: `gc_log`, `jfr`, `async_cpu`, `async_alloc` (JVM),
    /// `pprof_cpu`, `pprof_heap`, `go_gc` (Go), `perf` (any runtime).
    pub collect: Vec<Collector>,
    /// async-profiler's `libasyncProfiler.so`, relative to the runtime's
    /// `dir` (needed by `async_cpu` and `async_alloc`).
    pub async_profiler: Option<String>,
}
