//! The far side of a service host: `runner remote` builds a runtime from the
//! sources copied there and runs its service with the same code as a local
//! run (`build::run_logged` and the build cache's record, `service::Service`:
//! own process group and cgroup, a guard that kills both if this process
//! dies, graceful stop then SIGKILL), health-checked and sampled here, on
//! the host it runs on.
//!
//! Nothing outlives the session: the one [`ServiceHost`] lives in
//! [`crate::remote::server::serve`], which returns when the session's stdin closes;
//! dropping it stops the sampler and drops the `Service`, which SIGKILLs its
//! group and its cgroup. If this process is SIGKILLed instead (its parent
//! sshd died: `PR_SET_PDEATHSIG`), the service's guard does the same.
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crate::build::{BuildCache, CacheRecord, input_hash, run_logged};
use crate::cgroup::Limits;
use crate::plan::{HealthPlan, StopPlan};
use crate::remote::error::RemoteError;
use crate::remote::protocol::{Response, send};
use crate::remote::service_hosts::dependency_host::DependencyHost;
use crate::remote::service_hosts::service_wire::{
    LOG_CHUNK, ServiceAnswer, ServiceCall, WireBuild, WireStart,
};
use crate::sample::Sampler;
use crate::sample::host_cpu::HostWindow;
use crate::sample::procfs::session_usage;
use crate::service::{Service, ServiceCommand};

/// How often a running build's new log bytes are sent back.
const LOG_EVERY: Duration = Duration::from_millis(500);

/// The service this session started (at most one at a time) and its sampler.
#[derive(Default)]
pub struct ServiceHost {
    service: Option<Service>,
    health: Option<HealthPlan>,
    sampler: Option<Sampler>,
    /// This host's CPU counters since the sampler started.
    host_window: Option<HostWindow>,
    /// The log of the service started last, readable after its stop too.
    last_log: Option<PathBuf>,
    /// The dependencies this session started.
    dependencies: DependencyHost,
}

impl ServiceHost {
    /// Answers one call; `closed()` turns true when the session has ended
    /// (a build or a start in progress then gives up).
    pub fn handle(
        &mut self,
        call: ServiceCall,
        out: &mut impl Write,
        closed: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), RemoteError> {
        let answer = match call {
            ServiceCall::Build(b) => build(&b, out, closed)?,
            ServiceCall::Train(t) => {
                crate::remote::service_hosts::train_host::train(&t, out, closed)
            }
            ServiceCall::TrainCheck(t) => crate::remote::service_hosts::train_host::check(&t),
            ServiceCall::Start(s) => self.start(&s, closed),
            ServiceCall::Alive => match self.service.as_mut() {
                Some(s) => ServiceAnswer::Alive {
                    alive: s.is_alive(),
                    exit: s.exit_text(),
                },
                None => no_service(),
            },
            ServiceCall::StillHealthy { within_ms } => match (&mut self.service, &self.health) {
                (Some(s), Some(h)) => ServiceAnswer::Healthy {
                    why_not: s
                        .still_healthy(h, Duration::from_millis(within_ms))
                        .err()
                        .map(|e| e.to_string()),
                },
                _ => no_service(),
            },
            ServiceCall::Usage => match &self.service {
                Some(s) => ServiceAnswer::Usage {
                    rss_bytes: session_usage(s.sid()).rss_bytes,
                },
                None => no_service(),
            },
            ServiceCall::Memory => match &self.service {
                Some(s) => ServiceAnswer::Memory {
                    reading: s.memory(),
                },
                None => no_service(),
            },
            ServiceCall::SampleStart {
                interval_ms,
                dependencies,
            } => match &self.service {
                Some(s) => {
                    let interval = Duration::from_millis(interval_ms.max(1));
                    self.sampler = Some(Sampler::start_with_cgroup(
                        s.sid(),
                        s.cgroup().map(|c| c.usage_files()),
                        interval,
                        Instant::now(),
                        Box::new(|| {}),
                    ));
                    self.dependencies.open_window(&dependencies, interval);
                    // The load runs elsewhere (here or on load hosts), never on this host.
                    self.host_window = Some(HostWindow::open(false));
                    ServiceAnswer::Sampling
                }
                None => no_service(),
            },
            ServiceCall::SampleStop => match self.sampler.take() {
                Some(sampler) => ServiceAnswer::Samples {
                    samples: sampler.finish(),
                    host: self.host_window.take().map(HostWindow::close),
                    dependencies: self.dependencies.close_window(),
                },
                None => failed("no sampler runs: `sample_start` first"),
            },
            ServiceCall::LogFrom {
                from,
                dependency: None,
            } => match &self.last_log {
                Some(log) => log_from(log, from),
                None => no_service(),
            },
            ServiceCall::LogFrom {
                from,
                dependency: Some(name),
            } => match self.dependencies.log(&name) {
                Some(log) => log_from(log, from),
                None => failed(&format!(
                    "dependency `{name}` was not started in this session"
                )),
            },
            ServiceCall::DependencyStart(w) => {
                let (state, dir) = (home_relative(&w.state_dir), home_relative(&w.dir));
                dependency_answer(self.dependencies.start(&w, &state, dir, closed))
            }
            ServiceCall::DependencyReset { name } => {
                dependency_answer(self.dependencies.reset(&name, closed))
            }
            ServiceCall::DependencyCheck { name } => {
                dependency_answer(self.dependencies.check(&name))
            }
            ServiceCall::DependencyStop { name } => ServiceAnswer::Dependency {
                problem: self.dependencies.stop(&name),
            },
            ServiceCall::Stop {
                signal,
                signal_name,
                grace_ms,
            } => self.stop(&StopPlan {
                signal,
                signal_name,
                grace: Duration::from_millis(grace_ms),
            }),
        };
        send(
            out,
            &Response::Service {
                answer: answer.into(),
            },
        )
    }

