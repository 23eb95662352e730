//! One cell against a service on the SSH service host: the same steps and
//! files as [`crate::exec::measure::cell::measure_cell`] (warmup, the measured window with
//! the service sampled over it, samples/timelines/histograms/requests and
//! load-hosts files, the row judged by the same gates), with the sampling
//! done on the far side and its rows sent back, and liveness asked of the
//! far side instead of read from this host's /proc.
use std::sync::Mutex;
use std::time::Instant;

use crate::exec::handle::{died_row, hung, hung_row};
use crate::exec::measure::context::{CellContext, CellEnd};
use crate::exec::measure::load_config::{measure_config, warmup_config, warmup_requests_config};
use crate::exec::measure::row::{
    SampledRun, Window, base_row, measure_sample_interval, record_window,
};
use crate::exec::rules::verdict::one_line;
use crate::exec::ssh::remote_service::{ALIVE_EVERY, RemoteService, Sampling, guarded_remote_run};
use crate::exec::start::dependencies::needs_of_cell;
use crate::plan::{Cell, CellWarmup};
use crate::results::{CellStatus, WarmupEnd, rfc3339_now};

/// The `auto` warmup against the service there: the same rule and monitor
/// as locally (`exec::warmup::auto`), whether it still runs asked of the far
/// side at most every [`ALIVE_EVERY`] (the monitor polls every 50 ms).
fn auto_warmup(
    ctx: &CellContext,
    service: &mut RemoteService,
    cell: &Cell,
    rule: crate::plan::AutoWarmup,
) -> (WarmupEnd, bool) {
    let addr = service.addr;
    let asked = Mutex::new((Instant::now(), false));
    let service = Mutex::new(service);
    let dead = || {
        let mut asked = asked.lock().unwrap_or_else(|p| p.into_inner());
        if !asked.1 && asked.0.elapsed() >= ALIVE_EVERY {
            let mut service = service.lock().unwrap_or_else(|p| p.into_inner());
            *asked = (Instant::now(), !service.is_alive());
        }
        asked.1
    };
    crate::exec::measure::warmup::auto(ctx, addr, cell, rule, None, &dead)
}

/// Warmup and measurement of `cell` against the remote `service`.
pub fn measure_remote_cell(
    ctx: &CellContext,
    service: &mut RemoteService,
    cell: &Cell,
) -> Result<CellEnd, crate::results::ResultsError> {
    let started_at = rfc3339_now();
    let warmup_started = Instant::now();
    let (warmup_s, warmup_end) = match cell.warmup {
        CellWarmup::Fixed { duration } if duration.is_zero() => (0.0, WarmupEnd::None),
        warmup => {
            let addr = service.addr;
            let mut run = |config| guarded_remote_run(ctx, service, &config, None, None).died;
            let (end, died) = match warmup {
                CellWarmup::Fixed { duration } => (
                    WarmupEnd::Fixed,
                    run(warmup_config(cell, addr, None, duration)),
                ),
                CellWarmup::Requests { count } => (
                    WarmupEnd::Requests,
                    run(warmup_requests_config(cell, addr, None, count)),
                ),
                CellWarmup::Auto(rule) => auto_warmup(ctx, service, cell, rule),
            };
            if ctx.interrupt.is_set() {
                return Ok(CellEnd::Interrupted);
            }
            if died {
                return Ok(CellEnd::ServiceDied(Box::new(died_row(
                    service,
                    base_row(cell, &started_at),
                    "warmup",
                ))));
            }
            (warmup_started.elapsed().as_secs_f64(), end)
        }
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
