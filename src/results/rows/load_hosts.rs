//! load-hosts/<cell>.csv: each load host's part of a cell whose load ran on
//! remote hosts (the cell's row in measurements.csv is their exact merge).

use serde::{Deserialize, Serialize};

/// Folder of the per-host files, one per cell measured on remote load hosts.
pub const LOAD_HOSTS_DIR: &str = "load-hosts";

/// One load host's outcomes in one cell's measured window.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct LoadHostRow {
    pub cell_id: String,
    /// The host's SSH destination, as in the spec.
    pub host: String,
    /// Its share of the cell's connections.
    pub connections: usize,
    pub ok: u64,
    pub errors: u64,
    pub throughput: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// The host's generator CPU share and run-queue wait share (each gated on its own).
    pub generator_cpu_share: f64,
    pub generator_wait_share: f64,
    /// Why this host's generator may have limited the result (empty: it did not).
    pub saturated: String,
    /// When its measured window opened, after the earliest host's (ms; clocks
    /// corrected by the measured offset): the window skew.
    pub window_start_ms: f64,
    /// The shortest ping round trip to the host before the load (ms).
    pub rtt_ms: f64,
    /// Its clock minus the controlling host's (ms).
    pub clock_offset_ms: f64,
    /// Opening the SSH session (ms), including a binary copy when `installed`.
    pub session_open_ms: f64,
    pub installed: bool,
}
