//! dependency-usage.csv and dependency-stats.csv: what the run's
//! dependencies (a database, a downstream stub) cost and answered during
//! each measured window, apart from the service's own figures in
//! measurements.csv (a database's CPU is part of the cost of a CRUD request).
use serde::{Deserialize, Serialize};

/// One row per cell and dependency its runtime needs.
pub const DEPENDENCY_USAGE_FILE: &str = "dependency-usage.csv";
/// One row per cell, dependency with `stats:`, and route it reported.
pub const DEPENDENCY_STATS_FILE: &str = "dependency-stats.csv";

/// A dependency's resources over one cell's measured window.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct DependencyUsageRow {
    pub cell_id: String,
    pub repeat: u32,
    pub dependency: String,
    /// CPU seconds of its process tree (or its cgroup, exited children
    /// included, where the host has cgroups) in the window.
    pub cpu_seconds: Option<f64>,
    /// CPU milliseconds per answered request of the cell (ok + errors).
    pub cpu_ms_per_request: Option<f64>,
    pub rss_mean_bytes: Option<u64>,
    pub rss_max_bytes: Option<u64>,
    /// Its cgroup's memory over the window, where the host has cgroups.
    pub cgroup_memory_mean_bytes: Option<u64>,
    pub cgroup_memory_peak_bytes: Option<u64>,
}

/// One route's figures as a dependency reported them for one window
/// (docs/spec.md, `stats`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct DependencyStatsRow {
    pub cell_id: String,
    pub repeat: u32,
    pub dependency: String,
    pub route: String,
    pub count: u64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}
