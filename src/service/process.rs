//! One running service: start, health, liveness, stop.
use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::ServiceError;
use super::contain::{fresh_cgroup, with_oom};
use super::guard::Guard;
use super::log_cap::CappedLog;
use super::port::{PortInUse, PortMoment, check_port_free, port_is_free};
use crate::cgroup::{Limits, ServiceCgroup};
use crate::plan::StopPlan;
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
    /// Run directly when it needs no shell, else with `sh -c` ([`super::launch`]).
    pub command: String,
    /// Added to the runner's environment.
    pub env: BTreeMap<String, String>,
    pub port: u16,
    /// CPU pinning of the whole service (inherited by all its threads;
    /// also its cgroup's cpuset where the host has one).
    pub cpus: Option<Vec<usize>>,
    /// CPU and memory limits of its cgroup (empty: none).
    pub limits: Limits,
    /// Bytes kept of the head and of the tail of this start's log.
    pub log_cap: u64,
    /// A scratch folder made afresh for this start, with its rendered
    /// files, and removed after its stop (`None`: none).
    pub scratch: Option<crate::plan::ScratchPlan>,
    /// The run's certificate, key and CA, written into the scratch folder
    /// of a start that serves TLS (`scratch.tls`).
    pub tls: Option<crate::certs::ServerFiles>,
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
            limits: Limits::default(),
            log_cap: rt.log_cap_bytes,
            scratch: rt.scratch.clone(),
            tls: None,
        }
    }

    /// With the run's certificate files for a start that serves TLS.
    pub fn with_tls(self, tls: Option<&crate::certs::ServerFiles>) -> Self {
        let serves_tls = self.scratch.as_ref().is_some_and(|s| s.tls);
        ServiceCommand {
            tls: tls.filter(|_| serves_tls).cloned(),
            ..self
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
    /// This start's cgroup, when the host allows cgroups.
    cgroup: Option<ServiceCgroup>,
    /// This start's scratch folder, removed after the stop (or by its guard).
    scratch: Option<super::scratch::Scratch>,
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
        let launch = super::launch::launch(&command.command);
        writeln!(
            file,
            "=== runner: starting {} at {} {}: {}",
            command.runtime,
            crate::results::rfc3339_now(),
            launch.words(),
            command.command
        )
        .map_err(log_err)?;
        let scratch = command
            .scratch
            .as_ref()
            .map(|plan| super::scratch::Scratch::with_files(plan, None, command.tls.as_ref()))
            .transpose()
            .map_err(|source| ServiceError::Scratch {
                runtime: command.runtime.clone(),
                path: command
                    .scratch
                    .as_ref()
                    .map(|s| s.path.clone())
                    .unwrap_or_default(),
                source,
            })?;
        let (log_sink, stdout, stderr) =
            CappedLog::start(file, log, command.log_cap).map_err(log_err)?;
        let mut cmd = match &launch {
            super::launch::Launch::Direct(argv) => {
                let mut cmd = Command::new(&argv[0]);
                cmd.args(&argv[1..]);
                cmd
            }
            super::launch::Launch::Shell(text) => {
                let mut cmd = Command::new("sh");
                cmd.arg("-c").arg(text);
                cmd
            }
        };
        // Nothing inherited: `command.env` is the whole environment, made
        // by `process::env::command_env`.
        cmd.current_dir(&command.dir)
            .env_clear()
            .envs(&command.env)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr);
        let mut cgroup = fresh_cgroup(command)?;
        let how = Containment {
            new_session: true,
            die_with_runner: true,
            cpus: command.cpus.clone(),
            cgroup_procs: cgroup
                .as_ref()
                .map(ServiceCgroup::procs_files)
                .unwrap_or_default(),
        };
        let spawned_at = Instant::now();
        let child = spawn_contained(cmd, &how).map_err(|source| {
            if let Some(c) = cgroup.as_mut() {
                let _ = c.remove();
            }
            ServiceError::Spawn {
                runtime: command.runtime.clone(),
                command: command.command.clone(),
                dir: command.dir.clone(),
                source,
            }
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
            cgroup,
            scratch,
        };
        let (kill, dirs) = service
            .cgroup
            .as_ref()
            .map(ServiceCgroup::guard_targets)
            .unwrap_or_default();
        match Guard::arm_with_cgroup(sid, kill.as_deref(), &dirs) {
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

    /// What was started: its dir and environment are also a health command's.
    pub fn command(&self) -> &ServiceCommand {
        &self.command
    }

    pub fn runtime(&self) -> &str {
        &self.command.runtime
    }

    /// This start's cgroup (`None` where the host allows none).
    pub fn cgroup(&self) -> Option<&ServiceCgroup> {
        self.cgroup.as_ref()
    }

    /// What the service's first process sees of its limits.
    pub fn seen(&self) -> crate::cgroup::Seen {
        super::contain::seen(self.cgroup.as_ref(), self.sid)
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

    /// Its memory now, every process of its session and its cgroup.
    pub fn memory(&self) -> crate::sample::MemoryReading {
        let files = self.cgroup().map(|c| c.usage_files());
        crate::sample::MemoryReading::read(self.sid, files.as_ref())
    }

    /// The pids of its processes now: its session's, and its cgroup's (a
    /// daemon that left the session stays in the cgroup).
    pub fn pids(&self) -> Vec<i32> {
        let mut pids = crate::sample::session_pids(self.sid);
        if let Some(dir) = self.cgroup().and_then(|c| c.main_dir()) {
            pids.extend(crate::cgroup::files::pids_in(dir));
        }
        pids.sort_unstable();
        pids.dedup();
        pids
    }

    /// A thread dump of its JVM into `to` ([`super::thread_dump`]).
    pub fn thread_dump(
        &self,
        jdk_home: &Path,
        major: u32,
        to: &Path,
    ) -> Result<PathBuf, super::thread_dump::ThreadDumpError> {
        super::thread_dump::dump_jvm_threads(&self.pids(), jdk_home, major, to)
    }

    /// Alive = the start shell has not exited and the session has a live process.
    pub fn is_alive(&mut self) -> bool {
        self.exited().is_none() && session_alive(self.sid)
    }

    /// The exit status as text, or `running`; with the OOM kill when the
    /// kernel ended a process of the service's cgroup for memory.
    pub fn exit_text(&mut self) -> String {
        let exit = self
            .exited()
            .map_or_else(|| "running".into(), describe_exit);
        with_oom(exit, self.cgroup.as_ref())
    }

    /// Stops the service: the declared signal to the whole group (and to
    /// every process of its cgroup), up to `grace` for it to exit, then
    /// SIGKILL to the group and the whole cgroup; reaps it, checks the
    /// cgroup is empty and removes it, and confirms that the port is free
    /// before returning.
    pub fn stop(mut self, plan: &StopPlan) -> Result<StopReport, ServiceError> {
        let kind = if !self.is_alive() {
            self.kill_now();
            StopKind::Died
        } else {
            signal_group(self.sid, plan.signal);
            if let Some(c) = &self.cgroup {
                c.signal_all(plan.signal);
            }
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
        self.end_cgroup()?;
        if let Some(scratch) = self.scratch.take() {
            let path = scratch.path().to_path_buf();
            scratch.remove().map_err(|source| ServiceError::Scratch {
                runtime: self.command.runtime.clone(),
                path,
                source,
            })?;
        }
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

    /// Kills what is left in the cgroup, checks it is empty, removes it.
    fn end_cgroup(&mut self) -> Result<(), ServiceError> {
        let Some(mut cgroup) = self.cgroup.take() else {
            return Ok(());
        };
        let runtime = self.command.runtime.clone();
        let error = |source| ServiceError::Cgroup {
            runtime: runtime.clone(),
            source,
        };
        cgroup
            .kill_until_empty(Duration::from_secs(5))
            .map_err(&error)?;
        cgroup.remove().map_err(error)
    }

    /// Waits until the shell exited and no process of the session (nor of
    /// the cgroup) is alive.
    fn wait_group_gone(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            let shell_done = self.exited().is_some();
            let cgroup_empty = self.cgroup.as_ref().is_none_or(ServiceCgroup::is_empty);
            if shell_done && !session_alive(self.sid) && cgroup_empty {
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
        if let Some(c) = &self.cgroup {
            c.kill_all();
        }
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
            let _ = self.end_cgroup();
            g.disarm();
        }
        self.log_sink.finish(LOG_END_WAIT);
    }
}
