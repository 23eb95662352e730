//! Startup to the millisecond: spawn -> the port accepts a TCP connection
//! (polled every [`PORT_POLL`]) -> the first 200 from the health check
//! (polled every [`HEALTH_POLL`] from the moment the port accepts).
//!
//! Polling health at the spec's `interval` (100 ms by default) rounds a
//! start up to the next poll: a Go service that listens 10 ms after spawn
//! read 106 ms. A refused connect to a closed loopback port costs a few
//! microseconds, so polling the port every millisecond is cheap; the health
//! check is a full HTTP request on a new connection (each leaves a socket in
//! TIME_WAIT), so it is polled every millisecond only for [`FAST_HEALTH_FOR`]
//! after the port opened (a service that accepts but is not yet healthy, e.g.
//! still warming a cache), then at the spec's interval.
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::ServiceError;
use super::http_probe::{HttpProbeError, http_status};
use super::process::Service;
use crate::plan::HealthPlan;
use crate::process::describe_exit;

/// How often the port is tried until it accepts.
pub const PORT_POLL: Duration = Duration::from_millis(1);
/// How often health is tried once the port accepts, for [`FAST_HEALTH_FOR`].
pub const HEALTH_POLL: Duration = Duration::from_millis(1);
/// After this long of non-200 answers, health is polled at the spec's interval.
pub const FAST_HEALTH_FOR: Duration = Duration::from_secs(1);
/// One connect attempt to the port; loopback answers at once.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(100);

/// The times of one start, each from the spawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StartupTimes {
    /// The port accepted a TCP connection.
    pub port: Duration,
    /// The health check answered 200.
    pub healthy: Duration,
}

/// What stopped a poll before it succeeded.
enum Stop {
    Exited(String),
    Cancelled,
    TimedOut(String),
}

impl Service {
    /// Waits for the port, then for a 200 from health; gives up with
    /// `Cancelled` when `cancelled()`, `ExitedBeforeHealthy` when the service
    /// exits, `HealthTimeout` after `health.timeout` from the spawn.
    pub fn wait_ready(
        &mut self,
        health: &HealthPlan,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<StartupTimes, ServiceError> {
        let deadline = self.spawned_at() + health.timeout;
        let url = format!("http://{}{}", self.addr(), health.path);
        let port = self.poll_port(deadline, cancelled).map_err(|stop| {
            match stop {
                Stop::TimedOut(_) => self.wrong_port(health.timeout),
                _ => None,
            }
            .unwrap_or_else(|| self.error(stop, &url, health))
        })?;
        let healthy = self
            .poll_health_from(port, health, deadline, cancelled)
            .map_err(|stop| self.error(stop, &url, health))?;
        Ok(StartupTimes { port, healthy })
    }

    fn poll_port(
        &mut self,
        deadline: Instant,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Duration, Stop> {
        let addr = self.addr();
        loop {
            self.check_going(cancelled)?;
            match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
                Ok(_) => return Ok(self.spawned_at().elapsed()),
                Err(e) if Instant::now() >= deadline => {
                    return Err(Stop::TimedOut(format!("port {}: {e}", addr.port())));
                }
                Err(_) => std::thread::sleep(PORT_POLL),
            }
        }
    }

    fn poll_health_from(
        &mut self,
        port_open: Duration,
        health: &HealthPlan,
        deadline: Instant,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Duration, Stop> {
        let fast_until = self.spawned_at() + port_open + FAST_HEALTH_FOR;
        let per_try = super::process::short_try(health);
        loop {
            self.check_going(cancelled)?;
            let last = match http_status(self.addr(), "GET", &health.path, &[], None, per_try) {
                Ok(200) => return Ok(self.spawned_at().elapsed()),
                Ok(code) => format!("status {code}"),
                Err(HttpProbeError::Refused) => "connection refused".into(),
                Err(e) => e.to_string(),
            };
            let now = Instant::now();
            if now >= deadline {
                return Err(Stop::TimedOut(last));
            }
            let nap = if now < fast_until {
                HEALTH_POLL
            } else {
                health.interval
            };
            std::thread::sleep(nap.min(deadline - now));
        }
    }

    fn check_going(&mut self, cancelled: &dyn Fn() -> bool) -> Result<(), Stop> {
        if cancelled() {
            return Err(Stop::Cancelled);
        }
        match self.exited() {
            Some(status) => Err(Stop::Exited(describe_exit(status))),
            None => Ok(()),
        }
    }

    /// When the port never opened within `timeout`: `WrongPort` if the
    /// service listens on other ports (and not on its own), naming them.
    pub(super) fn wrong_port(&self, timeout: Duration) -> Option<ServiceError> {
        let listening = super::listening::listening_addrs(&self.pids());
        let port = self.addr().port();
        if listening.is_empty() || listening.iter().any(|a| a.port() == port) {
            return None;
        }
        let listening: Vec<String> = listening.iter().map(|a| a.to_string()).collect();
        Some(ServiceError::WrongPort {
            runtime: self.runtime().to_string(),
            port,
            timeout,
            listening: listening.join(", "),
            log: self.log().to_path_buf(),
        })
    }

    fn error(&self, stop: Stop, url: &str, health: &HealthPlan) -> ServiceError {
        let runtime = self.runtime().to_string();
        match stop {
            Stop::Cancelled => ServiceError::Cancelled { runtime },
            Stop::Exited(status) => ServiceError::ExitedBeforeHealthy {
                runtime,
                status,
                url: url.to_string(),
                log: self.log().to_path_buf(),
                tail: self.log_tail(),
            },
            Stop::TimedOut(last) => ServiceError::HealthTimeout {
                runtime,
                url: url.to_string(),
                timeout: health.timeout,
                last,
                log: self.log().to_path_buf(),
            },
        }
    }
}
