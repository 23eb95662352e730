//! `first-requests.csv`: the latency of each of the first requests a freshly
//! started service served (`startup.first_requests`), one row per request,
//! per runtime and start, written when the start has sent them. The study
//! this answers (2020, Helidon vs Go-Kit) saw every Java variant's first
//! request much slower than its steady state; the report sets these beside
//! the windows' p50.
use serde::{Deserialize, Serialize};

use crate::results::Phase;

/// The file in the run directory.
pub const FIRST_REQUESTS_FILE: &str = "first-requests.csv";

/// One of the first requests of one start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FirstRequestRow {
    pub runtime: String,
    /// `startup` (a cold start, `startup.repeats`) or `measure` (the start
    /// whose cells are measured), as in lifecycle.csv.
    pub phase: Phase,
    /// The start's `start_index` in lifecycle.csv.
    pub start_index: u32,
    /// 1 for the first workload request the process answered with the
    /// expected status (after its health checks, which hit `health.path`).
    pub request: u32,
    /// From the request's send (a fresh connection each) to its answer.
    pub latency_ms: f64,
}
