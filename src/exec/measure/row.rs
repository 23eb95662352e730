//! A cell's measurement row and the files of its measured window: the
//! columns every row has, the row of a load report judged by the gates, the
//! timeline, request mix, load hosts' parts and HdrHistogram log written,
//! and the sampler's interval inside a window. The same for a service here
//! or on a service host.
use std::fs::File;
use std::io::BufWriter;
use std::time::Duration;

use crate::exec::handle::{ServiceHandle, died_row};
use crate::exec::measure::cell_facts::{HostWindow, gate_facts};
use crate::exec::measure::context::CellContext;
use crate::exec::rules::facts::CellFacts;
use crate::exec::rules::verdict::{one_line, verdict};
use crate::load::{LoadError, LoadReport};
use crate::plan::{Cell, LoadMode};
use crate::results::{
    CellStatus, HISTOGRAMS_DIR, LoopMode, MeasurementRow, SAMPLES_DIR, TIMELINES_DIR, TimelineRow,
    write_csv,
};
use crate::sample::SamplerOutput;
use crate::spec::values::AxisValue;

/// The sampler's interval inside a measured window. With
/// `sample: { during_measure: false }` it is longer than any window, so the
/// sampler reads once at the start and once at `finish()`: CPU and memory
/// of the window still come from those two readings, and nothing of the
/// runner wakes up on the host while the latencies are recorded.
pub(crate) fn measure_sample_interval(plan: &crate::plan::Plan) -> Duration {
    if plan.sample_during_measure {
        plan.sample_interval
    } else {
        UNSAMPLED_WINDOW
    }
}

/// Longer than any measured window (a day); short enough that `Instant +`
/// it never overflows.
const UNSAMPLED_WINDOW: Duration = Duration::from_secs(86_400);

/// What one measured load gave, with the service's samples and the host's
/// counters taken over its window alone (this host's sampler, or the far
/// side's for a service host).
pub(crate) struct SampledRun {
    pub result: Result<LoadReport, LoadError>,
    /// The service's process tree disappeared during the run.
    pub died: bool,
    pub samples: SamplerOutput,
    pub host: HostWindow,
}

/// What a measured window's load gave, written out: its report and row, the
/// failed row of a load generator that failed, or the failed row of a
/// service that died during it.
pub(crate) enum Window {
    Measured {
        report: Box<LoadReport>,
        row: Box<MeasurementRow>,
    },
    Failed(Box<MeasurementRow>),
    ServiceDied(Box<MeasurementRow>),
}

/// The measured window recorded, for a service here or on a service host:
/// its samples written; a service that died is a failed row; a failed load
/// is a failed row; else its timeline, request mix, load hosts' parts and
/// HdrHistogram log are written and its row is made, with the warmup's
/// length and end.
pub(crate) fn record_window(
    ctx: &CellContext,
    service: &mut impl ServiceHandle,
    cell: &Cell,
    started_at: &str,
    run: SampledRun,
    (warmup_s, warmup_end): (f64, crate::results::WarmupEnd),
) -> Result<Window, crate::results::ResultsError> {
    let SampledRun {
        result,
        died,
        samples,
        host,
    } = run;
    write_csv(
        &ctx.run.cell_file(SAMPLES_DIR, &cell.id, "csv"),
        &samples.rows,
    )?;
    if died || samples.session_vanished || !service.is_alive() {
        let row = died_row(service, base_row(cell, started_at), "measurement");
        return Ok(Window::ServiceDied(Box::new(row)));
    }
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
    crate::exec::measure::request_mix::write(ctx.run, cell, &report)?;
    crate::exec::measure::remote_load::write_hosts(ctx.run, &cell.id)?;
    let hlog = ctx.run.cell_file(HISTOGRAMS_DIR, &cell.id, "hlog");
    File::create(&hlog)
        .and_then(|f| report.write_hlog(BufWriter::new(f)))
        .map_err(crate::results::ResultsError::write(&hlog))?;
    let mut row = row_of(ctx, cell, started_at, &report, &samples, &host);
    (row.warmup_s, row.warmup_end) = (warmup_s, warmup_end);
    Ok(Window::Measured {
        report: Box::new(report),
        row: Box::new(row),
    })
}

pub(crate) fn write_timeline(
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
        protocol: cell.load.transport.protocol.key().to_owned(),
        ..Default::default()
    }
}

/// The JDK of a cell whose start fields vary per cell (else `None`: the
/// runtime's JDK, recorded once in configurations.csv).
fn cell_jdk(cell: &Cell) -> Option<&crate::plan::JavaPlan> {
    cell.variant.as_ref().and_then(|v| v.java.as_ref())
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

pub(crate) fn row_of(
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
    crate::exec::measure::connections::fill_from_report(&mut row, r);
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
        generator_host: crate::exec::measure::remote_load::generator_host(ctx.plan),
        ..gate_facts(&mut row, cell, &ctx.plan.gates, r, s, host)
    };
    let (status, reason) = verdict(&facts);
    row.status = status;
    row.reason = reason;
    row
}
