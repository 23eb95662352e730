//! What a measured start gives the walk: the running service with its
//! lifecycle row so far, or why it failed. Below both the `Driver` trait
//! that returns them and the start step that makes them.
use crate::results::LifecycleRow;

/// A measured service that is up, with its lifecycle row so far.
pub struct Running<S> {
    pub service: S,
    pub lifecycle: LifecycleRow,
    /// The matching log line, or why none was found (when evidence is declared).
    pub evidence: Option<Result<String, String>>,
    /// What the service saw of its limits (`None` from drivers that start no process).
    pub seen: Option<crate::exec::start::containment::Observed>,
}

/// Why a start failed: the message and the lifecycle row to record.
pub struct StartFailure {
    pub reason: String,
    pub lifecycle: LifecycleRow,
    /// The runner was interrupted during the start: nothing is skipped.
    pub cancelled: bool,
}
