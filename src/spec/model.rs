//! The typed spec: what a user writes in an experiment YAML file.
//!
//! These types mirror the file one to one (`deny_unknown_fields` everywhere,
//! so a typo is an error, not a silently ignored key). They carry no
//! positions: errors find their `file:line:col` from the field path in the
//! loose tree (see [`crate::spec::tree`]). Everything that needs the whole
//! spec to check (templates, `extends`, axes) is done in
//! [`crate::spec::validate`] and [`crate::plan`].
//!
//! The JSON Schema printed by `runner schema` is derived from these types, so
//! the doc comments here are what editors show as hover help.
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::spec::keys::adaptive::{CellWarmupSpec, RepeatsSpec};
use crate::spec::keys::affinity::AffinitySetting;
use crate::spec::keys::byte_size::ByteSize;
use crate::spec::keys::gates::GatesSpec;
use crate::spec::keys::hosts::HostsSpec;
use crate::spec::keys::profile::ProfileSpec;
use crate::spec::values::{AxisValue, HumanDuration, NumberOrTemplate, PortSpec, Workload};

/// A benchmark experiment: what to compare, how to start it, which load to apply.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with the spec's sections (experiment, runtimes, workload, ...)"
)]
pub struct Spec {
    pub experiment: Experiment,
    /// Environment variables given to every runtime (a runtime's own `env` wins).
    #[serde(default)]
    #[schemars(with = "IndexMap<String, crate::spec::values::EnvValue>")]
    pub env: IndexMap<String, String>,
    /// The services under test, by name, in the order they run.
    #[schemars(extend("minProperties" = 1))]
    pub runtimes: IndexMap<String, RuntimeSpec>,
    /// Services the run starts for the runtimes (a database, a downstream
    /// stub), by name: started before the first runtime that `needs` them,
    /// stopped after the last.
    #[serde(default)]
    pub dependencies: IndexMap<String, crate::spec::keys::dependencies::DependencySpec>,
    /// The request, or the list of named requests (sent round-robin), of every
    /// cell; with `scenarios`, of every scenario that has no `workload` of its own.
    pub workload: Option<Workload>,
    /// Named lists of values; the matrix is their cartesian product.
    /// `payload` and `concurrency` are standard; any other name is usable in templates.
    #[serde(default)]
    pub axes: IndexMap<String, Vec<AxisValue>>,
    #[serde(default)]
    pub load: LoadSpec,
    /// How many times every configuration is measured: a count, or
    /// `{ min, max, target_ci }` (adaptive; a runtime's own `repeats` wins).
    #[serde(default)]
    pub repeats: RepeatsSpec,
    #[serde(default)]
    pub warmup: WarmupSpec,
    pub measure: MeasureSpec,
    /// `interleaved` (default): repeat 1 of every runtime, then repeat 2, ...; `sequential`: runtime by runtime.
    #[serde(default)]
    pub order: OrderSpec,
    /// When a runtime's service is started anew (default: for every repeat).
    /// A runtime's own `lifecycle` wins.
    pub lifecycle: Option<LifecycleSpec>,
    /// If present, only cells matching at least one rule are kept.
    #[serde(default)]
    pub include: Vec<IndexMap<String, AxisValue>>,
    /// Cells matching any rule are dropped (after `include`).
    #[serde(default)]
    pub exclude: Vec<IndexMap<String, AxisValue>>,
    /// CPU pinning; left out: disjoint CPUs for service and load on hosts with >= 4.
    pub affinity: Option<AffinitySetting>,
    /// Open-loop cells at rates common to every runtime, derived from the
    /// closed-loop pass (fractions of the slowest runtime's peak).
    pub equal_load: Option<EqualLoadSpec>,
    pub sample: Option<SampleSpec>,
    pub faults: Option<FaultsSpec>,
    /// Requests `runner verify` sends to every runtime to compare their answers.
    #[serde(default)]
    pub verify: Vec<VerifySpec>,
    pub report: Option<ReportSpec>,
    /// Results folder, relative to the spec file's folder (default `results`).
    pub results: Option<String>,
    /// Metric names the reports should show.
    #[serde(default)]
    pub metrics: Vec<String>,
    /// Cold starts measured per runtime before its cells (a runtime's own `startup` wins).
    pub startup: Option<StartupSpec>,
    /// Thresholds by which a cell is judged `suspect` or `failed`.
    pub gates: Option<GatesSpec>,
    /// Caps on the service and training logs.
    pub logs: Option<LogsSpec>,
    /// Memory in phases (idle, load, after) on fresh processes per runtime,
    /// apart from the latency cells.
    pub memory: Option<crate::spec::keys::memory::MemorySpec>,
    /// Profiled cells and their collectors for every runtime (a runtime's own `profile` wins).
    pub profile: Option<ProfileSpec>,
    /// Where the services and the load generator run (default: all here).
    pub hosts: Option<HostsSpec>,
    /// Named scenarios, each its own workload, load keys and dependencies,
    /// selected per cell by the `scenario` axis they add (first, slowest);
    /// the cells run scenario by scenario. See `spec::scenarios`.
    #[serde(default)]
    pub scenarios: IndexMap<String, crate::spec::keys::scenarios::ScenarioSpec>,
    /// Candidate runtime -> its control, measured in the same run
    /// (interleaved), e.g. `controls: { shop: shop-v1.4 }` with `shop-v1.4`
    /// built from a git revision (`source: { git: v1.4.0 }`): `runner
    /// nightly` then judges each candidate against its control, which
    /// run-level noise cannot fake (docs/guides/nightly-regression-checks.md).
    #[serde(default)]
    pub controls: IndexMap<String, String>,
}

