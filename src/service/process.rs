//! One running service: start, health, liveness, stop.
use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::ServiceError;
use super::guard::Guard;
use super::http_probe::{HttpProbeError, http_status};
use super::log_cap::CappedLog;
use super::port::{PortInUse, PortMoment, check_port_free, port_is_free};
use crate::plan::{HealthPlan, StopPlan};
use crate::process::{Containment, describe_exit, runtime_env, signal_group, spawn_contained};
use crate::sample::procfs::{session_alive, session_pids};

/// Lines of the service log quoted when it fails.
pub const TAIL_LINES: usize = 15;
/// How long a stopped service's output may take to reach its end (a
/// process that escaped the group may hold it open: its tail is written then).
const LOG_END_WAIT: Duration = Duration::from_secs(2);

/// What to start: a shell command in a directory with added environment.
#[derive(Debug, Clone)]
pub struct ServiceCommand {
    /// The runtime's name, for logs and messages.
    pub runtime: String,
    pub dir: PathBuf,
    /// Run with `sh -c`.
    pub command: String,
    /// Added to the runner's environment.
    pub env: BTreeMap<String, String>,
    pub port: u16,
    /// CPU pinning of the whole service (inherited by all its threads).
    pub cpus: Option<Vec<usize>>,
    /// Bytes kept of the head and of the tail of this start's log.
    pub log_cap: u64,
}

impl ServiceCommand {
    /// The runtime's measured start: its `start` command with its env (plus
    /// `JAVA_HOME` for a resolved JDK), on its port, optionally pinned.
    pub fn measured(rt: &crate::plan::RuntimePlan, cpus: Option<Vec<usize>>) -> Self {
        ServiceCommand {
            runtime: rt.name.clone(),
            dir: rt.dir.clone(),
            command: rt.start.clone(),
            env: runtime_env(rt),
            port: rt.port,
            cpus,
            log_cap: rt.log_cap_bytes,
        }
    }
}

/// How a service ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopKind {
    /// Exited within the grace period after the stop signal.
    Graceful,
    /// Still running after the grace period: SIGKILLed.
    Killed,
    /// Had already exited before it was asked to stop.
    Died,
}

impl StopKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StopKind::Graceful => "graceful",
            StopKind::Killed => "killed",
            StopKind::Died => "died",
        }
    }
}

#[derive(Debug, Clone)]
pub struct StopReport {
    pub kind: StopKind,
    /// e.g. `exit code 0`, `signal 15 (TERM)`.
    pub exit_status: String,
    /// Bytes of the log dropped by the log cap (0: all kept).
    pub log_dropped_bytes: u64,
}

/// A started service. Dropping it without [`Service::stop`] SIGKILLs its group.
pub struct Service {
    command: ServiceCommand,
    child: Child,
    sid: i32,
    spawned_at: Instant,
    log: PathBuf,
    log_sink: CappedLog,
    guard: Option<Guard>,
    exit: Option<ExitStatus>,
}

