//! A running service as the steps of a cell see it, wherever it runs: here
//! (`service::Service`) or on an SSH service host (`ssh::RemoteService`).
//! The steps that read the same facts of either (why it died, whether it
//! still answers its health check after a cell) are written once against
//! this trait; each implementation says how it learns them (this host's
//! /proc and pipes, or a call on the service host's session).
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
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
    /// Asks a JVM among its processes for a thread dump into `to`, with the
    /// JDK at `jdk_home` (major version `major`): where it went, or why not.
    fn thread_dump(
        &mut self,
        _jdk_home: &Path,
        _major: u32,
        _to: &Path,
    ) -> Result<PathBuf, String> {
        Err("not taken on a service host yet".into())
    }
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
/// `dump`: what the caller learned of it before the stop (a thread dump's
/// file, in words), appended as is.
pub fn hung_row(
    service: &impl ServiceHandle,
    mut row: MeasurementRow,
    why: &str,
    dump: &str,
) -> MeasurementRow {
    row.status = CellStatus::Failed;
    row.reason = super::rules::verdict::one_line(&format!(
        "service stopped answering{}: {why} after the measurement ({} ok, {} errors); \
         it is stopped and restarted; see {}{dump}",
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
                "no 200 from {} within {within:?} (last answer: {last})",
                health.check.words()
            )),
            Err(e) => Some(e.to_string()),
        }
    }
    fn thread_dump(&mut self, jdk_home: &Path, major: u32, to: &Path) -> Result<PathBuf, String> {
        Service::thread_dump(self, jdk_home, major, to).map_err(|e| e.to_string())
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

/// Between tries of the first workload request: short, so that the time to
/// the first success keeps its millisecond resolution, for
/// [`FAST_RETRY_FOR`]; then [`SLOW_RETRY`]: each try is a new connection,
/// and one every 2 ms for a minute would leave ~30,000 sockets in TIME_WAIT.
const FIRST_REQUEST_RETRY: Duration = Duration::from_millis(2);
const FAST_RETRY_FOR: Duration = Duration::from_secs(1);
const SLOW_RETRY: Duration = Duration::from_millis(50);

/// The first successful workload request of a start.
#[derive(Debug, Clone, Copy)]
pub struct FirstSuccess {
    /// When the first try went out (the service had just answered its health check).
    pub first_try: Instant,
    /// When the successful answer came back.
    pub answered: Instant,
    /// From its send to its answer: the latency of the first request the
    /// process answered (first-requests.csv request 1).
    pub latency: Duration,
}

/// Sends the cell's first request until it succeeds, wherever the service
/// runs; between failed tries, a service that has exited ends the wait.
pub fn first_success(
    service: &mut impl ServiceHandle,
    cell: &Cell,
    timeout: Duration,
    cancelled: &dyn Fn() -> bool,
) -> Result<FirstSuccess, String> {
    let first_try = Instant::now();
    let Some(req) = cell.requests.first() else {
        return Ok(FirstSuccess {
            first_try,
            answered: first_try,
            latency: Duration::ZERO,
        });
    };
    // One request: `seq` and `rand` placeholders take their first values.
    let path = crate::load::resolved_once(&req.path);
    let body = req.body.as_deref().map(crate::load::resolved_once);
    let deadline = first_try + timeout;
    let mut last = String::new();
    while Instant::now() < deadline {
        if cancelled() {
            return Err("interrupted".into());
        }
        let sent = Instant::now();
        match crate::service::http_status(
            service.addr(),
            &req.method,
            &path,
            &req.headers,
            body.as_deref().map(str::as_bytes),
            (
                Duration::from_secs(5),
                cell.load.transport.protocol.uses_tls(),
            ),
        ) {
            Ok(code) if code == req.expect_status => {
                return Ok(FirstSuccess {
                    first_try,
                    answered: Instant::now(),
                    latency: sent.elapsed(),
                });
            }
            Ok(code) => {
                last = format!(
                    "{} {} answered {code}, expected {}",
                    req.method, path, req.expect_status
                )
            }
            Err(e) => last = format!("{} {}: {e}", req.method, path),
        }
        if !service.is_alive() {
            return Err(format!(
                "the service exited{} ({})",
                service.site_words(),
                service.exit_text()
            ));
        }
        std::thread::sleep(if first_try.elapsed() < FAST_RETRY_FOR {
            FIRST_REQUEST_RETRY
        } else {
            SLOW_RETRY
        });
    }
    Err(last)
}