/// Names the experiment; `name` becomes a folder under the results dir.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with name, title, description")]
pub struct Experiment {
    /// A safe file name: letters, digits, `-`, `_`, `.`; no `/`, no `..`.
    #[schemars(regex(pattern = r"^(?!.*\.\.)[A-Za-z0-9._-]+$"))]
    pub name: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub description: String,
}

/// One service under test. Every field is optional here because a runtime
/// may inherit it through `extends`; after inheritance `start` is required.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map of runtime settings (dir, build, start, env, ...)"
)]
pub struct RuntimeSpec {
    /// Name of another runtime whose settings this one starts from.
    pub extends: Option<String>,
    /// Working directory, relative to the spec file's folder.
    pub dir: Option<String>,
    /// Shell commands run in `dir`, in order, before anything starts.
    pub build: Option<Vec<String>>,
    /// Appended to the inherited `build` list.
    #[serde(rename = "+build")]
    pub build_append: Option<Vec<String>>,
    /// Shell command starting the service in the foreground.
    pub start: Option<String>,
    /// A command run in `dir` (by `sh -c`, before the builds) whose output
    /// names the version under test, e.g. `nginx -v`: its first line is
    /// recorded in environment.json, shown in the report, and a change of it
    /// makes two runs not comparable (compare and history name it).
    pub version: Option<String>,
    /// Environment variables for this runtime (merged by key over the inherited ones).
    #[schemars(with = "Option<IndexMap<String, crate::spec::values::EnvValue>>")]
    pub env: Option<IndexMap<String, String>>,
    /// Names of the caller's environment variables passed to this runtime's
    /// commands beyond the documented few (PATH, HOME, the locale, proxies,
    /// toolchain homes and caches), e.g. `[GOFLAGS]`; a name unset in the
    /// caller's environment is left unset. Replaces the inherited list.
    pub pass_env: Option<Vec<String>>,
    /// JVM flags, available in templates as `{{ jvm_flags }}` (space-joined).
    pub jvm_flags: Option<Vec<String>>,
    /// Appended to the inherited `jvm_flags` list.
    #[serde(rename = "+jvm_flags")]
    pub jvm_flags_append: Option<Vec<String>>,
    pub java: Option<JavaSpec>,
    /// Readiness: `{ path: /health }` (the default), `{ tcp: true }` or
    /// `{ command: "..." }`, with `timeout` and `interval`.
    pub health: Option<HealthSpec>,
    pub stop: Option<StopSpec>,
    /// A fixed port, or `auto` (default): a free 127.0.0.1 port chosen at plan time.
    pub port: Option<PortSpec>,
    /// Files rendered for each start: file name -> a minijinja template
    /// (relative to `dir`) rendered with the runtime's variables (`port`,
    /// the cell's axes, `env`, `scratch`, ...) into `{{ scratch }}/<name>`,
    /// the start's own folder, fresh for each start and removed after its
    /// stop; e.g. `files: { nginx.conf: conf/nginx.conf.j2 }` and
    /// `start: nginx -c {{ scratch }}/nginx.conf`. What was rendered is kept
    /// in the run directory (files/).
    pub files: Option<IndexMap<String, String>>,
    pub train: Option<TrainSpec>,
    /// Free-form labels shown in reports.
    pub tags: Option<Vec<String>>,
    /// Appended to the inherited `tags` list.
    #[serde(rename = "+tags")]
    pub tags_append: Option<Vec<String>>,
    /// The build's output (file or folder, relative to `dir`): its size is
    /// recorded as the artifact size.
    pub artifact: Option<String>,
    /// What ships (files or folders, relative to `dir`), e.g. a jar and its
    /// libs, or a jlink image: their total is the deployable size (default:
    /// the `artifact`). A runtime with `java:` also has its JDK's size
    /// reported beside it, since that is shipped too unless jlink replaced it.
    pub deployable: Option<Vec<String>>,
    /// When this runtime's service is started anew (overrides the spec-wide `lifecycle`).
    pub lifecycle: Option<LifecycleSpec>,
    /// CPU and memory limits of the service's cgroup (needs a host with
    /// writable cgroups, e.g. root); each value may be a template naming an
    /// axis, resolved per cell.
    pub limits: Option<LimitsSpec>,
    /// Cold starts measured before this runtime's cells (overrides the spec-wide `startup`).
    pub startup: Option<StartupSpec>,
    /// This runtime's repeats (overrides the spec-wide `repeats`).
    pub repeats: Option<RepeatsSpec>,
    /// The `dependencies` this runtime uses (default: every one); each is
    /// up before its service starts, and `{{ deps.<name>.port }}` names it.
    pub needs: Option<Vec<String>>,
    /// This runtime's profiled cells and collectors (overrides the spec-wide `profile` whole).
    pub profile: Option<ProfileSpec>,
    /// The protocols its server offers (default `[http1]`): a cell whose
    /// `load.protocol` is not among them is refused at plan time. `https`
    /// and `h2` starts get the run's certificate (`TLS_CERT_FILE`,
    /// `TLS_KEY_FILE`, `{{ tls.cert }}`, `{{ tls.key }}`).
    pub protocols: Option<Vec<crate::spec::keys::protocol::ProtocolName>>,
    /// Where its sources come from (default: `dir` as it is on disk):
    /// `{ git: v1.4.0 }` builds that revision of the git work tree holding
    /// `dir`, exported by runner into a cache keyed by its commit (the work
    /// tree is never touched), e.g. the control a candidate is judged
    /// against (`controls:`).
    pub source: Option<SourceSpec>,
}

