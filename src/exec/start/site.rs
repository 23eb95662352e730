//! Where a runtime's service is started: here ([`Here`]) or on an SSH
//! service host (`exec::ssh::remote_driver::RemoteHost`). The steps of a
//! start (spawn until healthy, the first request, the idle reading, the
//! service warmup, the stop) are written once against [`StartSite`], in
//! `lifecycle` (the measured start), `cold_start` and `memory_phases`; a
//! site says only how it spawns, reads and stops a process.
use std::path::PathBuf;

use crate::exec::handle::FirstSuccess;
use crate::exec::measure::cell::CellTarget;
use crate::exec::measure::context::{CellContext, guarded_run};
use crate::exec::start::containment::Observed;
use crate::load::{LoadConfig, LoadReport};
use crate::plan::{Cell, RuntimePlan};
use crate::results::{LifecycleRow, StopOutcome};
use crate::sample::{MemoryReading, session_usage};
use crate::service::{NotReady, Service, ServiceCommand, ServiceError, StopReport};

/// A duration in milliseconds, as lifecycle.csv records it.
pub fn millis(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// How a process is started.
#[derive(Debug, Clone, Copy)]
pub enum Spawn<'a> {
    /// The measured start: under `cell`'s limits, with the profiler's
    /// environment of start `start_index`.
    Measured { cell: &'a Cell, start_index: u32 },
    /// A cold start or a memory process: no limits, no profiler.
    Bare,
}

/// A process that answered its health check, with its times from the spawn.
pub struct Spawned<S> {
    pub service: S,
    /// `None`: a health command, which does not wait for the port.
    pub port_ms: Option<f64>,
    pub startup_ms: f64,
}

/// What the phases need of a fresh, healthy service, here ([`Service`]) or
/// on a service host, beyond what every running service gives
/// ([`crate::exec::handle::ServiceHandle`]: its address, whether it still runs).
pub trait MemorySubject: crate::exec::handle::ServiceHandle {
    /// Its memory now, every process together.
    fn reading(&mut self) -> Result<MemoryReading, String>;
    /// Applies `config` to it; `died`: it ended meanwhile.
    fn load(&mut self, ctx: &CellContext, config: &LoadConfig) -> LoadOutcome;
    /// Its log here (a service host's is copied back first).
    fn log_here(&mut self) -> PathBuf;
}

/// A load against a [`MemorySubject`].
pub struct LoadOutcome {
    pub report: Result<LoadReport, String>,
    pub died: bool,
}

/// A place services are started at.
pub(crate) trait StartSite {
    /// A service started there.
    type Service: CellTarget + MemorySubject;

    /// Before a measured start: `Some(why)` when a trained file is not the
    /// one the training produced.
    fn check_provenance(&mut self, ctx: &CellContext, rt: &RuntimePlan) -> Option<String>;

    /// Spawns `rt`'s service and waits until it answers its health check.
    /// `Err(why)` when it did not; a process that started but never got
    /// healthy is stopped first, its stop recorded in `row`.
    fn spawn_ready(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        how: Spawn,
        row: &mut LifecycleRow,
    ) -> Result<Spawned<Self::Service>, SpawnFailure>;

    /// Milliseconds from the spawn to the first answer, given the health
    /// check's `startup_ms`.
    fn first_request_ms(
        &self,
        service: &Self::Service,
        startup_ms: f64,
        first: &FirstSuccess,
    ) -> f64;

    /// The resident memory of the service's processes, when it can be read.
    fn rss_bytes(&mut self, service: &mut Self::Service) -> Option<u64>;

    /// The part of that memory held by a start shell (`sh -c`), when there
    /// is one and the site reads it (a service host does not yet).
    fn shell_rss_bytes(&mut self, _service: &mut Self::Service) -> Option<u64> {
        None
    }

    /// What the service saw of its limits (`None` where that is not looked at).
    fn observe(&self, service: &Self::Service, rt: &RuntimePlan) -> Option<Observed>;

    /// Stops the service and records how in `row` (stop, exit status,
    /// dropped log bytes); `Some(problem)` when it could not be stopped cleanly.
    fn stop(
        &mut self,
        rt: &RuntimePlan,
        service: Self::Service,
        row: &mut LifecycleRow,
    ) -> Option<String>;
}

/// Why a spawn got no healthy service, and whether another start of the
/// same command could go differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnFailure {
    pub why: String,
    pub again: Again,
}

