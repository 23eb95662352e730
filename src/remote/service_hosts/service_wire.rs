//! The service host's calls on the `runner remote` wire: build a runtime
//! from the sources copied there, start its service, health-check it, read
//! its usage and samples, stop it. Plain fields only (the plan's own types
//! stay this side): the far side rebuilds its `ServiceCommand`, `HealthPlan`
//! and `StopPlan` from them.
use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::dependency::DependencyReading;
use crate::plan::DependencyPlan;
use crate::remote::wire::WireLoadConfig;
use crate::results::StopOutcome;
use crate::results::rows::training::{DriverFigures, FileHash};
use crate::sample::host_cpu::HostWindow;
use crate::sample::{MemoryReading, SamplerOutput};
use crate::service::StopKind;
use crate::train::TrainJob;

/// A call to the service host (the `call` of `{"op":"service",...}`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "call", rename_all = "snake_case")]
pub enum ServiceCall {
    /// Runs the build commands in `dir` (copied there before), unless the
    /// inputs hash as the last successful build there. The log comes back
    /// as `log` answers while it runs.
    Build(Box<WireBuild>),
    /// Starts the service and waits until its health check answers 200.
    Start(Box<WireStart>),
    /// Whether the service still runs (its session or cgroup has a process).
    Alive,
    /// One health check, retried for up to `within_ms`.
    StillHealthy { within_ms: u64 },
    /// RSS of the service's processes now.
    Usage,
    /// The memory phases' reading of the service now: RSS and PSS summed
    /// over its processes, its cgroup's memory.
    Memory,
    /// Starts sampling the service every `interval_ms`, and the named
    /// dependencies (those up) with it.
    SampleStart {
        interval_ms: u64,
        #[serde(default)]
        dependencies: Vec<String>,
    },
    /// Stops sampling; the rows come back.
    SampleStop,
    /// The service log (a dependency's, when named) from byte `from` on
    /// (at most [`LOG_CHUNK`] bytes).
    LogFrom {
        from: u64,
        #[serde(default)]
        dependency: Option<String>,
    },
    /// Starts a dependency there with the same code as a local run
    /// (build once, scratch, setup, server, readiness, seed).
    DependencyStart(Box<WireDependency>),
    /// Runs the dependency's reset command.
    DependencyReset { name: String },
    /// Whether the dependency still runs.
    DependencyCheck { name: String },
    /// Stops it with grace and removes its scratch folder.
    DependencyStop { name: String },
    /// Trains a runtime there with the same code as a training here
    /// (`train::run_job`); the training load goes from that host to its own
    /// loopback (a training is not measured), its log comes back as `log`
    /// answers while it runs, and the inputs and products are hashed there.
    Train(Box<WireTrain>),
    /// Before a measured start of a trained runtime: hashes its inputs and
    /// products there and runs its `train.probe`, if any.
    TrainCheck(Box<WireTrainCheck>),
    /// Stops the service: `signal` to its group and cgroup, `grace`, then SIGKILL.
    Stop {
        signal: i32,
        signal_name: String,
        grace_ms: u64,
    },
}

/// Bytes of a log sent in one answer (a longer log comes in several).
pub const LOG_CHUNK: usize = 256 * 1024;

/// What a build needs on the far side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireBuild {
    pub runtime: String,
    /// The copied sources (relative: to the login's home).
    pub dir: String,
    pub commands: Vec<String>,
    /// The runtime's environment (hashed with the sources, as locally).
    pub env: BTreeMap<String, String>,
    /// The runtime's `pass_env:`: names the far side passes from its own
    /// session's environment, beside the documented list
    /// (`process::env::command_env`, applied there).
    #[serde(default)]
    pub pass_env: Vec<String>,
    /// The build's output, relative to `dir`, checked and sized after the build.
    pub artifact: Option<String>,
    /// Where the far side keeps its build cache and logs (relative: to home).
    pub state_dir: String,
}

/// A dependency's start on the far side: its plan as this side made it,
/// with `dir` replaced by the copy of its sources there.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WireDependency {
    pub plan: DependencyPlan,
    /// The copied sources (relative: to the login's home). Every mention of
    /// the plan's own `dir` in its commands and environment (a schema file
    /// under it) is made to point into this copy.
    pub dir: String,
    pub state_dir: String,
}

/// What a start needs on the far side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireStart {
    pub runtime: String,
    pub dir: String,
    pub command: String,
    /// The runtime's declared environment; the far side adds its own
    /// session's passed variables (`process::env::command_env`), as a
    /// start here adds this host's.
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub pass_env: Vec<String>,
    pub port: u16,
    pub limit_cpus: Option<f64>,
    pub limit_memory_bytes: Option<u64>,
    pub log_cap: u64,
    pub health: crate::plan::HealthPlan,
    /// The start's scratch folder and rendered `files:`, made there.
    #[serde(default)]
    pub scratch: Option<crate::plan::ScratchPlan>,
    /// A TLS start's certificate files, written into that scratch folder
    /// there (the key crosses only inside the SSH session).
    #[serde(default)]
    pub tls: Option<crate::certs::ServerFiles>,
    pub state_dir: String,
}

/// A training on the far side.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WireTrain {
    /// `dir` and `produces` relative to the login's home (the copy there).
    pub job: TrainJob,
    /// The training load; its target is the training service's own address there.
    pub load: WireLoadConfig,
    /// `train.inputs` there, hashed after the training.
    pub inputs: Vec<String>,
    pub state_dir: String,
}

