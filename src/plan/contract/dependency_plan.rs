//! The plan of a dependency (part of the [`crate::plan::Plan`] contract): every
//! command rendered, the port chosen, what its runtimes' templates see.
use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use crate::spec::keys::dependencies::ResetWhen;

/// One dependency, ready to start (sent whole to a service host over SSH,
/// which starts it with the same code).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DependencyPlan {
    pub name: String,
    /// `command` (started by its `start`) or a built-in recipe.
    pub kind: DependencyKindPlan,
    /// Absolute working directory of its commands.
    pub dir: PathBuf,
    /// Shell commands run once in `dir` before it first starts.
    pub build: Vec<String>,
    /// Shell commands run in `dir` before each start (postgres: `initdb`).
    pub setup: Vec<String>,
    /// Shell command that runs it in the foreground.
    pub start: String,
    /// Shell commands run in `dir` once it is healthy (postgres: create the
    /// database, run the schema files).
    pub seed: Vec<String>,
    /// Environment of its commands, `PORT` included. Exec adds
    /// `RUNNER_SCRATCH`: a fresh folder per start, removed after the stop.
    pub env: BTreeMap<String, String>,
    pub port: u16,
    pub health: crate::plan::contract::ready_stop::HealthPlan,
    /// Its scratch folder (`{{ scratch }}`, `$RUNNER_SCRATCH`: the data
    /// directory and socket of a `postgres` kind) and its rendered `files:`,
    /// made afresh before each start and removed after its stop.
    pub scratch: crate::plan::contract::scratch_plan::ScratchPlan,
    pub stop: crate::plan::StopPlan,
    /// `GET` path of its own latency figures (`POST <stats>/reset` zeroes them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reset: Option<ResetPlan>,
    /// CPUs its process tree is pinned to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpus: Option<Vec<usize>>,
    pub limits: crate::cgroup::Limits,
    /// What a runtime that needs it reads as `{{ deps.<name>.<key> }}`.
    pub vars: BTreeMap<String, String>,
    /// The system user its server runs as, when the recipe switches to one
    /// (postgres as root): exec checks it exists and owns the scratch folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_as: Option<String>,
    /// Bytes kept of the head and of the tail of its log, per start.
    pub log_cap_bytes: u64,
}

/// Which recipe a dependency comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DependencyKindPlan {
    /// The spec's own `start` command.
    Command,
    /// The built-in PostgreSQL recipe ([`crate::plan::keys::postgres`]).
    Postgres,
}

/// What brings a dependency back to its starting state, and when.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ResetPlan {
    /// Shell command run in `dir` with its env.
    pub command: String,
    pub when: ResetWhen,
}