/// A runtime's sources taken from git rather than from the work tree.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with `git`: a revision such as `v1.4.0`, `main~1` or a commit id"
)]
pub struct SourceSpec {
    /// A revision `git rev-parse` resolves to a commit: a tag, a branch,
    /// `HEAD~1`, a commit id: one word, not starting with `-`.
    #[schemars(regex(pattern = r"^[^-\s]\S*$"))]
    pub git: String,
}

/// Limits of a runtime's service, applied to the cgroup of each start.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with cpus, memory")]
pub struct LimitsSpec {
    /// CPU bandwidth in cores, e.g. `1.5` (a CFS quota of 150 ms per 100 ms),
    /// or a template such as `"{{ cpus }}"`.
    pub cpus: Option<NumberOrTemplate>,
    /// Memory limit: a size such as `512MiB` or `1GiB`, a number of bytes,
    /// or a template such as `"{{ memory }}"`. Swap is not allowed beside it.
    pub memory: Option<NumberOrTemplate>,
}

/// The JDK a runtime needs: a major version looked up in JAVA_HOME and
/// /usr/lib/jvm, or an explicit JDK home.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with `version` (e.g. \"25\") or `home`, and optionally `min` and `build`"
)]
pub struct JavaSpec {
    /// A major version (`"25"`), or a template naming an axis
    /// (`"{{ jdk }}"`): then each cell runs on its own JDK.
    pub version: Option<String>,
    pub home: Option<String>,
    /// The oldest major version the runtime runs on: cells whose JDK is
    /// older are skipped with a reason, not failed.
    pub min: Option<u32>,
    /// The major version the build runs with when `version` varies per
    /// cell (default: the highest version the cells resolve to).
    pub build: Option<String>,
}

