//! The Plan: the fully resolved, typed output of the `plan` stage.
//!
//! Everything downstream (build, train, service, load, exec) reads only these
//! types, never the raw spec: every template is already rendered, every
//! duration already parsed, every path already absolute. That keeps the later
//! stages free of YAML and templating concerns, and lets `runner plan` print
//! exactly what `runner exec` will do.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use crate::plan::contract::ready_stop::HealthPlan;
use crate::plan::contract::ready_stop::StopPlan;
use crate::spec::values::AxisValue;

/// One experiment, expanded.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub experiment: ExperimentInfo,
    /// The spec file this plan came from.
    pub spec_path: PathBuf,
    /// sha256 (hex) of the spec file's bytes: the resume and compare guard.
    pub spec_hash: String,
    /// The runtimes, in spec order. Cells refer to them by name.
    pub runtimes: Vec<RuntimePlan>,
    /// Every cell, in execution order (already arranged for `order`).
    pub cells: Vec<Cell>,
    pub order: Order,
    /// The spec-wide repeats every configuration gets: a fixed count, or
    /// the `min` of adaptive repeats (each runtime's policy is its `repeats`).
    pub repeats: u32,
    /// Run once after each service start, before its first cell.
    pub service_warmup: Duration,
    /// How often the service's process tree is sampled.
    pub sample_interval: Duration,
    pub affinity: Option<Affinity>,
    /// `<results dir>/<experiment name>`; the run id is added by exec.
    pub results_dir: PathBuf,
    /// Candidates judged against a control measured in this run
    /// (`controls:`), in spec order; empty: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controls: Vec<ControlPlan>,
    /// Report templates (absolute paths); empty = the built-in defaults.
    pub report_templates: Vec<PathBuf>,
    /// Metric names requested by the spec (informational for reports).
    pub metrics: Vec<String>,
    /// How many times a runtime whose service died is restarted before it is skipped.
    pub max_restarts: u32,
    /// Set by `--quick`: every duration was divided by this factor.
    pub quick_factor: Option<u32>,
    /// Set by `--repeats`: no configuration, cold start or memory phase was
    /// planned more repeats than this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeats_cap: Option<u32>,
    /// Requests `runner verify` sends to every runtime, comparing answers.
    pub verify: Vec<VerifyPlan>,
    /// Thresholds by which a cell is judged (the spec's `gates:`).
    pub gates: crate::plan::contract::gates::Gates,
    /// The services the run starts for its runtimes, in spec order.
    pub dependencies: Vec<crate::plan::DependencyPlan>,
    /// The `version:` commands of runtimes and dependencies, run before the
    /// builds (environment.json's `versions`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<crate::plan::contract::version_plan::VersionPlan>,
    /// `sample.during_measure`: false leaves a measured window unsampled
    /// (one reading at its start, one at its end).
    pub sample_during_measure: bool,
    /// `memory:`: memory phases on fresh processes, after the cells.
    pub memory: Option<crate::plan::contract::memory::MemoryPlan>,
    /// Where the services and the load generator run (the spec's `hosts:`).
    pub hosts: crate::plan::contract::hosts::Hosts,
    /// The spec's `scenarios:`, in spec order (empty: none); a cell's is
    /// its `scenario` axis value ([`Plan::needs_of`] reads their `needs`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scenarios: Vec<crate::plan::contract::scenarios::ScenarioPlan>,
    /// Cells planned but not run: the JDK they resolve to is older than
    /// their runtime's `java.min`, or not installed ([`crate::plan::steps::variant`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_cells: Vec<crate::results::SkippedCell>,
}

/// One `verify` request: sent to every runtime, the answers compared.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyPlan {
    pub name: String,
    pub method: String,
    pub path: String,
    pub expect_status: u16,
    /// JSON field names of the answer that must be equal across runtimes.
    pub compare: Vec<String>,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
    /// From a vectors file: every member of the case's `response`, whose
    /// value the answer must equal (and so every runtime's the same).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<ExpectedField>,
    /// A workload request's content checks (`expect: { min_bytes, ... }`):
    /// verify sends each workload request that has some
    /// (`crate::verify::workload`); `None` for the spec's `verify:` requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<crate::load::http::expect::AnswerExpect>,
}

