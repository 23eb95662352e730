//! Measuring one cell: warmup, then the measured window with the service's
//! resources sampled alongside; the row and per-cell files written at once.
use std::fs::File;
use std::io::BufWriter;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use super::cell_facts::{HostWindow, gate_facts};
use super::events::Event;
use super::interrupt::Interrupt;
use super::load_config::measure_config;
use super::verdict::{CellFacts, one_line, verdict};
use super::warmup::{Warmup, warm_up};
use crate::load::{self, LoadControl, LoadError, LoadReport};
use crate::plan::{Cell, LoadMode, Plan};
use crate::results::{
    CellStatus, HISTOGRAMS_DIR, LoopMode, MeasurementRow, RunDir, SAMPLES_DIR, TIMELINES_DIR,
    TimelineRow, rfc3339_now, write_csv,
};
use crate::sample::SamplerOutput;
use crate::service::{Service, ServiceError};
use crate::spec::values::AxisValue;

/// How a cell ended.
#[derive(Debug)]
pub enum CellEnd {
    /// Measured: the row is `ok`, `suspect` or `failed` (load error).
    Recorded(Box<MeasurementRow>),
    /// The service died during the cell, or stopped answering its health
    /// check (hung): the row is `failed`, and the service is restarted.
    ServiceDied(Box<MeasurementRow>),
    /// The runner was interrupted: nothing is recorded for this cell.
    Interrupted,
}

/// What a cell needs from the run around it.
#[derive(Clone)]
pub struct CellContext<'a> {
    pub plan: &'a Plan,
    pub run: &'a RunDir,
    pub interrupt: &'a Interrupt,
    pub events: &'a Sender<Event>,
    /// Set when the runtime's training evidence was declared but not found.
    pub evidence_missing: Option<String>,
}

/// Told when a cell's measured window opens and closes (the real driver
/// samples the dependencies of the cell's runtime over exactly that window).
pub trait WindowObserver {
    fn window_opened(&mut self);
    fn window_closed(&mut self);
}

/// An observer that does nothing.
pub struct NoObserver;

impl WindowObserver for NoObserver {
    fn window_opened(&mut self) {}
    fn window_closed(&mut self) {}
}

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
        return super::search::measure_search(ctx, service, cell, plan);
    }
    let load_cpus = ctx.plan.affinity.as_ref().map(|a| a.load.clone());
    let started_at = rfc3339_now();
    let (warmup_s, warmup_end) = match warm_up(ctx, service, cell, load_cpus.clone()) {
        Warmup::Done { seconds, end } => (seconds, end),
        Warmup::Interrupted => return Ok(CellEnd::Interrupted),
        Warmup::ServiceDied => {
            return Ok(CellEnd::ServiceDied(Box::new(died_row(
                service,
                cell,
                &started_at,
                "warmup",
            ))));
        }
    };
    let config = measure_config(cell, service.addr(), load_cpus);
    let profiling = super::profiling::open(ctx, service, cell);
    observer.window_opened();
    let super::window::SampledRun {
        result,
        died,
        samples,
        host,
    } = super::window::sampled_run(ctx, service, &config);
    observer.window_closed();
    if ctx.interrupt.is_set() {
        return Ok(CellEnd::Interrupted);
    }
    write_csv(
        &ctx.run.cell_file(SAMPLES_DIR, &cell.id, "csv"),
        &samples.rows,
    )?;
    if died || samples.session_vanished || !service.is_alive() {
        return Ok(CellEnd::ServiceDied(Box::new(died_row(
            service,
            cell,
            &started_at,
            "measurement",
        ))));
    }
    let (report, mut row) = match record_window(
        ctx,
        cell,
        &started_at,
        result,
        &samples,
        &host,
        (warmup_s, warmup_end),
    )? {
        Window::Failed(row) => return Ok(CellEnd::Recorded(row)),
        Window::Measured { report, row } => (*report, *row),
    };
    super::profiling::close(ctx, profiling, &report, &mut row)?;
    super::nmt::record(ctx, service, cell, &row)?;
    if let Some(why) = hung(ctx, service, cell) {
        row.status = CellStatus::Failed;
        row.reason = one_line(&format!(
            "service stopped answering: {why} after the measurement ({} ok, {} errors); \
             it is stopped and restarted; see {}",
            row.ok,
            row.errors,
            service.log().display()
        ));
        return Ok(CellEnd::ServiceDied(Box::new(row)));
    }
    Ok(CellEnd::Recorded(Box::new(row)))
}

