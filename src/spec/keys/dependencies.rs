//! `dependencies:`: services the run itself starts for the runtimes under
//! test (a PostgreSQL database, a downstream stub), and each runtime's
//! `needs:`. The spec side only: [`crate::plan::steps::dependencies`] renders them
//! and [`crate::dependency`] starts, resets, samples and stops them.
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::spec::error::suggestion;
use crate::spec::keys::byte_size::ByteSize;
use crate::spec::model::{HealthSpec, RuntimeSpec, StopSpec};
use crate::spec::validate::Finding;
use crate::spec::values::{AxisValue, PortSpec};

/// One dependency: like a runtime (`dir`, `build`, `start`, `env`, `port`,
/// `health`, `stop`), or a built-in `kind` that writes those itself.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map of dependency settings (kind, dir, build, start, health, reset, ...)"
)]
pub struct DependencySpec {
    /// A built-in recipe: `postgres` (a throwaway PostgreSQL cluster, see
    /// `postgres:`). Left out: the dependency is started by `start`.
    pub kind: Option<DependencyKind>,
    /// The `postgres` kind's settings.
    pub postgres: Option<PostgresSpec>,
    /// Working directory, relative to the spec file's folder (default: its folder).
    pub dir: Option<String>,
    /// Shell commands run in `dir`, in order, before it first starts.
    pub build: Option<Vec<String>>,
    /// Shell command starting it in the foreground (not with `kind`).
    pub start: Option<String>,
    /// A command run in `dir` (by `sh -c`, before the builds) whose output
    /// names the version under test, e.g. `redis-server --version` (a `postgres` kind records its server's own): its first line is
    /// recorded in environment.json, shown in the report, and a change of it
    /// makes two runs not comparable (compare and history name it).
    pub version: Option<String>,
    /// Environment variables of its commands (`PORT` is added).
    #[schemars(with = "Option<IndexMap<String, crate::spec::values::EnvValue>>")]
    pub env: Option<IndexMap<String, String>>,
    /// Files rendered for each start into its scratch folder
    /// (`{{ scratch }}`, also `$RUNNER_SCRATCH`), as a runtime's `files`:
    /// file name -> a template relative to `dir`.
    pub files: Option<IndexMap<String, String>>,
    /// A fixed port, or `auto` (default): a free 127.0.0.1 port chosen at plan time.
    pub port: Option<PortSpec>,
    /// Readiness: `{ path: /health }` (HTTP 200), `{ tcp: true }` (the port
    /// accepts) or `{ command: "..." }` (exits 0). Default `{ tcp: true }`.
    pub health: Option<HealthSpec>,
    /// How it is stopped: `signal` to its process group, SIGKILL after `grace`.
    pub stop: Option<StopSpec>,
    /// A path where it reports its own latency (`GET`) and zeroes it
    /// (`POST <stats>/reset`), see docs/spec.md.
    pub stats: Option<String>,
    /// What brings it back to its starting state, and when.
    pub reset: Option<ResetSpec>,
    /// CPUs its whole process tree is pinned to (default: unpinned).
    pub affinity: Option<Vec<usize>>,
    /// CPU and memory limits of its cgroup (hosts with writable cgroups).
    pub limits: Option<DependencyLimitsSpec>,
}

/// The built-in dependency recipes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DependencyKind {
    /// A throwaway PostgreSQL cluster from Debian's `postgresql` package.
    Postgres,
}

/// `kind: postgres`: the database, its schema and its settings.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with schema, settings, database, user, version, bin"
)]
pub struct PostgresSpec {
    /// SQL files (relative to the spec file) run in order after the first
    /// start, and again after each reset.
    #[serde(default)]
    pub schema: Vec<String>,
    /// Server settings (`postgres -c name=value`) over the recipe's stated
    /// defaults, e.g. `{ max_connections: 100, fsync: "off" }`.
    #[serde(default)]
    pub settings: IndexMap<String, AxisValue>,
    /// Database created for the runtimes (default `bench`).
    pub database: Option<String>,
    /// Role the runtimes connect as (default `bench`).
    pub user: Option<String>,
    /// Major version of Debian's package (default `15`: /usr/lib/postgresql/15/bin).
    pub version: Option<String>,
    /// Folder with initdb, postgres and psql (overrides `version`).
    pub bin: Option<String>,
}

