//! profiles.csv and profiles/: what the profiled repeats collected (GC logs,
//! JFR recordings, pprof profiles, folded stacks, flame graphs), one row per
//! file, so `runner report` links them from the run directory alone.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Folder of the profiling artifacts.
pub const PROFILES_DIR: &str = "profiles";
/// One row per artifact (or per collector that produced none, saying why).
pub const PROFILES_FILE: &str = "profiles.csv";
/// The largest artifact kept: a JFR recording or GC log is bounded at the
/// source (JFR `maxsize`, `-Xlog` file size and count), a folded-stack or
/// flame-graph file is refused above it.
pub const MAX_ARTIFACT_BYTES: u64 = 64 << 20;

/// One thing a profiled runtime collects.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Collector {
    /// JVM unified GC log (`-Xlog:gc*`), one file per start; its pauses go
    /// into every cell's row, not only the profiled one's.
    GcLog,
    /// Java Flight Recorder over the profiled window (`jcmd JFR.start/stop`).
    Jfr,
    /// async-profiler CPU samples over the profiled window, as a flame graph.
    AsyncCpu,
    /// async-profiler allocation samples over the profiled window, as a flame graph.
    AsyncAlloc,
    /// Go CPU pprof over the profiled window (`/debug/pprof/profile`).
    PprofCpu,
    /// Go heap allocations over the profiled window (`/debug/pprof/heap?seconds=`).
    PprofHeap,
    /// Go GC pauses from the runtime's statistics, for every cell.
    GoGc,
    /// Linux `perf record` of the service's processes over the profiled window.
    Perf,
}

impl Collector {
    /// The name used in the spec, profiles.csv and the report.
    pub fn as_str(self) -> &'static str {
        match self {
            Collector::GcLog => "gc_log",
            Collector::Jfr => "jfr",
            Collector::AsyncCpu => "async_cpu",
            Collector::AsyncAlloc => "async_alloc",
            Collector::PprofCpu => "pprof_cpu",
            Collector::PprofHeap => "pprof_heap",
            Collector::GoGc => "go_gc",
            Collector::Perf => "perf",
        }
    }

    /// Collected during the profiled repeat only (the rest run on every start).
    pub fn window_only(self) -> bool {
        !matches!(self, Collector::GcLog | Collector::GoGc)
    }
}

/// What an artifact is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactKind {
    /// The collector's own file (GC log, .jfr, .pb.gz, perf script text).
    Raw,
    /// Folded stacks (`frame;frame;frame count`), the flame graph's input.
    Folded,
    /// A self-contained SVG flame graph.
    FlameGraph,
}

/// Whether a collector produced its artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactState {
    Ok,
    /// The collector ran and failed (`note` says how).
    Failed,
    /// The host or runtime cannot give it (`note` says why), e.g. perf
    /// forbidden by `kernel.perf_event_paranoid`.
    Unavailable,
}

/// One row of profiles.csv.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileRow {
    pub cell_id: String,
    pub runtime: String,
    pub collector: Collector,
    pub kind: ArtifactKind,
    pub state: ArtifactState,
    /// Relative to the run directory; empty when nothing was written.
    pub file: String,
    pub bytes: u64,
    /// What went wrong, or what the file holds (e.g. `cpu samples: 1234`).
    pub note: String,
}