impl Service {
    /// Spawns `sh -c <command>` in its own session, output appended to `log`.
    /// Refuses to start when the port is already taken: a program listening
    /// there would answer the health check and be measured in its place.
    pub fn start(command: &ServiceCommand, log: &Path) -> Result<Service, ServiceError> {
        check_port_free(&command.runtime, command.port)?;
        let log_err = |source| ServiceError::Log {
            runtime: command.runtime.clone(),
            path: log.to_path_buf(),
            source,
        };
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .map_err(log_err)?;
        writeln!(
            file,
            "=== runner: starting {} at {}: {}",
            command.runtime,
            crate::results::rfc3339_now(),
            command.command
        )
        .map_err(log_err)?;
        let (log_sink, stdout, stderr) =
            CappedLog::start(file, log, command.log_cap).map_err(log_err)?;
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(&command.command)
            .current_dir(&command.dir)
            .envs(&command.env)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr);
        let how = Containment {
            new_session: true,
            die_with_runner: true,
            cpus: command.cpus.clone(),
        };
        let spawned_at = Instant::now();
        let child = spawn_contained(cmd, &how).map_err(|source| ServiceError::Spawn {
            runtime: command.runtime.clone(),
            command: command.command.clone(),
            dir: command.dir.clone(),
            source,
        })?;
        let sid = child.id() as i32;
        let mut service = Service {
            command: command.clone(),
            child,
            sid,
            spawned_at,
            log: log.to_path_buf(),
            log_sink,
            guard: None,
            exit: None,
        };
        match Guard::arm(sid) {
            Ok(g) => service.guard = Some(g),
            Err(source) => {
                service.kill_now();
                return Err(ServiceError::Spawn {
                    runtime: command.runtime.clone(),
                    command: "the runner's guard process (sh)".into(),
                    dir: command.dir.clone(),
                    source,
                });
            }
        }
        Ok(service)
    }

    /// The session (= process group) id of the service.
    pub fn sid(&self) -> i32 {
        self.sid
    }

    pub fn spawned_at(&self) -> Instant {
        self.spawned_at
    }

    pub fn log(&self) -> &Path {
        &self.log
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from((Ipv4Addr::LOCALHOST, self.command.port))
    }

    pub fn runtime(&self) -> &str {
        &self.command.runtime
    }

    /// The last lines of the service log (while it runs, from the capped
    /// log's memory: the file then holds only the log's head).
    pub fn log_tail(&self) -> String {
        self.log_sink.tail(TAIL_LINES)
    }

    /// The start shell's exit status, once it has exited (reaps it).
    pub fn exited(&mut self) -> Option<ExitStatus> {
        if self.exit.is_none() {
            self.exit = self.child.try_wait().ok().flatten();
        }
        self.exit
    }

    /// Alive = the start shell has not exited and the session has a live process.
    pub fn is_alive(&mut self) -> bool {
        self.exited().is_none() && session_alive(self.sid)
    }

    /// The exit status as text, or `running`.
    pub fn exit_text(&mut self) -> String {
        self.exited()
            .map_or_else(|| "running".into(), describe_exit)
    }

    /// Polls GET `health.path` until it answers 200; returns spawn -> healthy.
    pub fn wait_healthy(&mut self, health: &HealthPlan) -> Result<Duration, ServiceError> {
        self.wait_healthy_unless(health, &|| false)
    }

    /// [`Service::wait_healthy`], giving up with `Cancelled` as soon as
    /// `cancelled()` returns true (checked at every poll).
    pub fn wait_healthy_unless(
        &mut self,
        health: &HealthPlan,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Duration, ServiceError> {
        self.poll_health(health, self.spawned_at, health.timeout, cancelled)?;
        Ok(self.spawned_at.elapsed())
    }

    /// Checks, between cells, that a running service still answers its health
    /// check (polling for up to `within`). A hung service (deadlock, a pool
    /// exhausted, a stuck collector) stays alive, so only this notices it.
    pub fn still_healthy(
        &mut self,
        health: &HealthPlan,
        within: Duration,
    ) -> Result<(), ServiceError> {
        self.poll_health(health, Instant::now(), within, &|| false)
    }

    /// Polls GET `health.path` every `health.interval` until it answers 200,
    /// the service exits, `cancelled()`, or `timeout` after `since`.
    fn poll_health(
        &mut self,
        health: &HealthPlan,
        since: Instant,
        timeout: Duration,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<(), ServiceError> {
        let url = format!("http://{}{}", self.addr(), health.path);
        let deadline = since + timeout;
        let per_try = health
            .interval
            .clamp(Duration::from_millis(200), Duration::from_secs(2));
        loop {
            if cancelled() {
                return Err(ServiceError::Cancelled {
                    runtime: self.command.runtime.clone(),
                });
            }
            if let Some(status) = self.exited() {
                return Err(ServiceError::ExitedBeforeHealthy {
                    runtime: self.command.runtime.clone(),
                    status: describe_exit(status),
                    url,
                    log: self.log.clone(),
                    tail: self.log_tail(),
                });
            }
            let last = match http_status(self.addr(), "GET", &health.path, &[], None, per_try) {
                Ok(200) => return Ok(()),
                Ok(code) => format!("status {code}"),
                Err(HttpProbeError::Refused) => "connection refused".into(),
                Err(e) => e.to_string(),
            };
            if Instant::now() >= deadline {
                return Err(ServiceError::HealthTimeout {
                    runtime: self.command.runtime.clone(),
                    url,
                    timeout,
                    last,
                    log: self.log.clone(),
                });
            }
            std::thread::sleep(
                health
                    .interval
                    .min(deadline.saturating_duration_since(Instant::now())),
            );
        }
    }

    /// Stops the service: the declared signal to the whole group, up to
    /// `grace` for it to exit, then SIGKILL; reaps it and confirms that the
    /// port is free before returning.
    pub fn stop(mut self, plan: &StopPlan) -> Result<StopReport, ServiceError> {
        let kind = if !self.is_alive() {
            self.kill_now();
            StopKind::Died
        } else {
            signal_group(self.sid, plan.signal);
            if self.wait_group_gone(plan.grace) {
                StopKind::Graceful
            } else {
                self.kill_now();
                StopKind::Killed
            }
        };
        if !self.wait_group_gone(Duration::from_secs(5)) {
            return Err(ServiceError::Unkillable {
                runtime: self.command.runtime.clone(),
                sid: self.sid,
                pids: session_pids(self.sid),
            });
        }
        let exit_status = self.exit_text();
        if let Some(g) = self.guard.take() {
            g.disarm();
        }
        let log_dropped_bytes = self.log_sink.finish(LOG_END_WAIT);
        self.wait_port_free(Duration::from_secs(5))?;
        Ok(StopReport {
            kind,
            exit_status,
            log_dropped_bytes,
        })
    }

    fn wait_port_free(&self, timeout: Duration) -> Result<(), ServiceError> {
        let deadline = Instant::now() + timeout;
        while !port_is_free(self.command.port) {
            if Instant::now() >= deadline {
                return Err(ServiceError::PortInUse(PortInUse {
                    runtime: self.command.runtime.clone(),
                    port: self.command.port,
                    moment: PortMoment::AfterStop,
                }));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }

    /// Waits until the shell exited and no process of the session is alive.
    fn wait_group_gone(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            let shell_done = self.exited().is_some();
            if shell_done && !session_alive(self.sid) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn kill_now(&mut self) {
        signal_group(self.sid, libc::SIGKILL);
        if self.exit.is_none() {
            let _ = self.child.kill();
            self.exit = self.child.wait().ok();
        }
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        if let Some(g) = self.guard.take() {
            self.kill_now();
            self.wait_group_gone(Duration::from_secs(5));
            g.disarm();
        }
        self.log_sink.finish(LOG_END_WAIT);
    }
}