    fn start(&mut self, w: &WireStart, closed: &dyn Fn() -> bool) -> ServiceAnswer {
        if let Some(old) = self.service.take() {
            // A controlling runner that starts again without a stop: the
            // old service must not run beside the new one.
            let _ = old.stop(&kill());
        }
        let state = home_relative(&w.state_dir);
        let log = state.join("logs").join(format!("{}.log", w.runtime));
        if let Err(e) = std::fs::create_dir_all(state.join("logs")) {
            return failed(&format!(
                "cannot create {}: {e}",
                state.join("logs").display()
            ));
        }
        let command = ServiceCommand {
            runtime: w.runtime.clone(),
            dir: home_relative(&w.dir),
            command: w.command.clone(),
            // This host's own passed variables (its PATH, HOME) under the
            // declared ones, as a start on the controlling host gets that
            // host's: nothing of the controlling host's environment crosses.
            env: crate::process::env::command_env(&w.env, &w.pass_env),
            port: w.port,
            cpus: None,
            limits: Limits {
                cpus: w.limit_cpus,
                memory_bytes: w.limit_memory_bytes,
            },
            log_cap: w.log_cap,
            scratch: w.scratch.clone(),
            tls: w.tls.clone(),
        };
        let health = w.health.clone();
        self.last_log = Some(log.clone());
        // A fresh log per start: this side copies it from its first byte.
        let _ = std::fs::write(&log, b"");
        // What never became ready is killed: the controlling runner decides what comes next.
        let (service, times) = match Service::start_ready(&command, &log, &health, &kill(), closed)
        {
            Ok(started) => started,
            Err(not_ready) => return failed(&not_ready.error.to_string()),
        };
        let answer = ServiceAnswer::Started {
            pid: service.sid(),
            sid: service.sid(),
            cgroup: service
                .cgroup()
                .and_then(|c| c.main_dir())
                .map(|d| d.display().to_string()),
            port_ms: times.port.map(|p| p.as_secs_f64() * 1000.0),
            startup_ms: times.healthy.as_secs_f64() * 1000.0,
        };
        self.service = Some(service);
        self.health = Some(health);
        answer
    }