/// `reset: { command: ..., when: repeat }`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with command, when")]
pub struct ResetSpec {
    /// Shell command (in `dir`) run to reset it; the `postgres` kind has its own.
    pub command: Option<String>,
    /// `runtime` (default): before each runtime that needs it, after the
    /// first; `repeat`: also before each repeat of a runtime.
    pub when: Option<ResetWhen>,
}

/// When a dependency is reset.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ResetWhen {
    /// Between runtimes: each runtime finds it as the first one did.
    #[default]
    Runtime,
    /// Also between repeats of one runtime.
    Repeat,
}

/// Limits of a dependency's cgroup (no templates: it outlives cells).
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with cpus, memory")]
pub struct DependencyLimitsSpec {
    /// CPU bandwidth in cores, e.g. `1.5`.
    pub cpus: Option<f64>,
    /// Memory limit, e.g. `256MiB`.
    pub memory: Option<ByteSize>,
}

/// Settings of `kind: postgres` a spec may not override: where the cluster
/// listens and keeps its files belongs to the recipe (loopback only, the
/// socket and data in the run's scratch folder, removed afterwards).
pub const FIXED_SETTINGS: &[(&str, &str)] = &[
    ("listen_addresses", "127.0.0.1"),
    ("port", "the dependency's port"),
    ("unix_socket_directories", "the scratch folder"),
    ("data_directory", "the scratch folder"),
    ("hba_file", "the scratch folder"),
    ("config_file", "the scratch folder"),
];

fn finding(field: String, message: String, help: impl Into<String>) -> Finding {
    Finding {
        field,
        message,
        help: help.into(),
    }
}

