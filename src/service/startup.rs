//! Startup to the millisecond: spawn -> the port accepts a TCP connection
//! (polled every [`PORT_POLL`]) -> the readiness check passes (an HTTP
//! health check polled every [`HEALTH_POLL`] from the moment the port
//! accepts; `tcp: true` passes with the port; a `command` is tried from the
//! spawn at the spec's interval, the port not waited for).
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
use std::path::Path;
use std::time::{Duration, Instant};

use super::ServiceError;
use super::process::{Service, ServiceCommand, StopReport};
use super::readiness::{Attempt, Poll, Stop};
use crate::plan::{HealthCheck, HealthPlan, StopPlan};

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
    /// The port accepted a TCP connection (`None`: a `command` check, which
    /// does not wait for the port).
    pub port: Option<Duration>,
    /// The readiness check passed.
    pub healthy: Duration,
}

/// A start that never became ready: why, and how what had been spawned was
/// stopped (`None`: nothing was spawned).
#[derive(Debug)]
pub struct NotReady {
    pub error: ServiceError,
    pub stopped: Option<Result<StopReport, ServiceError>>,
}

impl Service {
    /// Spawn, then wait until ready: the one way every start goes (measured,
    /// cold and memory starts, training, `runner verify`, dependencies, a
    /// service host's start). A service that does not become ready is
    /// stopped with `stop` before this returns, so that its port is free for
    /// the next start and its log is complete; the caller records the stop.
    pub fn start_ready(
        command: &ServiceCommand,
        log: &Path,
        health: &HealthPlan,
        stop: &StopPlan,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<(Service, StartupTimes), Box<NotReady>> {
        let mut service = Service::start(command, log).map_err(|error| NotReady {
            error,
            stopped: None,
        })?;
        match service.wait_ready(health, cancelled) {
            Ok(times) => Ok((service, times)),
            Err(error) => Err(Box::new(NotReady {
                error,
                stopped: Some(service.stop(stop)),
            })),
        }
    }

    /// Waits until `health` passes (the port first, unless the check is a
    /// command); gives up with `Cancelled` when `cancelled()`,
    /// `ExitedBeforeHealthy` when the service exits, `WrongPort` when it
    /// listens elsewhere, a timeout error after `health.timeout` from the spawn.
    pub fn wait_ready(
        &mut self,
        health: &HealthPlan,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<StartupTimes, ServiceError> {
        let deadline = self.spawned_at() + health.timeout;
        let fail = |s: &Service, stop| s.not_ready(stop, &health.check, health.timeout);
        let port = match &health.check {
            HealthCheck::Command(_) => None,
            _ => Some(
                self.poll_port(deadline, cancelled)
                    .map_err(|stop| fail(self, stop))?,
            ),
        };
        if health.check == HealthCheck::Tcp {
            let open = port.unwrap_or_default();
            return Ok(StartupTimes {
                port,
                healthy: open,
            });
        }
        let fast_until = self.spawned_at() + port.unwrap_or_default() + FAST_HEALTH_FOR;
        let fast = matches!(health.check, HealthCheck::Http(_));
        let pause = |now: Instant| {
            if fast && now < fast_until {
                HEALTH_POLL
            } else {
                health.interval
            }
        };
        let poll = Poll {
            deadline,
            attempt: Attempt::Short,
            pause: &pause,
            cancelled,
        };
        self.poll_check(health, &poll)
            .map_err(|stop| fail(self, stop))?;
        Ok(StartupTimes {
            port,
            healthy: self.spawned_at().elapsed(),
        })
    }

    /// [`Service::wait_ready`] without a cancel, its time to ready.
    pub fn wait_healthy(&mut self, health: &HealthPlan) -> Result<Duration, ServiceError> {
        self.wait_ready(health, &|| false).map(|t| t.healthy)
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
}
