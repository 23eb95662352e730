//! requests/<cell>.csv: a cell's figures per workload request, written only
//! when the workload has several requests (one request's row would repeat
//! the cell's own in measurements.csv).

use serde::{Deserialize, Serialize};

/// Folder of the per-request files, one per cell.
pub const REQUESTS_DIR: &str = "requests";

/// One workload request's outcomes in one cell's measured window.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct RequestMixRow {
    pub cell_id: String,
    /// The request's `name` in the spec.
    pub request: String,
    /// Its `weight` (empty: an unweighted, round-robin workload).
    pub weight: Option<f64>,
    /// Answers with the expected status.
    pub ok: u64,
    /// Every other outcome (wrong status, timeout, reset, ...).
    pub errors: u64,
    /// This request's part of the cell's answered requests (ok + errors), 0..1.
    pub share: f64,
    /// Latency of the `ok` answers (from the intended send time in open loop).
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}
