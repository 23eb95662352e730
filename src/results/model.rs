//! The run directory's file formats: the contract between `exec` (which
//! writes a run) and `report` (which reads any past run). See
//! docs/run-directory.md for the prose version; keep the two in step.
//!
//! ```text
//! results/<experiment>/<run-id>/
//!   spec.yaml              the spec file, byte for byte
//!   plan.json              the resolved Plan (templates rendered)
//!   status.json            RunStatus: running / complete / interrupted / failed
//!   environment.json       Environment: host, toolchains, runner version
//!   configurations.csv     ConfigurationRow, one per runtime
//!   lifecycle.csv          LifecycleRow, one per service start
//!   measurements.csv       MeasurementRow, one per cell x repeat, flushed as each ends
//!   repeats.csv            RepeatsRow, one per configuration: repeats, interval, why it stopped
//!   timelines/<cell>.csv   TimelineRow, per-second load figures of one cell
//!   samples/<cell>.csv     SampleRow, the service's resources during one cell
//!   histograms/<cell>.hlog HdrHistogram log (microseconds): corrected latency
//!                          untagged, service time tagged `service_time`
//!   search/<cell>.csv      SearchStepRow, every step of a `mode: search` cell
//!   logs/                  build-<runtime>.log, train-<runtime>.log, <runtime>.log
//!   summary-by-cell.csv, peak-throughput.csv, wins.csv, pairs.csv, report.md, report.html, charts/
//! ```
//! `<cell>` is [`cell_file_stem`] of the cell id.
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use crate::results::states::{
    CellStatus, ConfigurationStatus, LoopMode, Phase, RepeatsStop, RepeatsUntil, RunState,
    StopOutcome, WarmupEnd,
};

pub const SPEC_FILE: &str = "spec.yaml";
pub const PLAN_FILE: &str = "plan.json";
pub const STATUS_FILE: &str = "status.json";
pub const ENVIRONMENT_FILE: &str = "environment.json";
pub const CONFIGURATIONS_FILE: &str = "configurations.csv";
pub const LIFECYCLE_FILE: &str = "lifecycle.csv";
pub const MEASUREMENTS_FILE: &str = "measurements.csv";
pub const REPEATS_FILE: &str = "repeats.csv";
pub const TIMELINES_DIR: &str = "timelines";
pub const SAMPLES_DIR: &str = "samples";
pub const HISTOGRAMS_DIR: &str = "histograms";
pub const LOGS_DIR: &str = "logs";
/// The CA certificate of the run's TLS certificates (`crate::certs`), the
/// one the generator trusted; the private keys are never kept.
pub const TLS_CA_FILE: &str = "tls/ca.pem";

/// File-name stem for a cell's per-cell files: `/` becomes `__`.
/// `jdk-jvm/payload=128/concurrency=12/r2` -> `jdk-jvm__payload=128__concurrency=12__r2`.
pub fn cell_file_stem(cell_id: &str) -> String {
    cell_id.replace('/', "__")
}

/// status.json: where a run stands. Rewritten atomically at each change.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunStatus {
    pub state: RunState,
    pub run_id: String,
    pub experiment: String,
    /// RFC 3339.
    pub started_at: String,
    pub updated_at: String,
    pub cells_total: u64,
    pub cells_done: u64,
    /// `Some(factor)` when run with `--quick`.
    pub quick_factor: Option<u32>,
    /// sha256 of spec.yaml; `--resume` refuses a different spec unless forced.
    pub spec_hash: String,
    /// Why the run ended as it did (interrupted by SIGINT, ...).
    pub message: Option<String>,
    /// Cells the plan skipped (a JDK older than the runtime's `java.min`,
    /// or not installed), with why; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_cells: Vec<crate::results::SkippedCell>,
}