    fn stop(&mut self, plan: &StopPlan) -> ServiceAnswer {
        if let Some(sampler) = self.sampler.take() {
            sampler.finish();
        }
        let Some(service) = self.service.take() else {
            return no_service();
        };
        match service.stop(plan) {
            Ok(r) => ServiceAnswer::Stopped {
                kind: r.kind.into(),
                exit_status: r.exit_status,
                log_dropped_bytes: r.log_dropped_bytes,
            },
            Err(e) => failed(&e.to_string()),
        }
    }
}

/// A dependency call's outcome on the wire.
fn dependency_answer(outcome: Result<(), String>) -> ServiceAnswer {
    match outcome {
        Ok(()) => ServiceAnswer::Dependency { problem: None },
        Err(message) => ServiceAnswer::Failed { message },
    }
}

fn no_service() -> ServiceAnswer {
    failed("no service runs in this session: `start` it first")
}

pub(super) fn failed(message: &str) -> ServiceAnswer {
    ServiceAnswer::Failed {
        message: message.to_string(),
    }
}

/// `p` as given when absolute, else under this process's working folder
/// (an SSH session starts in the login's home).
pub(super) fn home_relative(p: &str) -> PathBuf {
    let path = Path::new(p);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    }
}

/// Up to [`LOG_CHUNK`] bytes of `log` from `from` on.
fn log_from(log: &Path, from: u64) -> ServiceAnswer {
    let mut text = Vec::new();
    let read = std::fs::File::open(log).and_then(|mut f| {
        f.seek(SeekFrom::Start(from))?;
        f.take(LOG_CHUNK as u64).read_to_end(&mut text)
    });
    match read {
        Ok(n) => ServiceAnswer::Log {
            text: String::from_utf8_lossy(&text).into_owned(),
            next: from + n as u64,
        },
        // Not written yet: nothing to send.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => ServiceAnswer::Log {
            text: String::new(),
            next: from,
        },
        Err(e) => failed(&format!("cannot read {}: {e}", log.display())),
    }
}

/// A build on this host, keyed like a local one (sources + commands + env
/// without `PORT`), its log sent back while it runs.
fn build(
    w: &WireBuild,
    out: &mut impl Write,
    closed: &(dyn Fn() -> bool + Sync),
) -> Result<ServiceAnswer, RemoteError> {
    let state = home_relative(&w.state_dir);
    let dir = home_relative(&w.dir);
    let log = match fresh_log(&state, &format!("build-{}", w.runtime)) {
        Ok(log) => log,
        Err(e) => return Ok(failed(&e)),
    };
    Ok(streamed(&log, out, closed, &|cancelled| {
        build_here(w, &dir, &state, &log, cancelled)
    }))
}

/// `state/logs/<name>.log`, emptied: what is sent back is this call's.
pub(super) fn fresh_log(state: &Path, name: &str) -> Result<PathBuf, String> {
    let logs = state.join("logs");
    if let Err(e) = std::fs::create_dir_all(&logs) {
        return Err(format!("cannot create {}: {e}", logs.display()));
    }
    let log = logs.join(format!("{name}.log"));
    let _ = std::fs::write(&log, b"");
    Ok(log)
}

/// Runs `work` in a thread of its own and sends what it appends to `log`
/// every [`LOG_EVERY`] meanwhile; `work`'s `cancelled()` turns true when
/// the session ends or an answer cannot be sent. Its answer is returned.
pub(super) fn streamed(
    log: &Path,
    out: &mut impl Write,
    closed: &(dyn Fn() -> bool + Sync),
    work: &(dyn Fn(&dyn Fn() -> bool) -> ServiceAnswer + Sync),
) -> ServiceAnswer {
    let lost = AtomicBool::new(false);
    let done = Arc::new(AtomicBool::new(false));
    let result = thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let r = work(&|| closed() || lost.load(Ordering::Relaxed));
            done.store(true, Ordering::Relaxed);
            r
        });
        let mut sent = 0u64;
        loop {
            let finished = done.load(Ordering::Relaxed);
            if let ServiceAnswer::Log { text, next } = log_from(log, sent)
                && !text.is_empty()
            {
                sent = next;
                let chunk = Response::Service {
                    answer: ServiceAnswer::Log { text, next }.into(),
                };
                if send(out, &chunk).is_err() {
                    lost.store(true, Ordering::Relaxed);
                }
            }
            if finished {
                break;
            }
            thread::sleep(LOG_EVERY);
        }
        worker.join()
    });
    result.unwrap_or_else(|_| failed("the worker thread panicked"))
}

