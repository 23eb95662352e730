//! What the executor tells the outside world while it runs. The executor
//! only sends events; [`crate::exec::progress`] decides how to show them.
use std::path::PathBuf;
use std::time::Duration;

use crate::results::{CellStatus, RepeatsStop, RunState};

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    RunStarted {
        run_dir: PathBuf,
        cells_total: u64,
        /// With adaptive repeats: the cells if every configuration stops at
        /// its `min` (`cells_total` is every one at `max`).
        cells_least: Option<u64>,
        /// Cells already recorded (resumed run).
        cells_done: u64,
        quick_factor: Option<u32>,
        /// `--repeats N`.
        repeats_cap: Option<u32>,
        /// The plan's wall-time estimate of the whole run (`runner plan`'s
        /// figure): what the live line's time left starts from.
        estimated: Duration,
    },
    BuildStarted {
        runtime: String,
    },
    BuildFinished {
        runtime: String,
        cached: bool,
        seconds: f64,
    },
    TrainStarted {
        runtime: String,
    },
    TrainFinished {
        runtime: String,
        seconds: f64,
    },
    ServiceStarted {
        runtime: String,
        startup_ms: f64,
    },
    /// A cold start measured for its times (`startup.repeats`); `None`: it failed.
    ColdStart {
        runtime: String,
        index: u32,
        of: u32,
        healthy_ms: Option<f64>,
    },
    RuntimeSkipped {
        runtime: String,
        reason: String,
    },
    /// A dependency changed state (started, reset or stopped; `problem`:
    /// what went wrong at its stop).
    Dependency {
        name: String,
        step: DependencyStep,
        /// How long the step took (start: to ready and seeded).
        seconds: f64,
        problem: Option<String>,
    },
    /// A fresh process of the memory phases went through them (or failed).
    MemoryPhase {
        runtime: String,
        index: u32,
        of: u32,
        idle_bytes: Option<u64>,
        after_bytes: Option<u64>,
        failed: Option<String>,
    },
    CellStarted {
        index: u64,
        total: u64,
        cell_id: String,
        runtime: String,
        /// Warmup + measurement, when known (for the ETA).
        expected: Option<Duration>,
    },
    /// About once a second during a measurement.
    CellProgress {
        completed: u64,
        rps: f64,
    },
    CellFinished {
        cell_id: String,
        status: CellStatus,
        throughput_rps: f64,
        p99_ms: f64,
        reason: String,
    },
    /// A configuration gets no more repeats (adaptive repeats: its interval
    /// is narrow enough, or `max` was reached); `dropped` of its planned
    /// cells will not run.
    RepeatsStopped {
        config_id: String,
        stop: RepeatsStop,
        repeats: u32,
        half_width: Option<f64>,
        dropped: u64,
    },
    RunFinished {
        state: RunState,
        run_dir: PathBuf,
        message: Option<String>,
    },
}

/// What happened to a dependency (see [`Event::Dependency`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DependencyStep {
    Started,
    Reset,
    Stopped,
}

impl DependencyStep {
    pub fn as_str(self) -> &'static str {
        match self {
            DependencyStep::Started => "started",
            DependencyStep::Reset => "reset",
            DependencyStep::Stopped => "stopped",
        }
    }
}