/// environment.json: what the run ran on. Never the process environment.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Environment {
    pub host: HostInfo,
    /// Tool name -> first line of its version output (`go version`, `java -version`, ...).
    pub toolchains: BTreeMap<String, String>,
    pub runner_version: String,
    pub captured_at: String,
    /// How services were contained: cgroup mode (v2 / hybrid / v1 / none)
    /// and why. Absent in runs recorded before cgroups.
    #[serde(default)]
    pub cgroup: Option<crate::cgroup::CgroupReport>,
    /// The remote hosts (spec `hosts:`), fingerprinted before the run;
    /// absent when everything ran here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<crate::results::host_environment::HostEnvironment>,
    /// What the spec's `version:` commands printed (first line), by subject
    /// (`runtime nginx`, `dependency db`); absent before that key existed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub versions: BTreeMap<String, String>,
    /// `runner exec --label KEY=VALUE`: what the run measured, in its
    /// user's words (a commit, a branch, a ticket); absent when none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Per runtime whose `dir` is inside a git work tree: the commit its
    /// sources were at, and whether they had uncommitted changes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sources: BTreeMap<String, crate::results::provenance::GitSource>,
    /// The names (never the values) of the caller's variables each
    /// runtime's and dependency's commands got (`runtime NAME`,
    /// `dependency NAME`): the documented list that was set, and the
    /// runtime's `pass_env:`; absent before runner stopped passing the
    /// caller's whole environment.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub passed_env: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct HostInfo {
    pub hostname: String,
    pub cpu_model: String,
    pub logical_cpus: u32,
    pub physical_cores: Option<u32>,
    pub memory_bytes: u64,
    pub os: String,
    pub kernel: String,
    /// cpufreq scaling governor, when readable.
    pub governor: Option<String>,
}

impl HostInfo {
    /// What must match for two runs to be comparable (hostname excluded: a
    /// rebuilt dedicated host keeps its fingerprint).
    pub fn fingerprint(&self) -> String {
        format!(
            "{} | {} cpus | {} bytes | {} | {}",
            self.cpu_model, self.logical_cpus, self.memory_bytes, self.os, self.kernel
        )
    }
}

/// configurations.csv: one row per runtime.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct ConfigurationRow {
    pub runtime: String,
    pub dir: String,
    pub start: String,
    /// `K=V` pairs joined with `;`, as declared (spec-wide + runtime).
    pub env: String,
    /// JVM flags joined with a space.
    pub jvm_flags: String,
    pub java_home: String,
    pub tags: String,
    /// pending | ran | skipped (`failed` is never written: a runtime whose
    /// cells all failed still ran, and its rows say why).
    pub status: ConfigurationStatus,
    pub reason: String,
    pub build_seconds: Option<f64>,
    /// true when the build was skipped because its input hash matched.
    pub build_cached: bool,
    pub artifact_bytes: Option<u64>,
    pub trained: bool,
    /// How training's effect was proven (e.g. the `-Xlog:aot` line seen).
    pub training_evidence: String,
    // Containment and limits (docs/run-directory.md "Cgroups and limits"); a
    // runtime started under several limits lists each, joined with ` | `.
    // Empty in runs recorded before them (hence the defaults).
    /// v2 | hybrid | v1 | none: how its services were contained.
    #[serde(default)]
    pub cgroup: String,
    /// The limits of its starts as the spec resolved them (`cpus=0.5 memory=64MiB`, or `none`).
    #[serde(default)]
    pub limits: String,
    /// What its service's first process saw, read back from the kernel:
    /// the CPUs it may run on, the cgroup's CPU quota and memory limit.
    #[serde(default)]
    pub limits_seen: String,
    /// What the runtime itself derived, as its /health `runtimeInfo` says
    /// (`cpus=2 parallelism=1 (GOMAXPROCS) memoryLimit=off`); empty when the
    /// service reports none.
    #[serde(default)]
    pub runtime_reported: String,
    // Deployable size (docs/run-directory.md); empty in runs recorded before it.
    /// Total size of what ships (`deployable`, else the artifact).
    #[serde(default)]
    pub deployable_bytes: Option<u64>,
    /// Size of the JDK home a runtime with `java:` runs on (shipped too,
    /// unless the deployable is a jlink image that replaces it).
    #[serde(default)]
    pub jdk_bytes: Option<u64>,
}