/// How readiness is checked: at most one of `path` (GET on
/// 127.0.0.1:port until 200), `tcp: true` (the port accepts a connection) or
/// `command` (a shell command that exits 0). Left out: a runtime polls
/// `path: /health`, a dependency `tcp: true`. One shape for runtimes and
/// dependencies, checked by one code path ([`crate::service`]).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with one of path, tcp, command, and timeout, interval"
)]
pub struct HealthSpec {
    /// GET this path on 127.0.0.1:port until it answers 200 (a runtime's default: `/health`).
    pub path: Option<String>,
    /// `true`: ready once its port accepts a connection (a dependency's default).
    pub tcp: Option<bool>,
    /// A shell command (in `dir`, with its env and `$RUNNER_SCRATCH`) that
    /// exits 0 once it is ready, tried every `interval`.
    pub command: Option<String>,
    /// Default `60s`.
    pub timeout: Option<HumanDuration>,
    /// Default `100ms`.
    pub interval: Option<HumanDuration>,
}

/// How the service is stopped: `signal` to its process group, SIGKILL after `grace`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with signal, grace")]
pub struct StopSpec {
    /// TERM (default), INT, HUP, QUIT or KILL (a `SIG` prefix is allowed).
    pub signal: Option<String>,
    /// Default `10s`.
    pub grace: Option<HumanDuration>,
}

/// A training run before measuring (e.g. a Leyden AOT cache, Go PGO).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with start, env, workload, connections, duration, after, produces"
)]
pub struct TrainSpec {
    /// Start command while training (default: the runtime's `start`).
    pub start: Option<String>,
    /// Extra environment while training (merged over the runtime's).
    #[schemars(with = "Option<IndexMap<String, crate::spec::values::EnvValue>>")]
    pub env: Option<IndexMap<String, String>>,
    /// Names of workload requests to drive (default: all).
    pub workload: Option<Vec<String>>,
    /// Closed-loop connections while training (default 4).
    pub connections: Option<u32>,
    /// How long load is driven (default `30s`).
    pub duration: Option<HumanDuration>,
    /// Shell commands run in `dir` after the training service stopped.
    pub after: Option<Vec<String>>,
    /// Files (relative to `dir`) that must exist and be non-empty afterwards.
    pub produces: Option<Vec<String>>,
    /// A regular expression that must match a line of the service log after
    /// each measured start: proof the trained artifact is used (e.g. a
    /// `-Xlog:aot` line). Cells are marked suspect when it is not found.
    pub evidence: Option<String>,
    /// Files or folders (relative to `dir`) the trained artifact is made
    /// from, e.g. `[target/service.jar, target/libs]`: hashed after training
    /// and again before every measured start (default: the runtime's `artifact`).
    pub inputs: Option<Vec<String>>,
    /// A shell command run in `dir` before every measured start that must
    /// exit 0, proving the artifact usable (e.g. a JVM with `-XX:AOTMode=on
    /// -XX:AOTCache=... -version`, which refuses a cache it cannot map).
    pub probe: Option<String>,
}

/// One HTTP request of the workload; every string is a template.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a request map with method, path, headers, body, expect"
)]
pub struct RequestSpec {
    /// Needed when the workload has several requests (default `request`).
    pub name: Option<String>,
    /// Default GET.
    #[serde(default = "get")]
    pub method: String,
    /// Path and query, starting with `/`.
    pub path: String,
    #[serde(default)]
    pub headers: IndexMap<String, String>,
    pub body: Option<String>,
    #[serde(default)]
    pub expect: ExpectSpec,
    /// Relative share of the requests sent, a positive number (default: all
    /// requests equal, sent round-robin; with any weight given, each request
    /// is drawn by weight, a missing one counting as 1, seeded by `load.seed`).
    pub weight: Option<f64>,
}

fn get() -> String {
    "GET".into()
}

