//! How a service or dependency is known to be ready, and how it is
//! stopped: their own file because runtimes (`model`) and dependencies
//! (`dependency_plan`) take the same checks and stop the same way, and
//! [`crate::service`] runs both with one code path; neither should import
//! the other for it.
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A readiness check with its bounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HealthPlan {
    pub check: HealthCheck,
    /// From the spawn: no pass by then is a failed start.
    pub timeout: Duration,
    /// Between tries (an HTTP check tries every millisecond for the first
    /// second after the port opens, see `service::startup`).
    pub interval: Duration,
}

/// What passes as ready.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HealthCheck {
    /// GET this path on 127.0.0.1:port answers 200.
    Http(String),
    /// The port accepts a TCP connection.
    Tcp,
    /// This shell command (in the service's `dir`, with its env) exits 0.
    Command(String),
}

impl HealthPlan {
    /// GET `path` until 200: a runtime's default check, and what tests use.
    pub fn http(path: &str, timeout: Duration, interval: Duration) -> HealthPlan {
        HealthPlan {
            check: HealthCheck::Http(path.to_owned()),
            timeout,
            interval,
        }
    }
}

impl HealthCheck {
    /// The check in words for a plan or a message: `GET /health`, `a TCP
    /// connect`, `` `pg_isready` exits 0 ``.
    pub fn words(&self) -> String {
        match self {
            HealthCheck::Http(path) => format!("GET {path}"),
            HealthCheck::Tcp => "TCP connect".to_owned(),
            HealthCheck::Command(c) => format!("`{c}` exits 0"),
        }
    }
}

/// The signal, its name and the grace before SIGKILL.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StopPlan {
    /// Signal number sent to the process group first (default SIGTERM).
    pub signal: i32,
    /// Signal name as written in the spec, for logs ("TERM", "INT", ...).
    pub signal_name: String,
    /// Wait this long after `signal`, then SIGKILL the group.
    pub grace: Duration,
}