/// A dependency name usable as `{{ deps.<name>.port }}`: `[a-z][a-z0-9_]*`.
fn is_dependency_name(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// The checks of `dependencies:` and of every runtime's `needs:`.
pub fn check_dependencies(
    dependencies: &IndexMap<String, DependencySpec>,
    runtimes: &IndexMap<String, RuntimeSpec>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (name, dep) in dependencies {
        check_one(name, dep, &mut out);
    }
    let names: Vec<&str> = dependencies.keys().map(String::as_str).collect();
    for (runtime, rt) in runtimes {
        for (i, wanted) in rt.needs.iter().flatten().enumerate() {
            if !dependencies.contains_key(wanted) {
                let help = if names.is_empty() {
                    "declare it under `dependencies:`, or remove it from `needs`".to_owned()
                } else {
                    suggestion(wanted, &names, "dependencies")
                };
                out.push(finding(
                    format!("runtimes.{runtime}.needs.{i}"),
                    format!("runtime `{runtime}` needs `{wanted}`, which is not a dependency"),
                    help,
                ));
            }
        }
    }
    out
}

fn check_one(name: &str, dep: &DependencySpec, out: &mut Vec<Finding>) {
    let at = |field: &str| format!("dependencies.{name}.{field}");
    if !is_dependency_name(name) {
        out.push(finding(
            format!("dependencies.{name}"),
            format!("dependency name `{name}` is not usable in templates"),
            "use lower-case letters, digits and `_`, starting with a letter (it is written `{{ deps.<name>.port }}`)",
        ));
    }
    match dep.kind {
        Some(DependencyKind::Postgres) => {
            for (field, set) in [
                ("start", dep.start.is_some()),
                ("health", dep.health.is_some()),
                ("stats", dep.stats.is_some()),
            ] {
                if set {
                    out.push(finding(
                        at(field),
                        format!("`kind: postgres` writes its own `{field}`"),
                        format!("remove `{field}`; the recipe's settings go under `postgres:`"),
                    ));
                }
            }
            if dep.reset.as_ref().is_some_and(|r| r.command.is_some()) {
                out.push(finding(
                    at("reset.command"),
                    "`kind: postgres` resets itself (DROP SCHEMA public CASCADE, then the schema files again)".into(),
                    "remove `command`; keep `when:`",
                ));
            }
            if let Some(pg) = &dep.postgres {
                check_postgres(&at("postgres"), pg, out);
            }
        }
        None => {
            if dep.postgres.is_some() {
                out.push(finding(
                    at("postgres"),
                    "`postgres:` settings without `kind: postgres`".into(),
                    "add `kind: postgres`, or remove `postgres:`",
                ));
            }
            if dep.reset.is_some() && dep.reset.as_ref().is_some_and(|r| r.command.is_none()) {
                out.push(finding(
                    at("reset"),
                    format!("dependency `{name}` has a `reset` without a `command`"),
                    "add `command: <what brings it back to its starting state>`; only built-in kinds reset themselves",
                ));
            }
            if dep.start.is_none() {
                out.push(finding(
                    format!("dependencies.{name}"),
                    format!("dependency `{name}` has no `start` command and no `kind`"),
                    "add `start: <command that runs it in the foreground>`, or `kind: postgres`",
                ));
            }
        }
    }
    if let Some(h) = &dep.health {
        crate::spec::validate::check_health(h, &at, out);
    }
    for (file, template) in dep.files.iter().flatten() {
        crate::spec::validate::check_file(file, template, &at, out);
    }
    if let Some(stats) = dep.stats.as_ref().filter(|p| !p.starts_with('/')) {
        out.push(finding(
            at("stats"),
            format!("stats path `{stats}` does not start with `/`"),
            "e.g. `stats: /__stats`",
        ));
    }
    if let Some(signal) = dep.stop.as_ref().and_then(|s| s.signal.as_ref())
        && crate::spec::validate::signal_number(signal).is_none()
    {
        out.push(finding(
            at("stop.signal"),
            format!("unknown stop signal `{signal}`"),
            "use TERM, INT, HUP, QUIT or KILL",
        ));
    }
    if dep.affinity.as_ref().is_some_and(Vec::is_empty) {
        out.push(finding(
            at("affinity"),
            "an empty CPU list pins to nothing".into(),
            "list CPU indices, e.g. `affinity: [1]`, or remove it",
        ));
    }
    if let Some(cpus) = dep.limits.and_then(|l| l.cpus)
        && !(cpus.is_finite() && cpus >= 0.01)
    {
        out.push(finding(
            at("limits.cpus"),
            format!("`limits.cpus` is {cpus}, not a number of CPUs of 0.01 or more"),
            "write the CPU bandwidth in cores, e.g. `cpus: 1`",
        ));
    }
}

fn check_postgres(at: &str, pg: &PostgresSpec, out: &mut Vec<Finding>) {
    for (field, value) in [("database", &pg.database), ("user", &pg.user)] {
        if let Some(v) = value
            && !is_dependency_name(v)
        {
            out.push(finding(
                format!("{at}.{field}"),
                format!("postgres {field} `{v}` is not a plain identifier"),
                "use lower-case letters, digits and `_`, starting with a letter",
            ));
        }
    }
    for (setting, _) in &pg.settings {
        if !setting
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '.')
            || setting.is_empty()
        {
            out.push(finding(
                format!("{at}.settings.{setting}"),
                format!("`{setting}` is not a PostgreSQL setting name"),
                "setting names are lower case, e.g. `max_connections`, `shared_buffers`",
            ));
        }
    }
    for (setting, fixed) in FIXED_SETTINGS {
        if pg.settings.contains_key(*setting) {
            out.push(finding(
                format!("{at}.settings.{setting}"),
                format!("`{setting}` is fixed by the recipe ({fixed})"),
                "remove it: the recipe must own where the cluster listens and keeps its files",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependency_names_are_template_identifiers() {
        assert!(is_dependency_name("postgres"));
        assert!(is_dependency_name("users_stub2"));
        assert!(!is_dependency_name("Users"));
        assert!(!is_dependency_name("users-stub"));
        assert!(!is_dependency_name("2db"));
        assert!(!is_dependency_name(""));
    }
}