/// What a correct answer looks like. The status is checked on every
/// answer; the other checks on a sample of each cell warmup's answers and
/// on every answer `runner verify` gets to the workload's requests (see
/// docs/spec.md, `expect`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with status, min_bytes, max_bytes, body_contains, header"
)]
pub struct ExpectSpec {
    /// Default 200.
    #[serde(default = "ok")]
    pub status: u16,
    /// The body has at least this many bytes (a size, or a template such
    /// as `"{{ payload }}"`): catches empty and truncated answers.
    pub min_bytes: Option<crate::spec::keys::expect::ExpectSize>,
    /// The body has at most this many bytes.
    pub max_bytes: Option<crate::spec::keys::expect::ExpectSize>,
    /// Text the body contains (a template), searched in its first MiB.
    pub body_contains: Option<String>,
    /// Headers the answer carries, name -> exact value (names ignore case,
    /// values are templates, compared without surrounding spaces).
    #[serde(default)]
    pub header: IndexMap<String, String>,
}

impl Default for ExpectSpec {
    fn default() -> Self {
        ExpectSpec {
            status: ok(),
            min_bytes: None,
            max_bytes: None,
            body_contains: None,
            header: IndexMap::new(),
        }
    }
}

fn ok() -> u16 {
    200
}

/// How load is applied.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with mode, rate, connections, timeout, threads, slo, from, to, step, seed, connect_rate, ramp, protocol, streams, connection, resumption, tls"
)]
pub struct LoadSpec {
    #[serde(default)]
    pub mode: LoadModeSpec,
    /// Open mode: requests per second (a number or a template such as `"{{ rate }}"`).
    pub rate: Option<NumberOrTemplate>,
    /// Open mode: connections to spread the rate over; closed mode: overrides the
    /// `concurrency` axis. A number or a template.
    pub connections: Option<NumberOrTemplate>,
    /// Per-request timeout (default `10s`).
    pub timeout: Option<HumanDuration>,
    /// Load generator threads (default 1, or the number of `affinity.load` CPUs).
    pub threads: Option<u32>,
    // Search mode (`mode: search`), see `spec::search`.
    /// Search mode: what a step must hold.
    pub slo: Option<crate::spec::keys::search::SloSpec>,
    /// Search mode: the first rate probed (requests per second).
    pub from: Option<f64>,
    /// Search mode: the highest rate probed (requests per second).
    pub to: Option<f64>,
    /// Search mode: how each step is measured and the search narrows.
    pub step: Option<crate::spec::keys::search::SearchStepSpec>,
    /// Seeds the weighted request draw; with the connection index it fixes
    /// the sequence each connection sends (default 1).
    pub seed: Option<u64>,
    /// Connections opened per second before each load run (default
    /// `2000/s`); the connect phase is not measured.
    pub connect_rate: Option<crate::spec::keys::connect_rate::ConnectRate>,
    /// Closed mode: before each window the connections start one after
    /// another over this long, from 1 to all (e.g. `10s`), not measured.
    pub ramp: Option<HumanDuration>,
    /// `http1` (default), `https`, `h2` (HTTP/2 over TLS) or `h2c`, or a
    /// template such as `"{{ protocol }}"` (the `protocol` axis is used
    /// when this is left out).
    #[schemars(with = "Option<crate::spec::values::ProtocolOrTemplate>")]
    pub protocol: Option<String>,
    /// HTTP/2: concurrent streams per connection (default 1); the
    /// concurrency is connections x streams.
    pub streams: Option<NumberOrTemplate>,
    /// `keep-alive` (default) or `new`: a new connection, and with TLS a
    /// new handshake, for every request.
    pub connection: Option<crate::spec::keys::protocol::ConnectionSpec>,
    /// With `connection: new` over TLS: resume the TLS session (default
    /// `true`); `false` makes every handshake a full one.
    pub resumption: Option<bool>,
    /// Whom the generator trusts over TLS (default: the run's own CA).
    pub tls: Option<crate::spec::keys::protocol::TlsSpec>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LoadModeSpec {
    /// Each connection sends its next request when the previous answer arrived.
    #[default]
    Closed,
    /// A constant request rate, independent of the answers.
    Open,
    /// Open-loop steps up then bisection to the highest rate that holds the SLO.
    Search,
}

/// Load applied but not recorded.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with service, cell, max")]
pub struct WarmupSpec {
    /// Once after each service start.
    pub service: Option<HumanDuration>,
    /// Before each cell: a duration, or `auto` (until throughput stops trending).
    pub cell: Option<CellWarmupSpec>,
    /// With `cell: auto`: the longest a cell's warmup runs (default `30s`).
    pub max: Option<HumanDuration>,
}

/// When a measurement ends: after `duration`, or after `requests` answers.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with duration or requests")]
#[schemars(extend("minProperties" = 1))]
pub struct MeasureSpec {
    pub duration: Option<HumanDuration>,
    pub requests: Option<u64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OrderSpec {
    /// Repeat 1 of every runtime, then repeat 2, ...: slow drifts of the
    /// host are spread over all runtimes instead of confounded with one.
    #[default]
    Interleaved,
    /// All cells and repeats of one runtime, then the next runtime.
    Sequential,
}

/// A service's life: when it is stopped and started anew between cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with restart")]
pub struct LifecycleSpec {
    /// Default `repeat`.
    pub restart: Option<RestartSpec>,
}

/// When a runtime's service gets a fresh start. It always does when the
/// runtime changes (one service runs at a time) and after it died.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RestartSpec {
    /// One start per runtime for the whole run (per run of consecutive cells).
    Run,
    /// A fresh start for every repeat: the cells of one repeat share it, so
    /// each repeat is an independent sample of startup, JIT and placement.
    Repeat,
    /// A fresh start for every cell.
    Cell,
}

/// Cold starts of each runtime measured before its cells: start, port,
/// health, first workload request, stop, each in a fresh process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with repeats, first_requests")]
pub struct StartupSpec {
    /// Default 3; 0 measures no extra start (the measured start still records its times).
    #[serde(default = "default_startup_repeats")]
    pub repeats: u32,
    /// The latency of each of the first this many workload requests of every
    /// fresh start (cold starts and measured starts), sent one at a time
    /// right after health, into first-requests.csv (default 0: none; the
    /// report's "First requests" groups 1, 2–10 and 11–100, so 100 fills it).
    #[serde(default)]
    pub first_requests: u32,
}

/// Cold starts per runtime when `startup` does not say.
pub const DEFAULT_STARTUP_REPEATS: u32 = 3;

fn default_startup_repeats() -> u32 {
    DEFAULT_STARTUP_REPEATS
}

/// What is kept of each service and training log: its first `cap` bytes and
/// its last `cap` bytes; what lies between is dropped and counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with cap")]
pub struct LogsSpec {
    /// Default `16MiB` (so at most 32 MiB per start).
    pub cap: ByteSize,
}

/// CPU pinning (Linux): CPU indices for the service and for the load generator.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with service and load CPU lists"
)]
pub struct AffinitySpec {
    pub service: Vec<usize>,
    pub load: Vec<usize>,
}