/// lifecycle.csv: one row per service start (training starts included).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct LifecycleRow {
    pub runtime: String,
    /// train | measure
    pub phase: Phase,
    /// 1-based count of starts of this runtime in this phase.
    pub start_index: u32,
    pub started_at: String,
    /// Spawn -> first healthy answer.
    pub startup_ms: Option<f64>,
    /// Spawn -> first successful workload request.
    pub first_request_ms: Option<f64>,
    pub idle_rss_bytes: Option<u64>,
    pub post_load_rss_bytes: Option<u64>,
    /// graceful | killed | died, or failed (a training run that did not
    /// complete); empty when the service was never spawned.
    pub stop: Option<StopOutcome>,
    pub exit_status: String,
    // --- Millisecond startup and bounded logs (issue 12 parts 4, 8).
    // Defaulted: runs recorded before these columns still read. ---
    /// Spawn -> the port accepts a TCP connection (polled every 1 ms).
    #[serde(default)]
    pub port_ms: Option<f64>,
    /// Bytes of this start's log dropped between the kept head and tail
    /// (0: the whole log was kept).
    #[serde(default)]
    pub log_dropped_bytes: u64,
    /// The part of `idle_rss_bytes` held by a start shell (`sh -c`, kept
    /// when `start` uses shell syntax); empty when the server runs directly.
    #[serde(default)]
    pub shell_rss_bytes: Option<u64>,
}

