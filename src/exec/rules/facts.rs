//! What a cell's verdict is based on: the figures the gates judge, and
//! where the generator ran (named in its reasons). Plain data, below both
//! the gates and the verdict that reads their findings.
use crate::plan::contract::gates::Gates;

/// What the verdict is based on.
#[derive(Debug, Clone, Default)]
pub struct CellFacts<'a> {
    /// The load generator's own saturation diagnosis, if any.
    pub saturated: Option<&'a str>,
    /// Generator CPU / (elapsed x threads).
    pub gen_cpu_share: f64,
    /// Open loop: (target, achieved) requests per second.
    pub rates: Option<(f64, f64)>,
    pub successes: u64,
    pub errors: u64,
    /// The training evidence was declared but not found in the service log.
    pub evidence_missing: Option<&'a str>,
    /// The thresholds of the gates.
    pub gates: Gates,
    /// The errors by class, in words (`status 500: 617, reset: 3`).
    pub error_classes: String,
    /// Generator threads' run-queue wait / (window x threads).
    pub gen_wait_share: f64,
    /// CPUs the service and the generator used together during the window.
    pub host_cpus_used: f64,
    pub host_cpus: u32,
    /// Idle share of the host's CPU time over the window, when read.
    pub host_idle_share: Option<f64>,
    /// Successful answers' median and mean latency.
    pub p50_ms: f64,
    pub mean_latency_ms: f64,
    /// Share of the successful answers inside the latency floor band.
    pub floor_band_share: f64,
    /// CPUs the service used during the window; `None` when not sampled.
    pub service_cpus: Option<f64>,
    /// Closed loop: the connections kept busy.
    pub closed_connections: Option<u32>,
    /// HTTP/2: the streams kept busy on each of them (1 otherwise), so a
    /// closed loop keeps connections x streams requests in flight.
    pub streams: u32,
    /// Answers (successes and errors) per second.
    pub answered_rps: f64,
    // --- Hosts (issue 17): which host the generator's figures are about. ---
    /// Where the load generator ran, named in its reasons when the spec declares hosts.
    pub generator_host: GeneratorHost,
}

/// Where a cell's load generator ran, as its reasons name it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum GeneratorHost {
    /// Service and generator on this host, no `hosts:`: "the generator".
    #[default]
    Unnamed,
    /// This host, with the service on the SSH service host: this host's
    /// CPUs are the generator's alone.
    Here,
    /// A load host reached over SSH (with several: the one that waited most).
    Remote(String),
}
