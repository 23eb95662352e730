//! Measuring one cell: warmup, then the measured window with the service's
//! resources sampled alongside; the row and per-cell files written at once.
use crate::exec::handle::{hung, hung_row};
use crate::exec::measure::context::{CellContext, CellEnd, NoObserver, WindowObserver};
use crate::exec::measure::load_config::measure_config;
use crate::exec::measure::row::{Window, record_window};
use crate::exec::measure::warmup::warm_up_cell;
use crate::plan::{Cell, LoadMode};
use crate::results::rfc3339_now;
use crate::service::Service;

/// Runs warmup + measurement of `cell` against `service`.
pub fn measure_cell(
    ctx: &CellContext,
    service: &mut Service,
    cell: &Cell,
) -> Result<CellEnd, crate::results::ResultsError> {
    measure_cell_observed(ctx, service, cell, &mut NoObserver)
}

/// [`measure_cell`], telling `observer` when the measured window opens and closes.
pub fn measure_cell_observed(
    ctx: &CellContext,
    service: &mut Service,
    cell: &Cell,
    observer: &mut dyn WindowObserver,
) -> Result<CellEnd, crate::results::ResultsError> {
    if let LoadMode::Search(plan) = &cell.load.mode {
        return crate::exec::measure::search::measure_search(ctx, service, cell, plan);
    }
    let load_cpus = ctx.plan.affinity.as_ref().map(|a| a.load.clone());
    let started_at = rfc3339_now();
    let (warmup_s, warmup_end) =
        match warm_up_cell(ctx, service, cell, load_cpus.clone(), &started_at) {
            Ok(warmed) => warmed,
            Err(end) => return Ok(end),
        };
    let config = measure_config(cell, service.addr(), load_cpus);
    let profiling = crate::exec::measure::profiling::open(ctx, service, cell);
    observer.window_opened();
    let run = crate::exec::measure::window::sampled_run(ctx, service, &config);
    observer.window_closed();
    if ctx.interrupt.is_set() {
        return Ok(CellEnd::Interrupted);
    }
    let (report, mut row) =
        match record_window(ctx, service, cell, &started_at, run, (warmup_s, warmup_end))? {
            Window::Failed(row) => return Ok(CellEnd::Recorded(row)),
            Window::ServiceDied(row) => return Ok(CellEnd::ServiceDied(row)),
            Window::Measured { report, row } => (*report, *row),
        };
    crate::exec::measure::profiling::close(ctx, profiling, &report, &mut row)?;
    crate::exec::measure::nmt::record(ctx, service, cell, &row)?;
    if let Some(why) = hung(service, ctx.plan, cell) {
        return Ok(CellEnd::ServiceDied(Box::new(hung_row(service, row, &why))));
    }
    Ok(CellEnd::Recorded(Box::new(row)))
}
