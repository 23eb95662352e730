//! One try of a readiness check ([`HealthCheck`]: a GET that must answer
//! 200, a TCP connect, a command that must exit 0) and the one loop that
//! repeats it, for a start ([`super::startup`]) and between cells
//! ([`Service::still_healthy`]), for runtimes and dependencies alike.
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::ServiceError;
use super::http_probe::{HttpProbeError, http_status};
use super::process::Service;
use crate::plan::{HealthCheck, HealthPlan};
use crate::process::describe_exit;

/// What stopped a poll before its check passed.
pub(super) enum Stop {
    Exited(String),
    Cancelled,
    /// The deadline passed; the last try's answer.
    TimedOut(String),
}

/// How long one try may take before the next one is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Attempt {
    /// While a service starts: short tries (`health.interval`, 200 ms to
    /// 2 s), since a request sent while the port was only half ready may
    /// never be answered and the next one would be.
    Short,
    /// Between cells: one try may wait until the deadline, since a service
    /// answering slowly is not hung, and 200 ms tries would each be
    /// abandoned and queued behind the backlog they were meant to measure.
    UntilDeadline,
}

impl Attempt {
    fn limit(self, health: &HealthPlan, deadline: Instant) -> Duration {
        let short = health
            .interval
            .clamp(Duration::from_millis(200), Duration::from_secs(2));
        match self {
            Attempt::Short => short,
            // Up to the next tenth of a second, so that the last answer
            // reads "within 10s", not "within 9.999994852s".
            Attempt::UntilDeadline => {
                let left = deadline.saturating_duration_since(Instant::now());
                Duration::from_millis(left.as_millis().div_ceil(100) as u64 * 100).max(short)
            }
        }
    }
}

/// A poll: until when, how long each try may take, and the pause after a
/// failed try at a moment (the start-up poll is fast for its first second).
pub(super) struct Poll<'a> {
    pub deadline: Instant,
    pub attempt: Attempt,
    pub pause: &'a dyn Fn(Instant) -> Duration,
    pub cancelled: &'a dyn Fn() -> bool,
}

impl Service {
    /// Checks, between cells, that a running service still passes its
    /// readiness check (polling for up to `within`). A hung service
    /// (deadlock, a pool exhausted, a stuck collector) stays alive, so only
    /// this notices it. A try may take all of `within`
    /// ([`Attempt::UntilDeadline`]): a service still draining the backlog of
    /// a cell that overloaded it answers late, and late is not hung.
    pub fn still_healthy(
        &mut self,
        health: &HealthPlan,
        within: Duration,
    ) -> Result<(), ServiceError> {
        let poll = Poll {
            deadline: Instant::now() + within,
            attempt: Attempt::UntilDeadline,
            pause: &|_| health.interval,
            cancelled: &|| false,
        };
        self.poll_check(health, &poll)
            .map_err(|stop| self.not_ready(stop, &health.check, within))
    }

    /// Tries `health.check` until it passes, the service exits, `cancelled`,
    /// or the deadline.
    pub(super) fn poll_check(&mut self, health: &HealthPlan, poll: &Poll) -> Result<(), Stop> {
        loop {
            self.check_going(poll.cancelled)?;
            let per_try = poll.attempt.limit(health, poll.deadline);
            let last = match self.try_check(&health.check, per_try) {
                Ok(()) => return Ok(()),
                Err(why) => why,
            };
            let now = Instant::now();
            if now >= poll.deadline {
                return Err(Stop::TimedOut(last));
            }
            std::thread::sleep((poll.pause)(now).min(poll.deadline - now));
        }
    }

    /// `Err(Stop)` once the service exited or the caller cancelled.
    pub(super) fn check_going(&mut self, cancelled: &dyn Fn() -> bool) -> Result<(), Stop> {
        if cancelled() {
            return Err(Stop::Cancelled);
        }
        match self.exited() {
            Some(status) => Err(Stop::Exited(super::contain::with_oom(
                describe_exit(status),
                self.cgroup(),
            ))),
            None => Ok(()),
        }
    }

