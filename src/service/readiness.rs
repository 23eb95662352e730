//! Readiness checks other than a service's HTTP health path, for
//! dependencies: a TCP connect to the port, or a command that exits 0
//! (`pg_isready`). Same shape as the HTTP poll: every `interval` until the
//! check passes, the process exits (with its log tail), a cancel, or the timeout.
use std::time::{Duration, Instant};

use super::ServiceError;
use super::contain::with_oom;
use super::error::NotReady;
use super::process::Service;
use crate::process::describe_exit;

impl Service {
    /// Polls `check` (what it checks is `what`, for messages) until it gives
    /// `Ok`; returns spawn -> ready.
    pub fn wait_ready_by(
        &mut self,
        what: &str,
        check: &mut dyn FnMut() -> Result<(), String>,
        timeout: Duration,
        interval: Duration,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Duration, ServiceError> {
        let deadline = self.spawned_at() + timeout;
        loop {
            if cancelled() {
                return Err(ServiceError::Cancelled {
                    runtime: self.runtime().to_owned(),
                });
            }
            if let Some(status) = self.exited() {
                return Err(ServiceError::ExitedBeforeHealthy {
                    runtime: self.runtime().to_owned(),
                    status: with_oom(describe_exit(status), self.cgroup()),
                    url: what.to_owned(),
                    log: self.log().to_path_buf(),
                    tail: self.log_tail(),
                });
            }
            let last = match check() {
                Ok(()) => return Ok(self.spawned_at().elapsed()),
                Err(why) => why,
            };
            if Instant::now() >= deadline {
                return Err(ServiceError::NotReady(Box::new(NotReady {
                    runtime: self.runtime().to_owned(),
                    what: what.to_owned(),
                    timeout,
                    last,
                    log: self.log().to_path_buf(),
                    tail: self.log_tail(),
                })));
            }
            std::thread::sleep(interval.min(deadline.saturating_duration_since(Instant::now())));
        }
    }
}
