//! Measuring a `mode: search` cell: the cell warmup, then one normal
//! open-loop run of the load engine per step (a short warmup and a measured
//! window at the step's rate), the next rate chosen by
//! [`crate::exec::rules::search_rule`]. Every step goes to `search/<cell>.csv`; the
//! measurement row is the best held step's, with `target_rps` the found rate.
use std::fs::File;
use std::io::BufWriter;
use std::time::{Duration, Instant};

use crate::exec::handle::died_row;
use crate::exec::measure::cell_facts::HostWindow;
use crate::exec::measure::context::{CellContext, CellEnd, guarded_run};
use crate::exec::measure::load_config::measure_config;
use crate::exec::measure::row::{base_row, row_of, write_timeline};
use crate::exec::measure::warmup::warm_up_cell;
use crate::exec::rules::search_rule::{Next, SearchEnd, StepFigures, judge, next_step};
use crate::exec::rules::verdict::one_line;
use crate::load::{Arrival, LoadReport, StopCondition};
use crate::plan::Cell;
use crate::plan::contract::search::SearchPlan;
use crate::results::{
    CellStatus, HISTOGRAMS_DIR, MeasurementRow, ResultsError, SAMPLES_DIR, SEARCH_DIR,
    SearchStepRow, rfc3339_now, write_csv,
};
use crate::sample::{Sampler, SamplerOutput};
use crate::service::Service;

/// A measured step, kept while it is the best held one.
struct Measured {
    report: LoadReport,
    samples: SamplerOutput,
    host: HostWindow,
}

/// How one step's run ended.
enum StepRun {
    Done(Box<Measured>),
    End(CellEnd),
}

/// Runs the search of `cell` against `service` (see the module doc).
pub fn measure_search(
    ctx: &CellContext,
    service: &mut Service,
    cell: &Cell,
    plan: &SearchPlan,
) -> Result<CellEnd, ResultsError> {
    let load_cpus = ctx.plan.affinity.as_ref().map(|a| a.load.clone());
    let started_at = rfc3339_now();
    let (warmup_s, warmup_end) =
        match warm_up_cell(ctx, service, cell, load_cpus.clone(), &started_at) {
            Ok(warmed) => warmed,
            Err(end) => return Ok(end),
        };
    let mut probes: Vec<(f64, bool)> = Vec::new();
    let mut steps: Vec<SearchStepRow> = Vec::new();
    let mut best: Option<Box<Measured>> = None;
    let mut first: Option<Box<Measured>> = None;
    let end = loop {
        let rate = match next_step(plan, &probes) {
            Next::Probe(rate) => rate,
            Next::Done(end) => break end,
        };
        let measured = match run_step(ctx, service, cell, plan, rate, load_cpus.clone())? {
            StepRun::Done(m) => m,
            StepRun::End(end) => {
                write_steps(ctx, cell, &steps)?;
                return Ok(with_warmup(end, warmup_s, warmup_end));
            }
        };
        let r = &measured.report;
        let figures = StepFigures {
            target_rps: rate,
            achieved_rps: r.achieved_rate,
            p99: Duration::from_micros(r.latency.value_at_quantile(0.99)),
            requests: r.ok + r.errors.total(),
            errors: r.errors.total(),
        };
        let verdict = judge(plan, &figures);
        steps.push(SearchStepRow {
            step: steps.len() as u32 + 1,
            target_rps: rate,
            achieved_rps: r.achieved_rate,
            p50_ms: r.latency.value_at_quantile(0.5) as f64 / 1e3,
            p99_ms: figures.p99.as_secs_f64() * 1e3,
            requests: figures.requests,
            errors: figures.errors,
            held: verdict.held(),
            why_not: verdict.why_not(plan, rate),
        });
        probes.push((rate, verdict.held()));
        let best_rate = best
            .as_ref()
            .and_then(|b| b.report.target_rate)
            .unwrap_or(0.0);
        if verdict.held() && rate > best_rate {
            best = Some(measured);
        } else if first.is_none() && steps.len() == 1 {
            first = Some(measured);
        }
    };
    write_steps(ctx, cell, &steps)?;
    let Some(kept) = best.or(first) else {
        return Ok(CellEnd::Interrupted);
    };
    let mut row = write_step_files(ctx, cell, &started_at, &kept)?;
    (row.warmup_s, row.warmup_end) = (warmup_s, warmup_end);
    apply_end(&mut row, plan, &end, &steps);
    Ok(CellEnd::Recorded(Box::new(row)))
}