    /// One try of `check`, taking at most `per_try`: `Err` says what it got.
    fn try_check(&self, check: &HealthCheck, per_try: Duration) -> Result<(), String> {
        match check {
            HealthCheck::Http(path) => {
                let tls = self.serves_tls();
                match http_status(self.addr(), "GET", path, &[], None, (per_try, tls)) {
                    Ok(200) => Ok(()),
                    Ok(code) => Err(format!("status {code}")),
                    Err(HttpProbeError::Refused) => Err("connection refused".into()),
                    Err(e) => Err(e.to_string()),
                }
            }
            HealthCheck::Tcp => TcpStream::connect_timeout(&self.addr(), per_try)
                .map(drop)
                .map_err(|e| e.to_string()),
            HealthCheck::Command(command) => {
                run_check(&self.command().dir, command, &self.command().env, per_try)
            }
        }
    }

    /// What `check` waits for, in words: `answering http://…/health`.
    fn check_words(&self, check: &HealthCheck) -> String {
        match check {
            HealthCheck::Http(path) => {
                format!("answering {}://{}{path}", self.scheme(), self.addr())
            }
            HealthCheck::Tcp => format!("accepting connections on {}", self.addr()),
            HealthCheck::Command(c) => format!("passing its health command `{c}`"),
        }
    }

    /// The error for a poll of `check` stopped by `stop` after `timeout`.
    pub(super) fn not_ready(
        &self,
        stop: Stop,
        check: &HealthCheck,
        timeout: Duration,
    ) -> ServiceError {
        let runtime = self.runtime().to_string();
        match stop {
            Stop::Cancelled => ServiceError::Cancelled { runtime },
            Stop::Exited(status) => ServiceError::ExitedBeforeHealthy {
                runtime,
                status,
                what: self.check_words(check),
                log: self.log().to_path_buf(),
                tail: self.log_tail(),
            },
            Stop::TimedOut(last) => {
                if let Some(wrong) = self.wrong_port(timeout) {
                    return wrong;
                }
                let log = self.log().to_path_buf();
                let not_ready = |what: String| {
                    ServiceError::NotReady(Box::new(super::error::NotReady {
                        runtime: runtime.clone(),
                        what,
                        timeout,
                        last: last.clone(),
                        log: log.clone(),
                        tail: self.log_tail(),
                    }))
                };
                match check {
                    HealthCheck::Http(path) => ServiceError::HealthTimeout {
                        url: format!("{}://{}{path}", self.scheme(), self.addr()),
                        runtime,
                        timeout,
                        last,
                        log,
                    },
                    HealthCheck::Tcp => not_ready(format!("a TCP connect to {}", self.addr())),
                    HealthCheck::Command(c) => not_ready(format!("the health command `{c}`")),
                }
            }
        }
    }

    /// When the port is not open: `WrongPort` if the service listens on
    /// other ports (and not on its own), naming them.
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
}

/// One run of a health command in `dir` with `env` added, in its own
/// process group (killed whole if it takes longer than `within`): `Ok` on
/// exit 0, else its exit and the first line it wrote to stderr.
fn run_check(
    dir: &Path,
    command: &str,
    env: &std::collections::BTreeMap<String, String>,
    within: Duration,
) -> Result<(), String> {
    let mut child = Command::new("sh")
        .args(["-c", command])
        .current_dir(dir)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot run it: {e}"))?;
    let deadline = Instant::now() + within;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                // SAFETY: kill(2) on the process group this call created.
                unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                let _ = child.wait();
                return Err(format!("it did not finish within {within:?}"));
            }
        }
    };
    if status.success() {
        return Ok(());
    }
    let mut said = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut std::io::Read::take(&mut err, 4096), &mut said);
    }
    let first = said.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    Err(if first.is_empty() {
        describe_exit(status)
    } else {
        format!("{}: {}", describe_exit(status), first.trim())
    })
}

impl Service {
    /// Whether this start serves TLS (it was given the run's certificate):
    /// its readiness is then asked over TLS.
    fn serves_tls(&self) -> bool {
        self.command().tls.is_some()
    }

    fn scheme(&self) -> &'static str {
        if self.serves_tls() { "https" } else { "http" }
    }
}
