//! The type of a runtime's resolved `profile:` (`ProfilePlan`), part of
//! the Plan contract; [`crate::plan::steps::profile`] resolves it from the spec.
use std::path::PathBuf;

use serde::Serialize;

use crate::spec::keys::profile::Collector;

/// What is collected for one runtime.
#[derive(Debug, Clone, Serialize)]
pub struct ProfilePlan {
    /// Sorted, without duplicates.
    pub collect: Vec<Collector>,
    /// `libasyncProfiler.so`, absolute (for `async_cpu` / `async_alloc`).
    pub async_profiler: Option<PathBuf>,
    /// The port of the Go service's pprof listener (`PPROF_PORT`), for the
    /// pprof and `go_gc` collectors.
    pub pprof_port: Option<u16>,
}

impl ProfilePlan {
    pub fn has(&self, c: Collector) -> bool {
        self.collect.contains(&c)
    }
}
