//! Service lifecycle errors: each names the runtime, the log to read and
//! what to do.
use std::path::PathBuf;
use std::time::Duration;

use super::port::PortInUse;

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error(
        "runtime {runtime}: cannot start `{command}` in {dir}: {source}; check that the directory exists"
    )]
    Spawn {
        runtime: String,
        command: String,
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A start's scratch folder (`files:`) could not be made or removed.
    #[error(
        "runtime {runtime}: cannot prepare or remove its scratch folder {path}: {source}; \
         check that the temp dir is writable and has room"
    )]
    Scratch {
        runtime: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The port is taken before the start or still held after the stop.
    #[error(transparent)]
    PortInUse(#[from] PortInUse),
    #[error("runtime {runtime}: cannot open log {path}: {source}")]
    Log {
        runtime: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "runtime {runtime}: the service exited ({status}) before {what}; see {log}; last lines:\n{tail}"
    )]
    ExitedBeforeHealthy {
        runtime: String,
        status: String,
        /// What it was waited for, e.g. `answering http://127.0.0.1:8080/health`.
        what: String,
        log: PathBuf,
        tail: String,
    },
    #[error(
        "runtime {runtime}: no 200 from {url} within {timeout:?} (last answer: {last}); see {log}; \
         raise health.timeout in the spec if the service is just slow to start"
    )]
    HealthTimeout {
        runtime: String,
        url: String,
        timeout: Duration,
        last: String,
        log: PathBuf,
    },
    /// The port never accepted a connection, but the service listens on
    /// others: it did not take the port it was given.
    #[error(
        "runtime {runtime}: nothing accepted connections on port {port} within {timeout:?}, \
         but the service is listening on {listening}: make it read $PORT, or put {{{{ port }}}} \
         into its config file; see {log}"
    )]
    WrongPort {
        runtime: String,
        port: u16,
        timeout: Duration,
        listening: String,
        log: PathBuf,
    },
    /// A readiness check other than HTTP (a TCP connect, a command) kept failing.
    #[error(transparent)]
    NotReady(Box<NotReady>),
    #[error("runtime {runtime}: interrupted while waiting for the service to become healthy")]
    Cancelled { runtime: String },
    /// Creating, killing or removing the start's cgroup failed.
    #[error("runtime {runtime}: {source}")]
    Cgroup {
        runtime: String,
        #[source]
        source: crate::cgroup::CgroupError,
    },
    #[error("runtime {runtime}: processes of session {sid} survived SIGKILL: {pids:?}")]
    Unkillable {
        runtime: String,
        sid: i32,
        pids: Vec<i32>,
    },
}

/// A readiness check other than HTTP kept failing (boxed: the error stays small).
#[derive(Debug, thiserror::Error)]
#[error(
    "{runtime}: {what} did not pass within {timeout:?} (last: {last}); see {log}; last lines:\n{tail}"
)]
pub struct NotReady {
    pub runtime: String,
    pub what: String,
    pub timeout: Duration,
    pub last: String,
    pub log: PathBuf,
    pub tail: String,
}
