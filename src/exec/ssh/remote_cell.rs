//! One cell against a service on the SSH service host: the same steps and
//! files as [`crate::exec::measure::cell::measure_cell`] (warmup, the measured window with
//! the service sampled over it, samples/timelines/histograms/requests and
//! load-hosts files, the row judged by the same gates), with the sampling
//! done on the far side and its rows sent back, and liveness asked of the
//! far side instead of read from this host's /proc.
use std::sync::Mutex;
use std::time::Instant;

use crate::exec::handle::{hung, hung_row};
use crate::exec::measure::context::{CellContext, CellEnd};
use crate::exec::measure::load_config::measure_config;
use crate::exec::measure::row::{
    SampledRun, Window, base_row, measure_sample_interval, record_window,
};
use crate::exec::measure::warmup::{WarmupTarget, warm_up_cell};
use crate::exec::rules::verdict::one_line;
use crate::exec::ssh::remote_service::{ALIVE_EVERY, RemoteService, Sampling, guarded_remote_run};
use crate::exec::start::dependencies::needs_of_cell;
use crate::load::LoadConfig;
use crate::plan::Cell;
use crate::results::{CellStatus, WarmupEnd, rfc3339_now};

impl WarmupTarget for RemoteService {
    fn guarded_warmup(&mut self, ctx: &CellContext, config: &LoadConfig) -> bool {
        guarded_remote_run(ctx, self, config, None, None).died
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
    ) -> (WarmupEnd, bool) {
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

/// Warmup and measurement of `cell` against the remote `service`.
pub fn measure_remote_cell(
    ctx: &CellContext,
    service: &mut RemoteService,
    cell: &Cell,
) -> Result<CellEnd, crate::results::ResultsError> {
    let started_at = rfc3339_now();
    let (warmup_s, warmup_end) = match warm_up_cell(ctx, service, cell, None, &started_at) {
        Ok(warmed) => warmed,
        Err(end) => return Ok(end),
    };
    let config = measure_config(cell, service.addr, None);
    // The far side samples the service, its host and the dependencies the
    // cell uses over the run's measured window alone (exec::window).
    let sampling = Sampling {
        every: measure_sample_interval(ctx.plan),
        dependencies: needs_of_cell(ctx.plan, cell),
    };
    let run = guarded_remote_run(ctx, service, &config, Some(ctx.events), Some(&sampling));
    let (result, died) = (run.result, run.died);
    let far = match run.samples {
        Some(samples) => samples,
        // A run that ended before its window opened: readings of nothing.
        None => service
            .sample_start(sampling.every, &sampling.dependencies)
            .and_then(|()| service.sample_stop()),
    };
    service.fetch_log();
    if ctx.interrupt.is_set() {
        return Ok(CellEnd::Interrupted);
    }
    let far = match far {
        Ok(far) => far,
        Err(e) => return Ok(lost_or_failed(ctx, service, cell, &started_at, &e)),
    };
    service.readings = far.dependencies;
    let run = SampledRun {
        result,
        died,
        samples: far.samples,
        // A far side of an older protocol sends no counters of its own host.
        host: far.host.unwrap_or_default(),
    };
    let row = match record_window(ctx, service, cell, &started_at, run, (warmup_s, warmup_end))? {
        Window::Failed(row) => return Ok(CellEnd::Recorded(row)),
        Window::ServiceDied(row) => return Ok(CellEnd::ServiceDied(row)),
        Window::Measured { row, .. } => *row,
    };
    if let Some(why) = hung(service, ctx.plan, cell) {
        if ctx.interrupt.is_set() {
            return Ok(CellEnd::Interrupted);
        }
        return Ok(CellEnd::ServiceDied(Box::new(hung_row(service, row, &why))));
    }
    Ok(CellEnd::Recorded(Box::new(row)))
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