/// Whether another start of the same command could go differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Again {
    /// Most failures: a busy host, a slow start, a port race.
    MightWork,
    /// The service listens on another port than its own: every start
    /// would, so its runtime is skipped at once rather than after one more
    /// health timeout.
    WouldFail,
}

impl From<String> for SpawnFailure {
    fn from(why: String) -> SpawnFailure {
        SpawnFailure {
            why,
            again: Again::MightWork,
        }
    }
}

/// This host: services as process groups in their own sessions.
pub struct Here;

impl StartSite for Here {
    type Service = Service;

    fn check_provenance(&mut self, ctx: &CellContext, rt: &RuntimePlan) -> Option<String> {
        crate::exec::start::provenance::check_before_start(ctx, rt)
    }

    fn spawn_ready(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        how: Spawn,
        row: &mut LifecycleRow,
    ) -> Result<Spawned<Service>, SpawnFailure> {
        let mut command =
            ServiceCommand::measured(rt, ctx.plan.affinity.as_ref().map(|a| a.service.clone()))
                .with_tls(ctx.tls.map(|c| &c.files));
        if let Spawn::Measured { cell, start_index } = how {
            command.limits = cell.limits.clone();
            let profiler = crate::exec::measure::profiling::start_env(ctx, rt, start_index);
            command.env.extend(profiler);
        }
        let interrupt = ctx.interrupt;
        let log = ctx.run.log(&rt.name);
        match Service::start_ready(&command, &log, &rt.health, &rt.stop, &|| interrupt.is_set()) {
            Ok((service, times)) => Ok(Spawned {
                service,
                port_ms: times.port.map(millis),
                startup_ms: millis(times.healthy),
            }),
            Err(not_ready) => {
                let NotReady { error, stopped } = *not_ready;
                if let Some(stopped) = stopped {
                    record_stop(row, stopped);
                }
                let again = match error {
                    ServiceError::WrongPort { .. } => Again::WouldFail,
                    _ => Again::MightWork,
                };
                Err(SpawnFailure {
                    why: error.to_string(),
                    again,
                })
            }
        }
    }

    fn first_request_ms(&self, service: &Service, _: f64, first: &FirstSuccess) -> f64 {
        millis(first.answered.duration_since(service.spawned_at()))
    }

    fn rss_bytes(&mut self, service: &mut Service) -> Option<u64> {
        Some(session_usage(service.sid()).rss_bytes)
    }

    fn shell_rss_bytes(&mut self, service: &mut Service) -> Option<u64> {
        Some(crate::sample::procfs::session_shell_rss_bytes(
            service.sid(),
        ))
        .filter(|b| *b > 0)
    }

    fn observe(&self, service: &Service, rt: &RuntimePlan) -> Option<Observed> {
        Some(crate::exec::start::containment::observe(service, rt))
    }

    fn stop(
        &mut self,
        rt: &RuntimePlan,
        service: Service,
        row: &mut LifecycleRow,
    ) -> Option<String> {
        record_stop(row, service.stop(&rt.stop))
    }
}

/// Records how a service here stopped in its lifecycle row; the error's
/// text when the stop failed (the group was killed).
fn record_stop(
    row: &mut LifecycleRow,
    stopped: Result<StopReport, ServiceError>,
) -> Option<String> {
    match stopped {
        Ok(report) => {
            row.stop = Some(report.kind.into());
            row.exit_status = report.exit_status;
            row.log_dropped_bytes = report.log_dropped_bytes;
            None
        }
        Err(e) => {
            row.stop = Some(StopOutcome::Killed);
            row.exit_status = e.to_string();
            Some(e.to_string())
        }
    }
}

impl MemorySubject for Service {
    fn reading(&mut self) -> Result<MemoryReading, String> {
        Ok(self.memory())
    }
    fn load(&mut self, ctx: &CellContext, config: &LoadConfig) -> LoadOutcome {
        let (report, died) = guarded_run(ctx, self, config, None);
        LoadOutcome {
            report: report.map_err(|e| e.to_string()),
            died,
        }
    }
    fn log_here(&mut self) -> PathBuf {
        self.log().to_path_buf()
    }
}
