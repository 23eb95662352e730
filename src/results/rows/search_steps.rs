//! `search/<cell>.csv`: every step a `mode: search` cell probed, in order,
//! so the found maximum can be checked against the rates around it.
use serde::{Deserialize, Serialize};

/// Folder of the per-cell search step files.
pub const SEARCH_DIR: &str = "search";

/// One probed rate of a search cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchStepRow {
    /// 1-based, in the order probed.
    pub step: u32,
    pub target_rps: f64,
    /// Requests answered (or failed) per second of the measured window.
    pub achieved_rps: f64,
    /// Latency from each request's intended send time (coordinated omission corrected).
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub requests: u64,
    pub errors: u64,
    /// Whether the step held the rate (within 5%) and the SLO.
    pub held: bool,
    /// Why it did not hold; empty when it held.
    pub why_not: String,
}