fn build_here(
    w: &WireBuild,
    dir: &Path,
    state: &Path,
    log: &Path,
    cancelled: &dyn Fn() -> bool,
) -> ServiceAnswer {
    let mut env = w.env.clone();
    env.remove("PORT");
    let hash = || input_hash(dir, &w.commands, &env);
    let before = match hash() {
        Ok(h) => h,
        Err(e) => {
            return failed(&format!(
                "cannot hash the sources in {}: {e}",
                dir.display()
            ));
        }
    };
    let cache = BuildCache::new(state.join(".build-cache"));
    let artifact = w.artifact.as_ref().map(|a| dir.join(a));
    let append = |line: &str| {
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .and_then(|mut f| writeln!(f, "{line}"));
    };
    if let Some(last) = cache.find(&before, dir)
        && artifact.as_ref().is_none_or(|a| a.exists())
    {
        append(&format!(
            "=== runner: build of {} skipped on this host: inputs unchanged since the build of {} ({})",
            w.runtime,
            last.finished_at,
            &before[..12]
        ));
        return ServiceAnswer::Built {
            cached: true,
            seconds: 0.0,
            input_hash: before,
            artifact_bytes: artifact.as_deref().and_then(size_of),
        };
    }
    cache.forget(&w.runtime, dir);
    let started = Instant::now();
    for (i, command) in w.commands.iter().enumerate() {
        append(&format!(
            "=== runner: build {} step {}/{} on this host: {command}",
            w.runtime,
            i + 1,
            w.commands.len()
        ));
        let run_env = crate::process::env::command_env(&w.env, &w.pass_env);
        if let Err(e) = run_logged(&w.runtime, dir, command, &run_env, log, cancelled) {
            return failed(&e.to_string());
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    if let Some(a) = artifact.as_ref().filter(|a| !a.exists()) {
        return failed(&format!(
            "runtime {}: the build finished but its artifact {} is missing on the service host; \
             check the runtime's `artifact` and build commands",
            w.runtime,
            a.display()
        ));
    }
    let after = match hash() {
        Ok(h) => h,
        Err(e) => {
            return failed(&format!(
                "cannot hash the sources in {}: {e}",
                dir.display()
            ));
        }
    };
    let artifact_bytes = artifact.as_deref().and_then(size_of);
    let record = CacheRecord {
        input_hash: after.clone(),
        dir: dir.display().to_string(),
        finished_at: crate::results::rfc3339_now(),
        seconds,
        artifact_bytes,
    };
    if let Err(e) = cache.record_success(&w.runtime, &record) {
        return failed(&format!("cannot record the build in its cache: {e}"));
    }
    ServiceAnswer::Built {
        cached: false,
        seconds,
        input_hash: after,
        artifact_bytes,
    }
}

/// A file's length, or a folder's total.
fn size_of(p: &Path) -> Option<u64> {
    let meta = std::fs::symlink_metadata(p).ok()?;
    if !meta.is_dir() {
        return Some(meta.len());
    }
    let mut total = 0;
    for entry in std::fs::read_dir(p).ok()? {
        total += size_of(&entry.ok()?.path()).unwrap_or(0);
    }
    Some(total)
}

/// Stops a service at once: an old one a runner left running, or one that
/// never became ready.
fn kill() -> StopPlan {
    StopPlan {
        signal: libc::SIGKILL,
        signal_name: "KILL".into(),
        grace: Duration::ZERO,
    }
}
