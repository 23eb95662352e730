//! A running service as the steps of a cell see it, wherever it runs: here
//! (`service::Service`) or on an SSH service host (`ssh::RemoteService`).
//! The steps that read the same facts of either (why it died, whether it
//! still answers its health check after a cell) are written once against
//! this trait; each implementation says how it learns them (this host's
//! /proc and pipes, or a call on the service host's session).
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::plan::{Cell, HealthPlan};
use crate::results::{CellStatus, MeasurementRow};
use crate::service::{Service, ServiceError};

/// Longest wait for a health answer between cells: long enough for a
/// service to drain the backlog a cell left, short enough not to stall a run.
pub const HEALTH_RECHECK: Duration = Duration::from_secs(10);

/// A running service under test.
pub trait ServiceHandle {
    /// Where the load reaches it.
    fn addr(&self) -> SocketAddr;
    /// Where it runs, as its messages say it after "service ...": empty
    /// here, " on the service host" over SSH.
    fn site_words(&self) -> &'static str;
    /// Whether its processes still run.
    fn is_alive(&mut self) -> bool;
    /// How it ended, in words (exit code or signal).
    fn exit_text(&mut self) -> String;
    /// The last lines of its log (a service host's log is fetched first).
    fn log_tail(&mut self) -> String;
    /// Its log file here.
    fn log_path(&self) -> &Path;
    /// `Some(why)` when it no longer answers `health` within `within`.
    fn unhealthy(&mut self, health: &HealthPlan, within: Duration) -> Option<String>;
    /// Gives a service that just died a moment to report its exit status.
    fn settle_exit(&mut self) {}
}

/// The failed row of a service that died during `phase` of the cell, with
/// its exit and last log lines.
pub fn died_row(
    service: &mut impl ServiceHandle,
    row: MeasurementRow,
    phase: &str,
) -> MeasurementRow {
    service.settle_exit();
    let (exit, tail) = (service.exit_text(), service.log_tail());
    MeasurementRow {
        status: CellStatus::Failed,
        reason: super::rules::verdict::one_line(&format!(
            "service died{} during the {phase} ({exit}); see {}; last log lines: {tail}",
            service.site_words(),
            service.log_path().display(),
        )),
        ..row
    }
}

/// After a measured cell: `Some(what went wrong)` when the service no longer
/// answers its health check within `min(health.timeout, HEALTH_RECHECK)`.
/// Without this, a hung service (alive, answering nothing) would fail every
/// later cell by timeouts instead of being restarted like a dead one.
pub fn hung(
    service: &mut impl ServiceHandle,
    plan: &crate::plan::Plan,
    cell: &Cell,
) -> Option<String> {
    let rt = plan.runtimes.iter().find(|r| r.name == cell.runtime)?;
    let within = rt.health.timeout.min(HEALTH_RECHECK);
    service.unhealthy(&rt.health, within)
}

/// `row` failed because the service stopped answering after the
/// measurement: it is stopped and restarted.
pub fn hung_row(
    service: &impl ServiceHandle,
    mut row: MeasurementRow,
    why: &str,
) -> MeasurementRow {
    row.status = CellStatus::Failed;
    row.reason = super::rules::verdict::one_line(&format!(
        "service stopped answering{}: {why} after the measurement ({} ok, {} errors); \
         it is stopped and restarted; see {}",
        service.site_words(),
        row.ok,
        row.errors,
        service.log_path().display()
    ));
    row
}

impl ServiceHandle for Service {
    fn addr(&self) -> SocketAddr {
        Service::addr(self)
    }
    fn site_words(&self) -> &'static str {
        ""
    }
    fn is_alive(&mut self) -> bool {
        Service::is_alive(self)
    }
    fn exit_text(&mut self) -> String {
        Service::exit_text(self)
    }
    fn log_tail(&mut self) -> String {
        Service::log_tail(self)
    }
    fn log_path(&self) -> &Path {
        self.log()
    }
    fn unhealthy(&mut self, health: &HealthPlan, within: Duration) -> Option<String> {
        match self.still_healthy(health, within) {
            Ok(()) => None,
            Err(ServiceError::HealthTimeout { last, .. }) => Some(format!(
                "no 200 from GET {} within {within:?} (last answer: {last})",
                health.path
            )),
            Err(e) => Some(e.to_string()),
        }
    }
    /// The start shell exits when the service does; its status is known
    /// within a moment (at most 2 s are waited).
    fn settle_exit(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(2);
        while self.exited().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