/// One member of a vectors case's expected `response`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpectedField {
    /// The member's name: a dotted path of one step into the answer.
    pub path: String,
    pub value: serde_json::Value,
}

#[derive(Debug, Clone, Serialize)]
pub struct ExperimentInfo {
    /// A safe file name (validated): used in the results path.
    pub name: String,
    pub title: String,
    pub description: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// All cells and repeats of one runtime, then the next runtime.
    Sequential,
    /// Repeat 1 of every runtime, then repeat 2, ...
    Interleaved,
    /// Interleaved, every other round in the reverse runtime order (A B, B
    /// A, A B, ...): a spec with `controls:`, so that a trend over the
    /// night reaches each candidate and its control alike instead of always
    /// the one measured first in a round.
    Alternating,
}

/// When a runtime's service is started anew, beyond the starts every
/// policy has: the first cell of a run of consecutive cells of the runtime,
/// and the cell after a death. [`crate::plan::steps::restart::needs_fresh_start`] is the
/// one place that applies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Restart {
    /// One start per run of consecutive cells of the runtime (with
    /// `sequential` order: one start for the whole run).
    Run,
    /// A fresh start for every repeat; the cells of one repeat share it.
    Repeat,
    /// A fresh start for every cell.
    Cell,
}

/// CPU pinning: CPU indices for the service's process group and the load generator.
#[derive(Debug, Clone, Serialize)]
pub struct Affinity {
    pub service: Vec<usize>,
    pub load: Vec<usize>,
    /// Whether the spec wrote these CPUs or the plan chose them (`plan::pinning`).
    pub source: AffinitySource,
}

/// Who chose a run's CPU pinning (recorded in plan.json, shown in reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AffinitySource {
    /// `affinity: { service: [...], load: [...] }` in the spec.
    Spec,
    /// Left out of the spec on a host with enough CPUs: disjoint CPUs chosen by the plan.
    Default,
}

/// One runtime, with every template rendered.
#[derive(Debug, Clone, Serialize)]
pub struct RuntimePlan {
    pub name: String,
    /// Absolute working directory for build, train and start commands.
    pub dir: PathBuf,
    /// Shell commands (`sh -c`), run in order in `dir`.
    pub build: Vec<String>,
    /// Shell command that starts the service in the foreground.
    pub start: String,
    /// The full environment added for this runtime: spec-wide env merged with
    /// the runtime's own (runtime wins), plus `PORT`.
    pub env: BTreeMap<String, String>,
    /// The caller's variables passed by name beyond the documented few
    /// (`pass_env:`; `process::env::PASSED` lists those): names only, the
    /// values are read when a command is spawned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pass_env: Vec<String>,
    pub jvm_flags: Vec<String>,
    pub java: Option<JavaPlan>,
    /// The port the service listens on (fixed in the spec, or chosen free at plan time).
    pub port: u16,
    /// Its starts' scratch folder and `files:` (`None`: it declares no
    /// files and names no `{{ scratch }}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scratch: Option<crate::plan::contract::scratch_plan::ScratchPlan>,
    /// When its service is started anew (the runtime's `lifecycle`, else the spec's).
    pub restart: Restart,
    /// How many repeats its configurations get (its own `repeats`, else the spec's).
    pub repeats: crate::plan::RepeatPolicy,
    pub health: HealthPlan,
    pub stop: StopPlan,
    pub train: Option<TrainPlan>,
    pub tags: Vec<String>,
    /// The build's output (absolute), e.g. `build/server` or
    /// `target/service.jar`: its size (a directory's total) is recorded as
    /// the artifact size. `None`: no size is recorded.
    pub artifact: Option<PathBuf>,
    /// What ships (absolute): `deployable`, else the artifact. Their total
    /// size is the deployable size (configurations.csv).
    pub deployable: Vec<PathBuf>,
    /// Programs this runtime needs on PATH (first word of build/start/after
    /// commands, e.g. `go`, `mvn`, `node`, `cargo`): checked by preflight.
    pub tools: Vec<String>,
    /// Cold starts measured before its cells (`startup.repeats`).
    pub startup_repeats: u32,
    /// Bytes kept of the head and of the tail of each of its service and
    /// training logs, per start (`logs.cap`).
    pub log_cap_bytes: u64,
    /// The dependencies it needs (its `needs`, else every one), in spec order.
    pub needs: Vec<String>,
    /// The protocols its server offers (`protocols`, default plain
    /// HTTP/1.1 alone, then left out of plan.json).
    #[serde(skip_serializing_if = "crate::plan::contract::protocol_plan::only_http1")]
    pub protocols: Vec<crate::plan::contract::protocol_plan::Protocol>,
    /// What its `profile:` collects (`None`: not profiled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::plan::contract::profile_plan::ProfilePlan>,
    /// The first workload requests timed one by one on each fresh start
    /// (`startup.first_requests`; 0: none), into first-requests.csv.
    pub first_requests: u32,
    /// Its sources taken from a git revision (`source: { git: REV }`):
    /// `dir` is then inside the exported tree. `None`: `dir` as on disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourcePlan>,
}

