//! A measured service running on the spec's SSH service host: the handle
//! exec holds while it runs there. Every question about it (alive? healthy?
//! its RSS, its samples, its log) is one call on the service host's one
//! session; the service's log is copied into the run's logs/<runtime>.log
//! as it grows.
//!
//! A lost session is a lost host: the far side has stopped the service by
//! then, and the run stops like an interruption (no row for the cell, the
//! status says why, `--resume` measures it again).
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::dependency::DependencyReading;
use crate::exec::events::Event;
use crate::exec::handle::ServiceHandle;
use crate::exec::interrupt::Interrupt;
use crate::exec::measure::context::{CellContext, guarded_load};
use crate::exec::measure::window::follow_window;
use crate::exec::start::memory_phases::{LoadOutcome, MemorySubject};
use crate::load::{LoadConfig, LoadControl, LoadError, LoadReport};
use crate::remote::RemoteError;
use crate::remote::service_hosts::service_client::ServiceHostClient;
use crate::remote::service_hosts::service_wire::{ServiceAnswer, ServiceCall};
use crate::sample::host_cpu::HostWindow;
use crate::sample::{MemoryReading, SamplerOutput};

/// The service host's session, shared by the driver and the running service.
pub type SharedClient = Arc<Mutex<ServiceHostClient>>;

/// What the service host read over one window.
pub struct FarSamples {
    /// The service's samples, as a local sampler returns them.
    pub samples: SamplerOutput,
    /// The service host's CPU counters over the same span (`None` from a
    /// far side that does not send them).
    pub host: Option<HostWindow>,
    /// The dependencies sampled with it, and their stats.
    pub dependencies: Vec<DependencyReading>,
}

/// A service started on the service host.
pub struct RemoteService {
    client: SharedClient,
    pub runtime: String,
    /// Where the load reaches it: the service host's address and the port.
    pub addr: SocketAddr,
    pub spawned_at: Instant,
    /// Its start shell's PID (= session id) on the far side.
    pub sid: i32,
    /// The run's logs/<runtime>.log here.
    pub log: PathBuf,
    log_next: u64,
    /// Why it is known not to run (its exit, or the lost session).
    gone: Option<String>,
    /// The dependencies' readings of the last measured window, until the
    /// driver writes them with the cell's row.
    pub readings: Vec<DependencyReading>,
    interrupt: Interrupt,
}

impl RemoteService {
    pub fn new(
        client: SharedClient,
        runtime: &str,
        addr: SocketAddr,
        sid: i32,
        log: PathBuf,
        interrupt: Interrupt,
    ) -> RemoteService {
        RemoteService {
            client,
            runtime: runtime.into(),
            addr,
            spawned_at: Instant::now(),
            sid,
            log,
            log_next: 0,
            gone: None,
            readings: Vec::new(),
            interrupt,
        }
    }

    pub fn client(&self) -> MutexGuard<'_, ServiceHostClient> {
        self.client.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One short call; a lost session stops the run (resumably).
    fn call(&mut self, call: ServiceCall, during: &str) -> Result<ServiceAnswer, String> {
        let answer = self.client().short(call, during);
        answer.map_err(|e| {
            stop_if_lost(&self.interrupt, &e);
            e.to_string()
        })
    }

    /// Whether it still runs there (false once its session is lost).
    pub fn is_alive(&mut self) -> bool {
        if self.gone.is_some() {
            return false;
        }
        match self.call(ServiceCall::Alive, "while it checked the service") {
            Ok(ServiceAnswer::Alive { alive: true, .. }) => true,
            Ok(ServiceAnswer::Alive { exit, .. }) => {
                self.gone = Some(exit);
                false
            }
            Ok(other) => {
                self.gone = Some(other.unexpected("a liveness check"));
                false
            }
            Err(e) => {
                self.gone = Some(e);
                false
            }
        }
    }

    /// How it ended, in words ("running" while it runs).
    pub fn exit_text(&mut self) -> String {
        if self.is_alive() {
            "running".into()
        } else {
            self.gone.clone().unwrap_or_default()
        }
    }

    /// `Some(why)` when it does not answer its health check within `within`.
    pub fn still_healthy(&mut self, within: Duration) -> Option<String> {
        let call = ServiceCall::StillHealthy {
            within_ms: crate::remote::service_hosts::service_wire::millis(within),
        };
        match self.call(call, "while it checked the service's health") {
            Ok(ServiceAnswer::Healthy { why_not }) => why_not,
            Ok(other) => Some(other.unexpected("a health check")),
            Err(e) => Some(e),
        }
    }

    /// RSS of its processes there now.
    pub fn rss_bytes(&mut self) -> Option<u64> {
        match self.call(ServiceCall::Usage, "while it read the service's memory") {
            Ok(ServiceAnswer::Usage { rss_bytes }) => Some(rss_bytes),
            _ => None,
        }
    }

    /// Starts sampling there: the service, and the `dependencies` named.
    pub fn sample_start(
        &mut self,
        interval: Duration,
        dependencies: &[String],
    ) -> Result<(), String> {
        let call = ServiceCall::SampleStart {
            interval_ms: crate::remote::service_hosts::service_wire::millis(interval),
            dependencies: dependencies.to_vec(),
        };
        match self.call(call, "while it started sampling")? {
            ServiceAnswer::Sampling => Ok(()),
            other => Err(other.unexpected("the start of sampling")),
        }
    }