/// The sampler's interval inside a measured window. With
/// `sample: { during_measure: false }` it is longer than any window, so the
/// sampler reads once at the start and once at `finish()`: CPU and memory
/// of the window still come from those two readings, and nothing of the
/// runner wakes up on the host while the latencies are recorded.
pub(super) fn measure_sample_interval(plan: &crate::plan::Plan) -> Duration {
    if plan.sample_during_measure {
        plan.sample_interval
    } else {
        UNSAMPLED_WINDOW
    }
}

/// Longer than any measured window (a day); short enough that `Instant +`
/// it never overflows.
const UNSAMPLED_WINDOW: Duration = Duration::from_secs(86_400);

/// Longest wait for a health answer between cells: long enough for a
/// service to drain the backlog a cell left, short enough not to stall a run.
const HEALTH_RECHECK: Duration = Duration::from_secs(10);

/// After a measured cell: `Some(what went wrong)` when the service no longer
/// answers its health check within `min(health.timeout, HEALTH_RECHECK)`.
/// Without this, a hung service (alive, answering nothing) would fail every
/// later cell by timeouts instead of being restarted like a dead one.
fn hung(ctx: &CellContext, service: &mut Service, cell: &Cell) -> Option<String> {
    let rt = ctx.plan.runtimes.iter().find(|r| r.name == cell.runtime)?;
    let within = rt.health.timeout.min(HEALTH_RECHECK);
    match service.still_healthy(&rt.health, within) {
        Ok(()) => None,
        Err(ServiceError::HealthTimeout { last, .. }) => Some(format!(
            "no 200 from GET {} within {within:?} (last answer: {last})",
            rt.health.path
        )),
        Err(e) => Some(e.to_string()),
    }
}

/// Applies `config`, cancelling it when the runner is interrupted or the
/// service's process tree disappears. Returns the result and whether the
/// service died meanwhile. With `events`, sends live progress each second.
pub fn guarded_run(
    ctx: &CellContext,
    service: &Service,
    config: &load::LoadConfig,
    events: Option<&Sender<Event>>,
) -> (Result<LoadReport, LoadError>, bool) {
    guarded_run_with(ctx, service, config, events, &LoadControl::new())
}

/// [`guarded_run`] with the caller's `control` (to learn when the window opens).
pub(super) fn guarded_run_with(
    ctx: &CellContext,
    service: &Service,
    config: &load::LoadConfig,
    events: Option<&Sender<Event>>,
    control: &LoadControl,
) -> (Result<LoadReport, LoadError>, bool) {
    let done = AtomicBool::new(false);
    let died = Arc::new(AtomicBool::new(false));
    let sid = service.sid();
    let result = std::thread::scope(|s| {
        s.spawn(|| {
            let mut last = (Instant::now(), 0u64);
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if ctx.interrupt.is_set() {
                    control.cancel();
                }
                // One small read: the start shell (the session leader) exits
                // when the service dies, whether it forked or exec'd it.
                if !crate::sample::procfs::leader_live(sid) {
                    died.store(true, Ordering::Relaxed);
                    control.cancel();
                }
                if let Some(tx) = events
                    && last.0.elapsed() >= Duration::from_secs(1)
                {
                    let now = (Instant::now(), control.completed());
                    let rps = (now.1 - last.1) as f64 / (now.0 - last.0).as_secs_f64();
                    let _ = tx.send(Event::CellProgress {
                        completed: now.1,
                        rps,
                    });
                    last = now;
                }
            }
        });
        let result = super::remote_load::run(ctx.plan, config, control);
        done.store(true, Ordering::Relaxed);
        super::remote_load::stop_if_host_lost(ctx.interrupt, &result);
        result
    });
    (result, died.load(Ordering::Relaxed))
}
/// What a measured window's load gave, written out: its report and row, or
/// the failed row of a load generator that failed.
pub(super) enum Window {
    Measured {
        report: Box<LoadReport>,
        row: Box<MeasurementRow>,
    },
    Failed(Box<MeasurementRow>),
}