/// A runtime built from a git revision: what was asked, what it resolved
/// to, and where runner exported it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourcePlan {
    /// The revision the spec names, e.g. `v1.4.0`.
    pub git: String,
    /// The work tree it was resolved in (the one holding the spec's `dir`).
    pub repository: PathBuf,
    /// The commit it resolved to, with its describe and subject.
    pub commit: crate::results::provenance::GitSource,
    /// The exported tree (`<results>/<experiment>/.sources/<commit>`),
    /// shared by every runtime and run at that commit.
    pub export: PathBuf,
}

/// A candidate runtime and the control it is judged against (`controls:`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ControlPlan {
    pub candidate: String,
    pub control: String,
}

/// The JDK a runtime asked for and where it was found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JavaPlan {
    /// What the spec asked for, e.g. "25", or an explicit home.
    pub requested: String,
    /// The JDK home found for it; `None` when no installed JDK matches
    /// (preflight reports it and the runtime is skipped).
    pub home: Option<PathBuf>,
    /// The version found there (from its `release` file), if any.
    pub version: Option<String>,
}

/// A training phase: start the service differently, drive load, stop it,
/// run follow-up commands, check the files it must produce. Generic on
/// purpose: the Leyden AOT cache (record/create) and Go PGO (profile, rebuild)
/// are both this shape.
#[derive(Debug, Clone, Serialize)]
pub struct TrainPlan {
    /// The start command used while training.
    pub start: String,
    /// Extra env for the training run (merged over the runtime's env).
    pub env: BTreeMap<String, String>,
    /// The requests driven against the training service.
    pub requests: Vec<RequestPlan>,
    /// Closed-loop connections while training.
    pub connections: u32,
    pub duration: Duration,
    /// Shell commands run in `dir` after the training service stopped.
    pub after: Vec<String>,
    /// Files (absolute) that must exist and be non-empty afterwards.
    pub produces: Vec<PathBuf>,
    /// A regular expression that must match a line of the service log of
    /// every measured start: the proof that the trained artifact was used
    /// (e.g. `-Xlog:aot` output for a Leyden cache). `None`: not checked.
    pub evidence: Option<String>,
    // Training provenance (docs/run-directory.md, training/<runtime>.json).
    /// Files or folders (absolute) the artifact is trained from: hashed after
    /// training and before every measured start (default: the runtime's `artifact`).
    pub inputs: Vec<PathBuf>,
    /// Shell command run in `dir` before every measured start; must exit 0.
    pub probe: Option<String>,
}

