//! One cell against a service on the SSH service host: the steps are
//! [`crate::exec::measure::cell::measure`]'s, the ones a service here goes
//! through (warmup, the measured window with the service sampled over it,
//! the same files, the row judged by the same gates); this file says how a
//! service there warms up and is sampled: the sampling is done on the far
//! side and its rows sent back, and liveness is asked of the far side
//! instead of read from this host's /proc.
use std::sync::Mutex;
use std::time::Instant;

use crate::exec::measure::cell::CellTarget;
use crate::exec::measure::context::{CellContext, CellEnd, NoObserver, WindowObserver};
use crate::exec::measure::row::{SampledRun, base_row, measure_sample_interval};
use crate::exec::measure::warmup::{WarmupRun, WarmupTarget};
use crate::exec::rules::verdict::one_line;
use crate::exec::ssh::remote_service::{ALIVE_EVERY, RemoteService, Sampling, guarded_remote_run};
use crate::exec::start::dependencies::needs_of_cell;
use crate::load::LoadConfig;
use crate::plan::Cell;
use crate::results::{CellStatus, ResultsError, WarmupEnd};

impl WarmupTarget for RemoteService {
    fn warmup_run(&mut self, ctx: &CellContext, config: &LoadConfig) -> WarmupRun {
        let run = guarded_remote_run(ctx, self, config, None, None);
        WarmupRun::of(run.result, run.died)
    }

    /// The same rule and monitor as here (`exec::measure::warmup::auto`),
    /// whether it still runs asked of the far side at most every
    /// [`ALIVE_EVERY`] (the monitor polls every 50 ms).
    fn auto_warmup(
        &mut self,
        ctx: &CellContext,
        cell: &Cell,
        rule: crate::plan::AutoWarmup,
        load_cpus: Option<Vec<usize>>,
    ) -> (WarmupEnd, WarmupRun) {
        let addr = self.addr;
        let asked = Mutex::new((Instant::now(), false));
        let service = Mutex::new(self);
        let dead = || {
            let mut asked = asked.lock().unwrap_or_else(|p| p.into_inner());
            if !asked.1 && asked.0.elapsed() >= ALIVE_EVERY {
                let mut service = service.lock().unwrap_or_else(|p| p.into_inner());
                *asked = (Instant::now(), !service.is_alive());
            }
            asked.1
        };
        crate::exec::measure::warmup::auto(ctx, addr, cell, rule, load_cpus, &dead)
    }
}

impl CellTarget for RemoteService {
    type Extras = ();

    fn open_extras(&mut self, _ctx: &CellContext, _cell: &Cell) {}

    /// The far side samples the service, its host and the dependencies the
    /// cell uses over the run's measured window alone (exec::measure::window),
    /// and sends its rows back.
    fn sampled_window(
        &mut self,
        ctx: &CellContext,
        cell: &Cell,
        config: &LoadConfig,
        started_at: &str,
        observer: &mut dyn WindowObserver,
    ) -> Result<SampledRun, CellEnd> {
        let sampling = Sampling {
            every: measure_sample_interval(ctx.plan),
            dependencies: needs_of_cell(ctx.plan, cell),
        };
        observer.window_opened();
        let run = guarded_remote_run(ctx, self, config, Some(ctx.events), Some(&sampling));
        observer.window_closed();
        let (result, died) = (run.result, run.died);
        let far = match run.samples {
            Some(samples) => samples,
            // A run that ended before its window opened: readings of nothing.
            None => self
                .sample_start(sampling.every, &sampling.dependencies)
                .and_then(|()| self.sample_stop()),
        };
        self.fetch_log();
        if ctx.interrupt.is_set() {
            return Err(CellEnd::Interrupted);
        }
        let far = match far {
            Ok(far) => far,
            Err(e) => return Err(lost_or_failed(ctx, self, cell, started_at, &e)),
        };
        self.readings = far.dependencies;
        Ok(SampledRun {
            result,
            died,
            samples: far.samples,
            // A far side of an older protocol sends no counters of its own host.
            host: far.host.unwrap_or_default(),
        })
    }
}

/// Warmup and measurement of `cell` against the remote `service`.
pub fn measure_remote_cell(
    ctx: &CellContext,
    service: &mut RemoteService,
    cell: &Cell,
) -> Result<CellEnd, ResultsError> {
    crate::exec::measure::cell::measure(ctx, service, cell, &mut NoObserver)
}

/// A failed call to the service host: the run stops when its session was
/// lost (nothing recorded), else the cell fails saying why.
fn lost_or_failed(
    ctx: &CellContext,
    service: &mut RemoteService,
    cell: &Cell,
    started_at: &str,
    why: &str,
) -> CellEnd {
    if ctx.interrupt.is_set() {
        return CellEnd::Interrupted;
    }
    let mut row = base_row(cell, started_at);
    row.status = CellStatus::Failed;
    row.reason = one_line(&format!(
        "the service host could not sample the service: {why}"
    ));
    if service.is_alive() {
        CellEnd::Recorded(Box::new(row))
    } else {
        CellEnd::ServiceDied(Box::new(row))
    }
}