/// The measured window recorded, for a service here or on a service host:
/// a failed load is a failed row; else its timeline, request mix, load
/// hosts' parts and HdrHistogram log are written and its row is made, with
/// the warmup's length and end.
pub(super) fn record_window(
    ctx: &CellContext,
    cell: &Cell,
    started_at: &str,
    result: Result<LoadReport, LoadError>,
    samples: &SamplerOutput,
    host: &HostWindow,
    (warmup_s, warmup_end): (f64, crate::results::WarmupEnd),
) -> Result<Window, crate::results::ResultsError> {
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            let mut row = base_row(cell, started_at);
            row.status = CellStatus::Failed;
            row.reason = one_line(&format!("load generator: {e}"));
            (row.warmup_s, row.warmup_end) = (warmup_s, warmup_end);
            return Ok(Window::Failed(Box::new(row)));
        }
    };
    write_timeline(ctx, cell, &report)?;
    super::request_mix::write(ctx.run, cell, &report)?;
    super::remote_load::write_hosts(ctx.run, &cell.id)?;
    let hlog = ctx.run.cell_file(HISTOGRAMS_DIR, &cell.id, "hlog");
    File::create(&hlog)
        .and_then(|f| report.write_hlog(BufWriter::new(f)))
        .map_err(crate::results::ResultsError::write(&hlog))?;
    let mut row = row_of(ctx, cell, started_at, &report, samples, host);
    (row.warmup_s, row.warmup_end) = (warmup_s, warmup_end);
    Ok(Window::Measured {
        report: Box::new(report),
        row: Box::new(row),
    })
}

pub(super) fn write_timeline(
    ctx: &CellContext,
    cell: &Cell,
    report: &LoadReport,
) -> Result<(), crate::results::ResultsError> {
    let rows: Vec<TimelineRow> = report
        .timeline
        .iter()
        .map(|s| TimelineRow {
            second: s.second as u32,
            ok: s.ok,
            errors: s.errors,
            p50_ms: s.p50_us as f64 / 1000.0,
            p99_ms: s.p99_us as f64 / 1000.0,
        })
        .collect();
    write_csv(&ctx.run.cell_file(TIMELINES_DIR, &cell.id, "csv"), &rows)
}

/// The columns every row has, whatever happened.
pub fn base_row(cell: &Cell, started_at: &str) -> MeasurementRow {
    let axis_int = |name: &str| {
        cell.axes
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| match v {
                AxisValue::Int(i) => Some(*i),
                _ => None,
            })
    };
    let (mode, target) = match cell.load.mode {
        LoadMode::Closed { .. } => (LoopMode::Closed, None),
        LoadMode::Open { rate, .. } => (LoopMode::Open, Some(rate)),
        LoadMode::Search(_) => (LoopMode::Search, None),
    };
    MeasurementRow {
        cell_id: cell.id.clone(),
        config_id: cell.config_id.clone(),
        runtime: cell.runtime.clone(),
        repeat: cell.repeat,
        axes: cell
            .axes
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(","),
        payload: axis_int("payload"),
        concurrency: axis_int("concurrency"),
        mode,
        target_rps: target,
        started_at: started_at.to_string(),
        profiled: cell.profiled,
        jdk_home: cell_jdk(cell)
            .and_then(|j| j.home.as_ref())
            .map(|h| h.display().to_string())
            .unwrap_or_default(),
        jdk_version: cell_jdk(cell)
            .and_then(|j| j.version.clone())
            .unwrap_or_default(),
        ..Default::default()
    }
}