/// One measured unit: a runtime at one point of the axes, one repeat.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// Stable, readable id: `jdk-jvm/payload=128/concurrency=12/r2`.
    pub id: String,
    /// The id without the repeat: `jdk-jvm/payload=128/concurrency=12`.
    /// Repeats of one configuration share it; reports group by it.
    pub config_id: String,
    pub runtime: String,
    /// Axis values in spec order.
    pub axes: Vec<(String, AxisValue)>,
    /// 1-based.
    pub repeat: u32,
    /// The workload, rendered for this cell (round-robin over the list, or
    /// drawn by `weight`; `seq`/`rand` left as placeholders, see plan::dynamic).
    pub requests: Vec<RequestPlan>,
    pub load: LoadPlan,
    /// Load applied before measuring, not recorded.
    pub warmup: crate::plan::CellWarmup,
    pub measure: Measure,
    /// The runtime's `limits` rendered for this cell (empty: none).
    pub limits: crate::cgroup::Limits,
    /// An `equal_load` cell: its open-loop rate is derived by exec from the
    /// closed-loop pass (`load.mode` holds rate 0 until then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub derived_rate: Option<DerivedRate>,
    /// The extra, profiled repeat (`profile:`): collectors attached, never
    /// in the headline statistics.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub profiled: bool,
    /// The runtime's start fields resolved for this cell, when they use an
    /// axis (`None`: the runtime's own apply; see [`crate::plan::steps::variant`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<crate::plan::contract::start_variant::StartVariant>,
}

/// Where an `equal_load` cell's rate comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DerivedRate {
    /// The fraction of the slowest runtime's closed-loop peak.
    pub of_peak: f64,
    /// The group of closed-loop cells whose peaks it is derived from: the
    /// axes other than concurrency, as `name=value` joined with `,`
    /// (`results::derived_rates::group_of`).
    pub group: String,
}

/// One HTTP request of the workload, fully rendered.
#[derive(Debug, Clone, Serialize)]
pub struct RequestPlan {
    pub name: String,
    /// Upper-case HTTP method, validated.
    pub method: String,
    /// Path and query, starting with `/`.
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
    /// Expected status; any other status counts as an error of class `status`.
    pub expect_status: u16,
    /// What else a correct answer has (`expect: { min_bytes, max_bytes,
    /// body_contains, header }`), rendered for the cell: checked on a
    /// sample of the cell warmup's answers and by `runner verify`, never in
    /// the measured window (empty: only the status).
    #[serde(skip_serializing_if = "crate::load::http::expect::AnswerExpect::is_empty")]
    pub expect: crate::load::http::expect::AnswerExpect,
    /// Relative share of the requests sent (None: unweighted, round-robin).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
}

/// How load is applied in one cell.
#[derive(Debug, Clone, Serialize)]
pub struct LoadPlan {
    pub mode: LoadMode,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Load generator threads (default: 1, or the `load` affinity's CPU count).
    pub threads: u32,
    /// Seed of the weighted request draw (`load.seed`, default 1).
    pub seed: u64,
    /// Connections opened per second before each load run (`load.connect_rate`).
    pub connect_rate: f64,
    /// Closed loop: the connections join one by one over this long before
    /// each window, not measured (`load.ramp`; zero: none).
    pub ramp: Duration,
    /// What the requests ride on (`load.protocol` and its companions);
    /// left out of plan.json when plain HTTP/1.1 on kept connections.
    #[serde(
        rename = "protocol",
        skip_serializing_if = "crate::plan::contract::protocol_plan::ProtocolPlan::is_plain"
    )]
    pub transport: crate::plan::contract::protocol_plan::ProtocolPlan,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "mode", rename_all = "lowercase")]
pub enum LoadMode {
    /// `connections` connections, each sends its next request when the previous answer is read.
    Closed { connections: u32 },
    /// A constant `rate` (req/s) over `connections` connections, latency
    /// measured from each request's intended send time.
    Open { rate: f64, connections: u32 },
    /// Open-loop steps searching the highest rate that holds the SLO.
    Search(crate::plan::contract::search::SearchPlan),
}

/// When a measurement ends.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    Duration(Duration),
    Requests(u64),
}

/// A search cell's `measure`: its longest search, so that the plan's
/// estimate and the progress line count it at its upper bound (the spec's
/// `measure` does not apply to search cells). `None` for other modes.
pub fn measure_of(mode: &LoadMode) -> Option<Measure> {
    match mode {
        LoadMode::Search(s) => Some(Measure::Duration(s.longest())),
        _ => None,
    }
}