/// One step: load at `rate` for the step warmup plus window, the service sampled.
fn run_step(
    ctx: &CellContext,
    service: &mut Service,
    cell: &Cell,
    plan: &SearchPlan,
    rate: f64,
    cpus: Option<Vec<usize>>,
) -> Result<StepRun, ResultsError> {
    let mut config = measure_config(
        cell,
        &crate::exec::measure::load_config::Aim::of(ctx, service.addr()),
        cpus,
    );
    config.arrival = Arrival::Open {
        rate,
        connections: plan.connections as usize,
        ramp: None,
    };
    config.warmup = plan.step_warmup;
    config.stop = StopCondition::Duration(plan.step_window);
    let sampler = Sampler::start_with_cgroup(
        service.sid(),
        service.cgroup().map(|c| c.usage_files()),
        ctx.plan.sample_interval,
        Instant::now(),
        Box::new(|| {}),
    );
    let host = HostWindow::open(!ctx.plan.hosts.remote_load());
    let (result, died) = guarded_run(ctx, service, &config, Some(ctx.events));
    let host = host.close();
    let samples = sampler.finish();
    if ctx.interrupt.is_set() {
        return Ok(StepRun::End(CellEnd::Interrupted));
    }
    let started_at = rfc3339_now();
    if died || samples.session_vanished || !service.is_alive() {
        let what = format!("search step at {rate:.0} req/s");
        let row = died_row(service, base_row(cell, &started_at), &what);
        return Ok(StepRun::End(CellEnd::ServiceDied(Box::new(row))));
    }
    match result {
        Ok(report) => Ok(StepRun::Done(Box::new(Measured {
            report,
            samples,
            host,
        }))),
        Err(e) => {
            let mut row = base_row(cell, &started_at);
            row.status = CellStatus::Failed;
            row.reason = one_line(&format!("load generator at {rate:.0} req/s: {e}"));
            Ok(StepRun::End(CellEnd::Recorded(Box::new(row))))
        }
    }
}

fn with_warmup(end: CellEnd, warmup_s: f64, warmup_end: crate::results::WarmupEnd) -> CellEnd {
    match end {
        CellEnd::Recorded(mut row) => {
            (row.warmup_s, row.warmup_end) = (warmup_s, warmup_end);
            CellEnd::Recorded(row)
        }
        other => other,
    }
}

fn write_steps(
    ctx: &CellContext,
    cell: &Cell,
    steps: &[SearchStepRow],
) -> Result<(), ResultsError> {
    let path = ctx.run.cell_file(SEARCH_DIR, &cell.id, "csv");
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(ResultsError::write(dir))?;
    }
    write_csv(&path, steps)
}

/// The kept step's samples, timeline and histogram, as a normal cell's; its row.
fn write_step_files(
    ctx: &CellContext,
    cell: &Cell,
    started_at: &str,
    kept: &Measured,
) -> Result<MeasurementRow, ResultsError> {
    write_csv(
        &ctx.run.cell_file(SAMPLES_DIR, &cell.id, "csv"),
        &kept.samples.rows,
    )?;
    write_timeline(ctx, cell, &kept.report)?;
    let hlog = ctx.run.cell_file(HISTOGRAMS_DIR, &cell.id, "hlog");
    File::create(&hlog)
        .and_then(|f| kept.report.write_hlog(BufWriter::new(f)))
        .map_err(ResultsError::write(&hlog))?;
    Ok(row_of(
        ctx,
        cell,
        started_at,
        &kept.report,
        &kept.samples,
        &kept.host,
    ))
}

/// Status and reason of the row from how the search ended. A found maximum
/// keeps the held step's own verdict (its gates); the others are `suspect`:
/// the figure is a bound, not the maximum.
fn apply_end(
    row: &mut MeasurementRow,
    plan: &SearchPlan,
    end: &SearchEnd,
    steps: &[SearchStepRow],
) {
    let n = steps.len();
    let why = match *end {
        SearchEnd::Found { .. } => return,
        SearchEnd::AboveRange { rate } => format!(
            "the maximum is above the searched range: `to` ({rate:.0} req/s) held; raise `load.to`"
        ),
        SearchEnd::BelowRange => {
            row.target_rps = None;
            let first = steps.first().map(|s| s.why_not.as_str()).unwrap_or("");
            format!(
                "the maximum is below the searched range: even `from` ({:.0} req/s) failed ({first}); \
                 the latency columns are that step's; lower `load.from`",
                plan.from
            )
        }
        SearchEnd::StepLimit { held, first_failed } => format!(
            "max_steps ({}) ran out after {n} steps before the bracket was within {:.0}%: \
             the maximum is between {:.0} and {} req/s; raise `load.step.max_steps`",
            plan.max_steps,
            plan.precision * 100.0,
            held.unwrap_or(0.0),
            first_failed.map_or("`to`".to_string(), |f| format!("{f:.0}"))
        ),
    };
    row.status = CellStatus::Suspect;
    row.reason = one_line(&if row.reason.is_empty() {
        why
    } else {
        format!("{why}; {}", row.reason)
    });
}
