//! Measuring one cell, wherever its service runs: warmup, then the measured
//! window with the service's resources sampled alongside; the row and
//! per-cell files written at once. The steps are written once, generic over
//! [`CellTarget`]; a service here samples /proc and adds its profiles and
//! NMT figures, a service on an SSH host (`exec::ssh::remote_cell`) has its
//! far side sample it.
use crate::exec::handle::{ServiceHandle, hung, hung_row};
use crate::exec::measure::context::{CellContext, CellEnd, NoObserver, WindowObserver};
use crate::exec::measure::load_config::measure_config;
use crate::exec::measure::profiling::CellProfiling;
use crate::exec::measure::row::{SampledRun, Window, record_window};
use crate::exec::measure::warmup::{WarmupTarget, warm_up_cell};
use crate::load::{LoadConfig, LoadReport};
use crate::plan::{Cell, LoadMode};
use crate::results::{LOGS_DIR, MeasurementRow, ResultsError, rfc3339_now};
use crate::service::Service;

/// What measuring a cell needs of a service beyond its warmup.
pub(crate) trait CellTarget: WarmupTarget {
    /// What this site keeps open over the window (a local profiler).
    type Extras;
    /// The CPUs the generator is pinned to (by default none: on a service
    /// host, the generator's host is another).
    fn load_cpus(&self, _ctx: &CellContext) -> Option<Vec<usize>> {
        None
    }
    /// Opens what this site records beside the window.
    fn open_extras(&mut self, ctx: &CellContext, cell: &Cell) -> Self::Extras;
    /// The measured window: `config`'s load with the service, its host and
    /// the cell's dependencies sampled over it; `Err` is how the cell ended
    /// instead (interrupted, or a failed call to a service host).
    fn sampled_window(
        &mut self,
        ctx: &CellContext,
        cell: &Cell,
        config: &LoadConfig,
        started_at: &str,
        observer: &mut dyn WindowObserver,
    ) -> Result<SampledRun, CellEnd>;
    /// After a measured row: closes what [`CellTarget::open_extras`] opened
    /// (by default nothing to close).
    fn close_extras(
        &mut self,
        _ctx: &CellContext,
        _cell: &Cell,
        _extras: Self::Extras,
        _report: &LoadReport,
        _row: &mut MeasurementRow,
    ) -> Result<(), ResultsError> {
        Ok(())
    }
}

impl CellTarget for Service {
    type Extras = Option<CellProfiling>;

    fn load_cpus(&self, ctx: &CellContext) -> Option<Vec<usize>> {
        ctx.plan.affinity.as_ref().map(|a| a.load.clone())
    }

    fn open_extras(&mut self, ctx: &CellContext, cell: &Cell) -> Self::Extras {
        crate::exec::measure::profiling::open(ctx, self, cell)
    }

    fn sampled_window(
        &mut self,
        ctx: &CellContext,
        _cell: &Cell,
        config: &LoadConfig,
        _started_at: &str,
        observer: &mut dyn WindowObserver,
    ) -> Result<SampledRun, CellEnd> {
        observer.window_opened();
        let run = crate::exec::measure::window::sampled_run(ctx, self, config);
        observer.window_closed();
        Ok(run)
    }

    fn close_extras(
        &mut self,
        ctx: &CellContext,
        cell: &Cell,
        extras: Self::Extras,
        report: &LoadReport,
        row: &mut MeasurementRow,
    ) -> Result<(), ResultsError> {
        crate::exec::measure::profiling::close(ctx, extras, report, row)?;
        crate::exec::measure::nmt::record(ctx, self, cell, row)
    }
}

/// Runs warmup + measurement of `cell` against `service`.
pub fn measure_cell(
    ctx: &CellContext,
    service: &mut Service,
    cell: &Cell,
) -> Result<CellEnd, ResultsError> {
    measure_cell_observed(ctx, service, cell, &mut NoObserver)
}

/// [`measure_cell`], telling `observer` when the measured window opens and closes.
pub fn measure_cell_observed(
    ctx: &CellContext,
    service: &mut Service,
    cell: &Cell,
    observer: &mut dyn WindowObserver,
) -> Result<CellEnd, ResultsError> {
    if let LoadMode::Search(plan) = &cell.load.mode {
        return crate::exec::measure::search::measure_search(ctx, service, cell, plan);
    }
    measure(ctx, service, cell, observer)
}

/// Warmup and measurement of `cell` against `service`, here or on a service host.
pub(crate) fn measure(
    ctx: &CellContext,
    service: &mut impl CellTarget,
    cell: &Cell,
    observer: &mut dyn WindowObserver,
) -> Result<CellEnd, ResultsError> {
    let load_cpus = service.load_cpus(ctx);
    let started_at = rfc3339_now();
    let (warmup_s, warmup_end) =
        match warm_up_cell(ctx, service, cell, load_cpus.clone(), &started_at) {
            Ok(warmed) => warmed,
            Err(end) => return Ok(end),
        };
    let config = measure_config(
        cell,
        &crate::exec::measure::load_config::Aim::of(ctx, service.addr()),
        load_cpus,
    );
    let extras = service.open_extras(ctx, cell);
    let run = match service.sampled_window(ctx, cell, &config, &started_at, observer) {
        Ok(run) => run,
        Err(end) => return Ok(end),
    };
    if ctx.interrupt.is_set() {
        return Ok(CellEnd::Interrupted);
    }
    let (report, mut row) =
        match record_window(ctx, service, cell, &started_at, run, (warmup_s, warmup_end))? {
            Window::Failed(row) => return Ok(CellEnd::Recorded(row)),
            Window::ServiceDied(row) => return Ok(CellEnd::ServiceDied(row)),
            Window::Measured { report, row } => (*report, *row),
        };
    service.close_extras(ctx, cell, extras, &report, &mut row)?;
    if let Some(why) = hung(service, ctx.plan, cell) {
        if ctx.interrupt.is_set() {
            return Ok(CellEnd::Interrupted);
        }
        // A JVM's threads are dumped before the stop: the only record of
        // why it hung once it is gone.
        let dump = thread_dump_words(service, ctx, cell);
        return Ok(CellEnd::ServiceDied(Box::new(hung_row(
            service, row, &why, &dump,
        ))));
    }
    Ok(CellEnd::Recorded(Box::new(row)))
}

/// `"; its JVM's threads before the stop: <file>"` for a runtime with
/// `java:` (or why no dump was taken); empty for any other runtime.
fn thread_dump_words(service: &mut impl ServiceHandle, ctx: &CellContext, cell: &Cell) -> String {
    let Some(rt) = ctx.plan.runtimes.iter().find(|r| r.name == cell.runtime) else {
        return String::new();
    };
    let rt = rt.for_cell(cell);
    let Some(java) = &rt.java else {
        return String::new();
    };
    let (Some(home), Some(version)) = (&java.home, &java.version) else {
        return String::new();
    };
    let major = crate::plan::toolchains::java::major(version)
        .parse()
        .unwrap_or(0);
    let to = ctx.run.cell_file(LOGS_DIR, &cell.id, "threads.txt");
    match service.thread_dump(home, major, &to) {
        Ok(path) => format!("; its JVM's threads before the stop: {}", path.display()),
        Err(why) => format!("; no thread dump of its JVM ({why})"),
    }
}
