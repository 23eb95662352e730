//! Cold starts measured for their times alone (`startup.repeats`): each a
//! fresh process, started, timed to the port, to health and to the first
//! successful workload request, then stopped. One start gives no spread; a
//! few show whether the 12 ms against 78 ms of two runtimes is a difference
//! or noise.
use crate::exec::handle::first_success;
use crate::exec::measure::context::CellContext;
use crate::exec::rules::verdict::one_line;
use crate::exec::start::first_requests::record as record_first_requests;
use crate::exec::start::lifecycle::millis;
use crate::plan::{Cell, RuntimePlan};
use crate::results::{LifecycleRow, Phase, StopOutcome, rfc3339_now};
use crate::service::{Service, ServiceCommand};

/// One cold start: its lifecycle row, and whether it completed (when not,
/// `exit_status` says what went wrong and no further cold start is tried).
#[derive(Debug, Clone)]
pub struct ColdStart {
    pub row: LifecycleRow,
    pub completed: bool,
}

impl ColdStart {
    fn done(row: LifecycleRow) -> ColdStart {
        ColdStart {
            row,
            completed: true,
        }
    }
    fn failed(row: LifecycleRow) -> ColdStart {
        ColdStart {
            row,
            completed: false,
        }
    }
}

/// One cold start of `rt` (the `index`-th, from 1), timed to the port, to
/// health and to the first successful workload request, then stopped.
pub fn cold_start(ctx: &CellContext, rt: &RuntimePlan, index: u32, first_cell: &Cell) -> ColdStart {
    let mut row = LifecycleRow {
        runtime: rt.name.clone(),
        phase: Phase::Startup,
        start_index: index,
        started_at: rfc3339_now(),
        ..Default::default()
    };
    let command =
        ServiceCommand::measured(rt, ctx.plan.affinity.as_ref().map(|a| a.service.clone()));
    let mut service = match Service::start(&command, &ctx.run.log(&rt.name)) {
        Ok(s) => s,
        Err(e) => {
            row.exit_status = one_line(&e.to_string());
            return ColdStart::failed(row);
        }
    };
    let interrupt = ctx.interrupt;
    let cancelled = || interrupt.is_set();
    let mut problem = None;
    match service.wait_ready(&rt.health, &cancelled) {
        Ok(times) => {
            row.port_ms = Some(millis(times.port));
            row.startup_ms = Some(millis(times.healthy));
            match first_success(&mut service, first_cell, rt.health.timeout, &cancelled) {
                Ok(first) => {
                    row.first_request_ms =
                        Some(millis(first.answered.duration_since(service.spawned_at())));
                    let start = (Phase::Startup, index);
                    if let Err(why) = record_first_requests(
                        ctx,
                        service.addr(),
                        rt,
                        start,
                        first_cell,
                        first.latency,
                    ) {
                        problem = Some(format!("runtime {}: {why}", rt.name));
                    }
                }
                Err(e) => {
                    problem = Some(format!(
                        "runtime {}: the first workload request never succeeded: {e}",
                        rt.name
                    ))
                }
            }
        }
        Err(e) => problem = Some(e.to_string()),
    }
    let stopped = service.stop(&rt.stop);
    if let Ok(report) = &stopped {
        row.log_dropped_bytes = report.log_dropped_bytes;
    }
    match (stopped, problem) {
        (Ok(report), None) => {
            row.stop = Some(report.kind.into());
            row.exit_status = report.exit_status;
            ColdStart::done(row)
        }
        (Ok(report), Some(problem)) => {
            row.stop = Some(report.kind.into());
            row.exit_status = one_line(&problem);
            ColdStart::failed(row)
        }
        (Err(e), _) => {
            row.stop = Some(StopOutcome::Killed);
            row.exit_status = one_line(&e.to_string());
            ColdStart::failed(row)
        }
    }
}