/// The JDK of a cell whose start fields vary per cell (else `None`: the
/// runtime's JDK, recorded once in configurations.csv).
fn cell_jdk(cell: &Cell) -> Option<&crate::plan::JavaPlan> {
    cell.variant.as_ref().and_then(|v| v.java.as_ref())
}

pub(super) fn died_row(
    service: &mut Service,
    cell: &Cell,
    started_at: &str,
    phase: &str,
) -> MeasurementRow {
    // Give the start shell a moment to exit so its status is known.
    let deadline = Instant::now() + Duration::from_secs(2);
    while service.exited().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut row = base_row(cell, started_at);
    row.status = CellStatus::Failed;
    row.reason = one_line(&format!(
        "service died during the {phase} ({}); see {}; last log lines: {}",
        service.exit_text(),
        service.log().display(),
        service.log_tail()
    ));
    row
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

pub(super) fn row_of(
    ctx: &CellContext,
    cell: &Cell,
    started_at: &str,
    r: &LoadReport,
    s: &SamplerOutput,
    host: &HostWindow,
) -> MeasurementRow {
    let mut row = base_row(cell, started_at);
    let e = &r.errors;
    row.duration_s = r.elapsed.as_secs_f64();
    row.ok = r.ok;
    row.errors = e.total();
    row.err_connect_refused = e.connect_refused;
    row.err_connect_timeout = e.connect_timeout;
    row.err_request_timeout = e.request_timeout;
    row.err_reset = e.reset;
    row.err_status = e.status.values().sum();
    row.err_status_codes = e
        .status
        .iter()
        .map(|(c, n)| format!("{c}:{n}"))
        .collect::<Vec<_>>()
        .join(";");
    row.err_malformed = e.malformed;
    row.err_other = e.other;
    row.throughput_rps = r.throughput();
    let lat = &r.latency;
    row.latency_mean_ms = lat.mean() / 1000.0;
    row.latency_p50_ms = ms(lat.value_at_quantile(0.50));
    row.latency_p90_ms = ms(lat.value_at_quantile(0.90));
    row.latency_p95_ms = ms(lat.value_at_quantile(0.95));
    row.latency_p99_ms = ms(lat.value_at_quantile(0.99));
    row.latency_p999_ms = ms(lat.value_at_quantile(0.999));
    row.latency_max_ms = ms(lat.max());
    row.service_p50_ms = ms(r.service_time.value_at_quantile(0.50));
    row.service_p99_ms = ms(r.service_time.value_at_quantile(0.99));
    row.service_cpu_s = s.cpu_seconds();
    row.service_rss_mean_bytes = s.rss_mean();
    row.service_rss_max_bytes = s.rss_max();
    row.service_threads_max = s.threads_max();
    row.gen_cpu_s = r.generator.cpu_s();
    row.gen_cpu_share = r.generator.cpu_share;
    super::connections::fill_from_report(&mut row, r);
    s.fill_cgroup_columns(&mut row);
    if let Some(target) = r.target_rate {
        row.target_rps = Some(target);
    }
    let facts = CellFacts {
        saturated: r.saturated.as_deref(),
        gen_cpu_share: r.generator.cpu_share,
        rates: r.target_rate.map(|t| (t, r.achieved_rate)),
        successes: r.ok,
        errors: e.total(),
        evidence_missing: ctx.evidence_missing.as_deref(),
        generator_host: super::remote_load::generator_host(ctx.plan),
        ..gate_facts(&mut row, cell, &ctx.plan.gates, r, s, host)
    };
    let (status, reason) = verdict(&facts);
    row.status = status;
    row.reason = reason;
    row
}
