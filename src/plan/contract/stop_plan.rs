//! How a service or dependency is stopped: its own file because runtimes
//! (`model`) and dependencies (`dependency_plan`) both stop that way, and
//! neither should import the other for it.
use std::time::Duration;

use serde::Serialize;

/// The signal, its name and the grace before SIGKILL.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct StopPlan {
    /// Signal number sent to the process group first (default SIGTERM).
    pub signal: i32,
    /// Signal name as written in the spec, for logs ("TERM", "INT", ...).
    pub signal_name: String,
    /// Wait this long after `signal`, then SIGKILL the group.
    pub grace: Duration,
}