/// What the check before a measured start hashes and runs there.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WireTrainCheck {
    pub runtime: String,
    pub dir: String,
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub pass_env: Vec<String>,
    pub inputs: Vec<String>,
    pub produces: Vec<String>,
    pub probe: Option<String>,
    /// The probe's bound (the runtime's health timeout).
    pub probe_within_ms: u64,
    pub state_dir: String,
}

/// An answer of the service host (the `answer` of `{"op":"service",...}`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum ServiceAnswer {
    /// Part of a log (a build's, while it runs; a service's, when asked).
    Log {
        text: String,
        next: u64,
    },
    Built {
        cached: bool,
        seconds: f64,
        input_hash: String,
        artifact_bytes: Option<u64>,
    },
    /// The service is up. `pid`/`sid` are its start shell's on the far
    /// side, `cgroup` its cgroup folder there (if any): what the test
    /// checks after a lost connection.
    Started {
        pid: i32,
        sid: i32,
        cgroup: Option<String>,
        /// `None`: a health command, which does not wait for the port.
        port_ms: Option<f64>,
        startup_ms: f64,
    },
    Alive {
        alive: bool,
        exit: String,
    },
    Healthy {
        why_not: Option<String>,
    },
    Usage {
        rss_bytes: u64,
    },
    Memory {
        reading: MemoryReading,
    },
    Sampling,
    Samples {
        /// `rows`, `own_cpu_s`, `session_vanished`, `cgroup_peak_bytes`.
        #[serde(flatten)]
        samples: SamplerOutput,
        /// The service host's CPU counters from `sample_start` to
        /// `sample_stop`: its idle share over the window.
        #[serde(default)]
        host: Option<HostWindow>,
        /// The dependencies sampled with it, and their stats.
        #[serde(default)]
        dependencies: Vec<DependencyReading>,
    },
    /// A training ended well: its start, its stop, the load's figures and
    /// the hashes taken there right after.
    Trained {
        startup_ms: f64,
        kind: WireStopKind,
        exit_status: String,
        log_dropped_bytes: u64,
        driver: DriverFigures,
        inputs: Vec<FileHash>,
        produced: Vec<FileHash>,
    },
    /// The hashes now (or why they could not be taken) and the probe's problem.
    TrainChecked {
        inputs: Result<Vec<FileHash>, String>,
        produced: Result<Vec<FileHash>, String>,
        probe_problem: Option<String>,
    },
    /// A dependency call went through (`problem`: a stop's, if any).
    Dependency {
        problem: Option<String>,
    },
    Stopped {
        kind: WireStopKind,
        exit_status: String,
        log_dropped_bytes: u64,
    },
    /// The call failed; `message` says what, where and what to do.
    Failed {
        message: String,
    },
}

impl ServiceAnswer {
    /// Its name on the wire (`started`, `usage`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            ServiceAnswer::Log { .. } => "log",
            ServiceAnswer::Built { .. } => "built",
            ServiceAnswer::Started { .. } => "started",
            ServiceAnswer::Alive { .. } => "alive",
            ServiceAnswer::Healthy { .. } => "healthy",
            ServiceAnswer::Usage { .. } => "usage",
            ServiceAnswer::Memory { .. } => "memory",
            ServiceAnswer::Sampling => "sampling",
            ServiceAnswer::Samples { .. } => "samples",
            ServiceAnswer::Trained { .. } => "trained",
            ServiceAnswer::TrainChecked { .. } => "train_checked",
            ServiceAnswer::Dependency { .. } => "dependency",
            ServiceAnswer::Stopped { .. } => "stopped",
            ServiceAnswer::Failed { .. } => "failed",
        }
    }

    /// Words for an answer that does not fit the call `to` (e.g. "a
    /// start"): the two runners speak different protocols. Said without the
    /// answer's internals (its name only).
    pub fn unexpected(&self, to: &str) -> String {
        format!(
            "the service host answered `{}` to {to}, which this runner does not expect: \
             the runner there is not this build (runner copies itself there when a run \
             starts; rerun, and check that nothing else replaced it)",
            self.name()
        )
    }
}

/// How the service ended (`service::StopKind` on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireStopKind {
    Graceful,
    Killed,
    Died,
}

impl From<StopKind> for WireStopKind {
    fn from(kind: StopKind) -> Self {
        match kind {
            StopKind::Graceful => WireStopKind::Graceful,
            StopKind::Killed => WireStopKind::Killed,
            StopKind::Died => WireStopKind::Died,
        }
    }
}

impl From<WireStopKind> for StopOutcome {
    fn from(kind: WireStopKind) -> Self {
        match kind {
            WireStopKind::Graceful => StopOutcome::Graceful,
            WireStopKind::Killed => StopOutcome::Killed,
            WireStopKind::Died => StopOutcome::Died,
        }
    }
}

pub fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A protocol mismatch is said by the answer's wire name, never by its
    /// fields (a Debug print of them reached users before).
    #[test]
    fn an_unexpected_answer_is_named_not_printed() {
        let answer = ServiceAnswer::Usage { rss_bytes: 123_456 };
        let text = answer.unexpected("a start");
        assert!(
            text.starts_with("the service host answered `usage` to a start"),
            "{text}"
        );
        assert!(!text.contains("123456") && !text.contains('{'), "{text}");
    }
}
