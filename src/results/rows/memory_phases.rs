//! `memory-phases.csv`: one row per fresh process of the spec's `memory:`
//! phases (idle reading, declared load, reading right after, stop), written
//! as each process is stopped. Kept apart from measurements.csv: these
//! processes serve no latency cell, and no sampler runs during their load.
use serde::{Deserialize, Serialize};

/// The file in the run directory.
pub const MEMORY_PHASES_FILE: &str = "memory-phases.csv";

/// Whether a process went through every phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryPhaseStatus {
    /// Idle and after readings taken, the load ran without failing.
    Ok,
    /// A phase did not complete; `reason` says which and why.
    Failed,
}

/// One fresh process: its memory idle and right after the load.
///
/// Every memory figure is the total over the service's processes (a Node
/// cluster's primary and workers together): `rss` sums the processes' RSS
/// (shared pages counted once per process), `pss` their proportional set
/// size (shared pages split; `None` where smaps_rollup is unreadable), and
/// `cgroup` is the service cgroup's `memory.current` (`None` without a
/// memory cgroup).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryPhaseRow {
    pub runtime: String,
    /// 1-based: which fresh process of this runtime.
    pub process: u32,
    pub status: MemoryPhaseStatus,
    /// Processes of the service at the idle reading.
    pub processes: u32,
    pub idle_rss_bytes: Option<u64>,
    pub idle_pss_bytes: Option<u64>,
    pub idle_cgroup_bytes: Option<u64>,
    pub after_rss_bytes: Option<u64>,
    pub after_pss_bytes: Option<u64>,
    pub after_cgroup_bytes: Option<u64>,
    /// The load between the readings.
    pub connections: u32,
    pub load_seconds: f64,
    pub requests_ok: u64,
    pub errors: u64,
    /// Empty when `ok`.
    pub reason: String,
}
