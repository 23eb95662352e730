//! What a report says about the run's dependencies (dependency-usage.csv,
//! dependency-stats.csv): per cell, the service's CPU beside each
//! dependency's (a database's CPU is part of the cost of a CRUD request),
//! and the latency a dependency reported of itself beside the service's, so
//! a slow stub is not blamed on the service. Empty without dependencies, so
//! other reports are unchanged.
use serde::Serialize;

use crate::report::error::ReportError;
use crate::results::read::run_data::RunData;
use crate::results::{
    DEPENDENCY_STATS_FILE, DEPENDENCY_USAGE_FILE, DependencyStatsRow, DependencyUsageRow,
    MeasurementRow, read_csv,
};

/// The template variable `dependencies` (docs/templates.md).
#[derive(Debug, Clone, Serialize, Default)]
pub struct DependenciesView {
    /// One row per cell and dependency, in measurement order.
    pub usage: Vec<UsageLine>,
    /// One row per cell, dependency and route it reported.
    pub stats: Vec<StatsLine>,
}

/// A cell's service CPU beside one dependency's.
#[derive(Debug, Clone, Serialize)]
pub struct UsageLine {
    pub cell_id: String,
    pub dependency: String,
    /// The service's CPU seconds in the window (its cgroup's, else its process tree's).
    pub service_cpu_s: Option<f64>,
    pub service_cpu_ms_per_request: Option<f64>,
    pub dependency_cpu_s: Option<f64>,
    pub dependency_cpu_ms_per_request: Option<f64>,
    /// The dependency's share of the two together, 0..1.
    pub dependency_share: Option<f64>,
    pub dependency_memory_peak_bytes: Option<u64>,
}

/// One route a dependency reported, beside the service's own p99.
#[derive(Debug, Clone, Serialize)]
pub struct StatsLine {
    #[serde(flatten)]
    pub row: DependencyStatsRow,
    pub service_p99_ms: Option<f64>,
}

impl DependenciesView {
    /// The report context `ctx` with this view as its `dependencies`.
    pub fn of(run: &RunData) -> Result<Self, ReportError> {
        let usage_rows: Vec<DependencyUsageRow> =
            read_csv(&run.dir.join(DEPENDENCY_USAGE_FILE))?.unwrap_or_default();
        let stats_rows: Vec<DependencyStatsRow> =
            read_csv(&run.dir.join(DEPENDENCY_STATS_FILE))?.unwrap_or_default();
        let cell = |id: &str| -> Option<&MeasurementRow> {
            run.measurements.iter().find(|m| m.cell_id == id)
        };
        let usage = usage_rows
            .into_iter()
            .map(|u| {
                let m = cell(&u.cell_id);
                let service_cpu_s = m.and_then(|m| m.cgroup_cpu_s.or(m.service_cpu_s));
                let answered = m.map_or(0, |m| m.ok + m.errors) as f64;
                let per_request = |cpu: Option<f64>| {
                    cpu.filter(|_| answered > 0.0)
                        .map(|c| c * 1000.0 / answered)
                };
                let total = service_cpu_s.zip(u.cpu_seconds).map(|(s, d)| s + d);
                UsageLine {
                    cell_id: u.cell_id.clone(),
                    dependency: u.dependency.clone(),
                    service_cpu_s,
                    service_cpu_ms_per_request: per_request(service_cpu_s),
                    dependency_cpu_s: u.cpu_seconds,
                    dependency_cpu_ms_per_request: u.cpu_ms_per_request,
                    dependency_share: total
                        .filter(|t| *t > 0.0)
                        .zip(u.cpu_seconds)
                        .map(|(t, d)| d / t),
                    dependency_memory_peak_bytes: u.cgroup_memory_peak_bytes.or(u.rss_max_bytes),
                }
            })
            .collect();
        let stats = stats_rows
            .into_iter()
            .map(|row| StatsLine {
                service_p99_ms: cell(&row.cell_id).map(|m| m.latency_p99_ms),
                row,
            })
            .collect();
        Ok(DependenciesView { usage, stats })
    }
}