/// measurements.csv: one row per cell x repeat, appended and flushed as each cell ends.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct MeasurementRow {
    pub cell_id: String,
    pub config_id: String,
    pub runtime: String,
    pub repeat: u32,
    /// All axes as `name=value` joined with `,`, in spec order.
    pub axes: String,
    /// Convenience copies of the standard axes (empty when not an axis).
    pub payload: Option<i64>,
    pub concurrency: Option<i64>,
    /// closed | open
    pub mode: LoopMode,
    /// Open loop: the requested rate.
    pub target_rps: Option<f64>,
    pub started_at: String,
    pub duration_s: f64,
    /// Requests answered with the expected status; `errors` counts the
    /// others, so every answer is `ok + errors`. The column is `requests`.
    #[serde(rename = "requests")]
    pub ok: u64,
    pub errors: u64,
    pub err_connect_refused: u64,
    pub err_connect_timeout: u64,
    pub err_request_timeout: u64,
    pub err_reset: u64,
    pub err_status: u64,
    /// Unexpected statuses, `code:count` joined with `;`.
    pub err_status_codes: String,
    pub err_malformed: u64,
    pub err_other: u64,
    /// Successful responses per second over the measured window.
    pub throughput_rps: f64,
    /// Latency in milliseconds; in open loop measured from intended send time.
    pub latency_mean_ms: f64,
    pub latency_p50_ms: f64,
    pub latency_p90_ms: f64,
    pub latency_p95_ms: f64,
    pub latency_p99_ms: f64,
    pub latency_p999_ms: f64,
    pub latency_max_ms: f64,
    /// Uncorrected service time (equal to the above in closed loop).
    pub service_p50_ms: f64,
    pub service_p99_ms: f64,
    /// CPU seconds (user + system) of the service's process tree during the measurement.
    pub service_cpu_s: Option<f64>,
    pub service_rss_mean_bytes: Option<u64>,
    pub service_rss_max_bytes: Option<u64>,
    pub service_threads_max: Option<u32>,
    /// The load generator's own CPU seconds and share of its CPU budget (0..1).
    pub gen_cpu_s: f64,
    pub gen_cpu_share: f64,
    /// ok | suspect | failed
    pub status: CellStatus,
    pub reason: String,
    // From the service's cgroup (docs/run-directory.md "Cgroup accounting"),
    // empty where the host gives the runner no cgroups.
    /// CPU seconds of the whole cgroup during the measurement, children that
    /// exited during it included.
    pub cgroup_cpu_s: Option<f64>,
    /// Mean and peak memory of the cgroup (v2 memory.current / memory.peak,
    /// v1 usage_in_bytes / max_usage_in_bytes reset at the cell start).
    pub cgroup_memory_mean_bytes: Option<u64>,
    pub cgroup_memory_peak_bytes: Option<u64>,
    /// Mean anonymous and file-backed (page cache) memory of the cgroup.
    pub cgroup_anon_mean_bytes: Option<u64>,
    pub cgroup_file_mean_bytes: Option<u64>,
    /// Most tasks (threads of every process) in the cgroup at a sample.
    pub cgroup_tasks_max: Option<u32>,
    /// PSS summed over the cgroup's processes (a page shared by n processes
    /// counts 1/n in each), beside `service_rss_*`, which counts it n times.
    pub service_pss_mean_bytes: Option<u64>,
    pub service_pss_max_bytes: Option<u64>,
    /// Most open file descriptors over the cgroup's processes at a sample.
    pub service_fds_max: Option<u32>,
    // --- Cell gates (issue 12 part 5): the figures the verdict judged.
    // Defaulted: runs recorded before these columns still read. ---
    /// errors / (requests + errors).
    #[serde(default)]
    pub error_rate: f64,
    /// Latency with every timed-out request counted at the latency it had
    /// when given up (about the timeout), beside the successes-only figures.
    #[serde(default)]
    pub latency_with_timeouts_p50_ms: f64,
    #[serde(default)]
    pub latency_with_timeouts_p99_ms: f64,
    #[serde(default)]
    pub latency_with_timeouts_p999_ms: f64,
    #[serde(default)]
    pub latency_with_timeouts_max_ms: f64,
    /// Measured requests still unanswered when the window closed.
    #[serde(default)]
    pub in_flight_at_end: u64,
    /// The generator threads' run-queue wait (schedstat), seconds summed
    /// over its threads, and that / (window x threads).
    #[serde(default)]
    pub gen_wait_s: f64,
    #[serde(default)]
    pub gen_wait_share: f64,
    /// Share of the host's CPU time that was idle during the window (/proc/stat).
    #[serde(default)]
    pub host_idle_share: Option<f64>,
    /// CPUs the service and the generator used together, and the host's CPUs.
    #[serde(default)]
    pub host_cpus_used: Option<f64>,
    #[serde(default)]
    pub host_cpus: u32,
    /// Closed loop: throughput (all answers) x mean latency, to set beside
    /// the connections (Little's law).
    #[serde(default)]
    pub littles_law_in_flight: Option<f64>,
    // Adaptive warmup (issue 11): how long the cell's warmup ran and why it
    // ended. Defaults for rows written before these columns existed.
    /// Seconds of cell warmup actually applied.
    #[serde(default)]
    pub warmup_s: f64,
    /// none | fixed | stable | max
    #[serde(default)]
    pub warmup_end: WarmupEnd,
    // --- Connections (issue 13 part 6): the connect phase before the
    // measured window and the memory each open connection cost, on the
    // service's side and the generator's. Defaulted: older runs still read.
    /// Connections open when the measured window started.
    #[serde(default)]
    pub connections_opened: Option<u64>,
    /// Seconds of the connect phase (paced, not measured) and the
    /// connections per second it achieved.
    #[serde(default)]
    pub connect_s: Option<f64>,
    #[serde(default)]
    pub connect_rate_achieved: Option<f64>,
    /// The service's idle RSS at this start (lifecycle.csv `idle_rss_bytes`).
    #[serde(default)]
    pub service_idle_rss_bytes: Option<u64>,
    /// (service_rss_max_bytes - service_idle_rss_bytes) / connections_opened.
    #[serde(default)]
    pub service_rss_per_connection_bytes: Option<f64>,
    /// The generator process's VmRSS before its connect phase and at the
    /// end of the window (every connection open), and its VmHWM.
    #[serde(default)]
    pub gen_rss_before_bytes: Option<u64>,
    #[serde(default)]
    pub gen_rss_bytes: Option<u64>,
    #[serde(default)]
    pub gen_peak_rss_bytes: Option<u64>,
    // Profiling (issue 18): whether this row is the extra, profiled repeat
    // (never in the headline statistics), and the GC pauses of the window
    // (JVM GC log or Go runtime statistics; empty where none were
    // collected) beside the tail: of the seconds whose p99 is among the
    // window's slowest tenth, the share that held a pause, and of all its
    // seconds. Defaults for rows written before these columns existed.
    #[serde(default)]
    pub profiled: bool,
    #[serde(default)]
    pub gc_pauses: Option<u64>,
    #[serde(default)]
    pub gc_pause_total_ms: Option<f64>,
    #[serde(default)]
    pub gc_pause_max_ms: Option<f64>,
    #[serde(default)]
    pub gc_pause_p99_ms: Option<f64>,
    #[serde(default)]
    pub gc_slow_seconds_paused: Option<f64>,
    #[serde(default)]
    pub gc_seconds_paused: Option<f64>,
    // The study's load shape (issue 15 part 4): the connection ramp before
    // the window (`load.ramp`), its length and the requests it sent, which
    // are in none of the window's figures. Empty without a ramp.
    #[serde(default)]
    pub ramp_s: Option<f64>,
    #[serde(default)]
    pub ramp_requests: Option<u64>,
    // Per-cell JDK (issue 15 part 3): the JDK the cell ran on, where the
    // runtime's `java.version` or start fields vary per cell (empty
    // otherwise: configurations.csv has the runtime's JDK). Defaulted:
    // older runs still read.
    /// The JDK home the cell's service ran on.
    #[serde(default)]
    pub jdk_home: String,
    /// Its `JAVA_VERSION` (from the JDK's `release` file), e.g. `25.0.1`.
    #[serde(default)]
    pub jdk_version: String,
    // Protocols (issue 29): what the cell's load spoke and what it
    // negotiated, and the failures only TLS and HTTP/2 have. Defaulted:
    // older runs (all plain HTTP/1.1 on kept connections) still read.
    /// `http1`, `https`, `h2` or `h2c` (the plan's name).
    #[serde(default)]
    pub protocol: String,
    /// HTTP/2: streams per connection (empty otherwise).
    #[serde(default)]
    pub streams: Option<u32>,
    /// `keep-alive`, or a new connection per request (with TLS resumption on or off).
    #[serde(default)]
    pub connection_reuse: String,
    /// What TLS negotiated (empty without TLS or without a handshake).
    #[serde(default)]
    pub tls_version: String,
    #[serde(default)]
    pub tls_cipher: String,
    /// The ALPN protocol the server chose (`h2`, `http/1.1`; empty: none).
    #[serde(default)]
    pub alpn: String,
    /// False when the spec said `tls.verify: false`; empty without TLS.
    #[serde(default)]
    pub tls_verified: Option<bool>,
    /// Handshakes of the whole load run (connect phase, warmup and window).
    #[serde(default)]
    pub handshakes_full: Option<u64>,
    #[serde(default)]
    pub handshakes_resumed: Option<u64>,
    #[serde(default)]
    pub err_tls_handshake: u64,
    #[serde(default)]
    pub err_alpn_refused: u64,
    #[serde(default)]
    pub err_h2_stream_reset: u64,
    #[serde(default)]
    pub err_h2_goaway: u64,
}