/// `equal_load: { of_peak: [0.25, 0.5, 0.75, 0.9], connections: 64 }`: after
/// every runtime's closed-loop cells, each runtime is measured in open loop at
/// these fractions of the slowest runtime's closed-loop peak (per group of the
/// other axes, e.g. per payload), so latencies are compared at equal load.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with of_peak and connections")]
pub struct EqualLoadSpec {
    /// Fractions of the slowest runtime's closed-loop peak, each above 0 and at most 1.
    pub of_peak: Vec<f64>,
    /// Connections the open-loop rate is spread over (default: the largest
    /// `concurrency`, else 64).
    pub connections: Option<u32>,
}

/// Resource sampling of the service's process tree.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with interval, during_measure")]
pub struct SampleSpec {
    /// Default `200ms`.
    pub interval: Option<HumanDuration>,
    /// `false`: no sample inside a measured window, only one at its start
    /// and one at its end (default `true`).
    pub during_measure: Option<bool>,
}

/// What happens when a service dies.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with max_restarts")]
pub struct FaultsSpec {
    /// Restarts before the runtime is skipped (default 1).
    pub max_restarts: u32,
}

pub use crate::spec::keys::verify::VerifySpec;

/// Report rendering.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with templates")]
pub struct ReportSpec {
    /// minijinja templates, relative to the spec file's folder.
    pub templates: Vec<String>,
}