    /// Stops sampling there; what was read over the window.
    pub fn sample_stop(&mut self) -> Result<FarSamples, String> {
        match self.call(ServiceCall::SampleStop, "while it sent the samples")? {
            ServiceAnswer::Samples {
                samples,
                host,
                dependencies,
            } => Ok(FarSamples {
                samples,
                host,
                dependencies,
            }),
            other => Err(other.unexpected("a request for the samples")),
        }
    }

    /// Appends what the far side's log has gained to the local log.
    pub fn fetch_log(&mut self) {
        loop {
            let call = ServiceCall::LogFrom {
                from: self.log_next,
                dependency: None,
            };
            let Ok(ServiceAnswer::Log { text, next }) = self.call(call, "while it sent the log")
            else {
                return;
            };
            if text.is_empty() {
                return;
            }
            append(&self.log, &text);
            self.log_next = next;
        }
    }

    /// The last lines of its log (fetched first).
    pub fn log_tail(&mut self) -> String {
        self.fetch_log();
        crate::process::tail(&self.log, crate::service::process::TAIL_LINES)
    }
}

impl MemorySubject for RemoteService {
    fn reading(&mut self) -> Result<MemoryReading, String> {
        match self.call(ServiceCall::Memory, "while it read the service's memory")? {
            ServiceAnswer::Memory { reading } => Ok(reading),
            other => Err(other.unexpected("a memory reading")),
        }
    }
    fn load(&mut self, ctx: &CellContext, config: &LoadConfig) -> LoadOutcome {
        // As every load against a service host: no CPUs of this machine
        // chosen for it (it runs here or on the load hosts).
        let config = LoadConfig {
            cpu_affinity: None,
            ..config.clone()
        };
        let run = guarded_remote_run(ctx, self, &config, None, None);
        LoadOutcome {
            report: run.result.map_err(|e| e.to_string()),
            died: run.died,
        }
    }
    fn log_here(&mut self) -> PathBuf {
        self.fetch_log();
        self.log.clone()
    }
}

/// How often the far side is asked whether the service still runs during a load.
pub const ALIVE_EVERY: Duration = Duration::from_millis(500);

/// What [`guarded_remote_run`] gave.
pub struct RemoteRun {
    pub result: Result<LoadReport, LoadError>,
    /// The far side said the service is gone.
    pub died: bool,
    /// When asked to sample: what the far side read over the run's
    /// measured window, or why not (`None`: the window never opened).
    pub samples: Option<Result<FarSamples, String>>,
}

/// What the far side samples over a window, and how often.
pub struct Sampling {
    pub every: Duration,
    /// The dependencies sampled with the service.
    pub dependencies: Vec<String>,
}

/// Applies `config` (here or on the load hosts, as the plan says),
/// cancelling it when the runner is interrupted or the far side says the
/// service is gone. With `sampling`, the far side samples the service
/// (and the dependencies named) and its host over the run's measured window alone,
/// from [`LoadControl::window_start`] to [`LoadControl::window_end`], as
/// exec::window does for a local service.
pub fn guarded_remote_run(
    ctx: &CellContext,
    service: &mut RemoteService,
    config: &LoadConfig,
    events: Option<&std::sync::mpsc::Sender<Event>>,
    sampling: Option<&Sampling>,
) -> RemoteRun {
    let control = LoadControl::new();
    let done = AtomicBool::new(false);
    let died = AtomicBool::new(false);
    let service = Mutex::new(service);
    let lock = || service.lock().unwrap_or_else(|p| p.into_inner());
    let (result, samples) = std::thread::scope(|s| {
        let follower = sampling.map(|sampling| {
            let (control, done, lock) = (&control, &done, &lock);
            s.spawn(move || {
                follow_window(
                    control,
                    done,
                    || lock().sample_start(sampling.every, &sampling.dependencies),
                    |opened| opened.and_then(|()| lock().sample_stop()),
                )
            })
        });
        let mut asked = Instant::now();
        let gone = || {
            if asked.elapsed() < ALIVE_EVERY {
                return false;
            }
            asked = Instant::now();
            let gone = !lock().is_alive();
            if gone {
                died.store(!ctx.interrupt.is_set(), Ordering::Relaxed);
            }
            gone
        };
        let result = guarded_load(ctx, config, events, &control, gone);
        done.store(true, Ordering::Relaxed);
        let samples = follower.and_then(|f| f.join().ok().flatten());
        (result, samples)
    });
    RemoteRun {
        result,
        died: died.load(Ordering::Relaxed),
        samples,
    }
}

/// Appends `text` to the file at `path` (created when absent).
pub fn append(path: &std::path::Path, text: &str) {
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()));
}

/// A service host whose session was lost (or stopped answering) stops the
/// run like an interruption, naming the host and the way to resume.
pub fn stop_if_lost(interrupt: &Interrupt, e: &RemoteError) {
    if matches!(
        e,
        RemoteError::ConnectionLost { .. } | RemoteError::Timeout { .. }
    ) {
        interrupt.stop_because(format!("service host: {e}"));
    }
}

impl ServiceHandle for RemoteService {
    fn addr(&self) -> SocketAddr {
        self.addr
    }
    fn site_words(&self) -> &'static str {
        " on the service host"
    }
    fn is_alive(&mut self) -> bool {
        RemoteService::is_alive(self)
    }
    fn exit_text(&mut self) -> String {
        RemoteService::exit_text(self)
    }
    fn log_tail(&mut self) -> String {
        RemoteService::log_tail(self)
    }
    fn log_path(&self) -> &std::path::Path {
        &self.log
    }
    /// The far side checks `health` as the start declared it.
    fn unhealthy(&mut self, _health: &crate::plan::HealthPlan, within: Duration) -> Option<String> {
        self.still_healthy(within)
    }
}