/// repeats.csv: one row per configuration, rewritten as its repeats are
/// recorded: how many it got and why no more (adaptive repeats stop
/// when the interval is narrow enough).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RepeatsRow {
    pub config_id: String,
    pub runtime: String,
    /// Repeats measured (cells recorded, any status).
    pub repeats: u32,
    /// Of those, `ok` or `suspect`: the ones the interval is built from.
    pub usable: u32,
    /// The policy's bounds (`min == max` for a fixed count).
    pub min: u32,
    pub max: u32,
    /// The target half-width (a fraction, 0.03 = 3%); empty for a fixed count.
    pub target_ci: Option<f64>,
    /// Geometric mean of the usable repeats' throughput (req/s).
    pub throughput_rps: Option<f64>,
    /// Half-width of its 95% interval, relative to it (0.021 = +-2.1%);
    /// empty with fewer than 2 usable repeats.
    pub half_width: Option<f64>,
    /// fixed | target | max | decided | interrupted | skipped
    pub stop: RepeatsStop,
    /// `decided` for `repeats: { until: decided }` (what the report needs
    /// to know how many looks its intervals must hold over); empty otherwise
    /// and in runs from before the column.
    #[serde(default)]
    pub until: Option<RepeatsUntil>,
}

/// timelines/<cell>.csv: one row per second of the measurement.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct TimelineRow {
    /// Seconds since the measurement started (0-based).
    pub second: u32,
    /// Successful answers in this second (column `requests`); errors not included.
    #[serde(rename = "requests")]
    pub ok: u64,
    pub errors: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
}

/// samples/<cell>.csv: one row per resource sample of the service's process tree.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct SampleRow {
    /// Seconds since the cell's measurement started.
    pub t_s: f64,
    pub rss_bytes: u64,
    /// Cumulative CPU seconds of the tree since the service started.
    pub cpu_user_s: f64,
    pub cpu_system_s: f64,
    pub threads: u32,
    pub processes: u32,
    // From the service's cgroup, empty where the host gives the runner none
    // (and, for pss_bytes and fds, at samples between per-process reads).
    /// Cumulative CPU seconds of the cgroup since the service started.
    pub cgroup_cpu_s: Option<f64>,
    pub cgroup_memory_bytes: Option<u64>,
    pub cgroup_anon_bytes: Option<u64>,
    pub cgroup_file_bytes: Option<u64>,
    pub cgroup_tasks: Option<u32>,
    pub pss_bytes: Option<u64>,
    pub fds: Option<u32>,
}
