//! Starting and stopping the measured service of a runtime, with what
//! lifecycle.csv records: startup time, time to the first successful
//! workload request, idle and post-load RSS, how it stopped.
use std::time::Duration;

use regex::Regex;

use crate::exec::handle::first_success;
use crate::exec::measure::context::{CellContext, guarded_run};
use crate::exec::measure::load_config::warmup_config;
use crate::exec::rules::verdict::one_line;
use crate::exec::start::first_requests::record as record_first_requests;
use crate::exec::start::started::{Running, StartFailure};
use crate::plan::{Cell, RuntimePlan};
use crate::results::{LifecycleRow, Phase, StopOutcome, rfc3339_now};
use crate::sample::session_usage;
use crate::service::{Service, ServiceCommand, StopKind};
use crate::train::find_evidence;

/// Starts `rt` for measuring: health, first request, idle RSS, service
/// warmup with `first_cell`'s load, training evidence.
pub fn start_measured(
    ctx: &CellContext,
    rt: &RuntimePlan,
    start_index: u32,
    first_cell: &Cell,
) -> Result<Running<Service>, Box<StartFailure>> {
    let log = ctx.run.log(&rt.name);
    let provenance = crate::exec::start::provenance::check_before_start(ctx, rt);
    let offset = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
    let mut lifecycle = LifecycleRow {
        runtime: rt.name.clone(),
        phase: Phase::Measure,
        start_index,
        started_at: rfc3339_now(),
        ..Default::default()
    };
    let mut command =
        ServiceCommand::measured(rt, ctx.plan.affinity.as_ref().map(|a| a.service.clone()));
    command.limits = first_cell.limits.clone();
    command
        .env
        .extend(crate::exec::measure::profiling::start_env(
            ctx,
            rt,
            start_index,
        ));
    let fail =
        |reason: String, mut lifecycle: LifecycleRow, service: Option<Service>, cancelled: bool| {
            if let Some(service) = service {
                let report = service.stop(&rt.stop);
                let (kind, status) = match report {
                    Ok(r) => {
                        lifecycle.log_dropped_bytes = r.log_dropped_bytes;
                        (r.kind.into(), r.exit_status)
                    }
                    Err(e) => (StopOutcome::Killed, e.to_string()),
                };
                lifecycle.stop = Some(kind);
                lifecycle.exit_status = status;
            }
            Box::new(StartFailure {
                reason: one_line(&reason),
                lifecycle,
                cancelled,
            })
        };
    let mut service = match Service::start(&command, &log) {
        Ok(s) => s,
        Err(e) => return Err(fail(e.to_string(), lifecycle, None, false)),
    };
    let interrupt = ctx.interrupt;
    let startup = match service.wait_ready(&rt.health, &|| interrupt.is_set()) {
        Ok(times) => times,
        Err(e) => {
            let cancelled = interrupt.is_set();
            return Err(fail(e.to_string(), lifecycle, Some(service), cancelled));
        }
    };
    lifecycle.port_ms = Some(millis(startup.port));
    lifecycle.startup_ms = Some(millis(startup.healthy));
    match first_success(&mut service, first_cell, rt.health.timeout, &|| {
        interrupt.is_set()
    }) {
        Ok(first) => {
            lifecycle.first_request_ms =
                Some(millis(first.answered.duration_since(service.spawned_at())));
            let start = (Phase::Measure, start_index);
            if let Err(why) =
                record_first_requests(ctx, service.addr(), rt, start, first_cell, first.latency)
            {
                let reason = format!("runtime {}: {why}", rt.name);
                let cancelled = interrupt.is_set();
                return Err(fail(reason, lifecycle, Some(service), cancelled));
            }
        }
        Err(e) => {
            let reason = format!(
                "runtime {}: the first workload request never succeeded: {e}",
                rt.name
            );
            return Err(fail(reason, lifecycle, Some(service), false));
        }
    }
    lifecycle.idle_rss_bytes = Some(session_usage(service.sid()).rss_bytes);
    if !ctx.plan.service_warmup.is_zero() {
        let cpus = ctx.plan.affinity.as_ref().map(|a| a.load.clone());
        let config = warmup_config(first_cell, service.addr(), cpus, ctx.plan.service_warmup);
        let (_, died) = guarded_run(ctx, &service, &config, None);
        if interrupt.is_set() {
            return Err(fail("interrupted".into(), lifecycle, Some(service), true));
        }
        if died || !service.is_alive() {
            let reason = format!(
                "runtime {}: the service died during the service warmup ({}); see {}; last log lines: {}",
                rt.name,
                service.exit_text(),
                log.display(),
                service.log_tail()
            );
            return Err(fail(reason, lifecycle, Some(service), false));
        }
    }
    let evidence = rt
        .train
        .as_ref()
        .and_then(|t| t.evidence.as_ref())
        .map(|pattern| check_evidence(&log, offset, pattern, &rt.name));
    let seen = Some(crate::exec::start::containment::observe(&service, rt));
    // A trained artifact that is not the one trained outweighs any log line.
    let evidence = provenance.map(Err).or(evidence);
    Ok(Running {
        service,
        lifecycle,
        evidence,
        seen,
    })
}

/// `Ok(line)`: the first line of `log` after `offset` matching `pattern`.
pub(crate) fn check_evidence(
    log: &std::path::Path,
    offset: u64,
    pattern: &str,
    runtime: &str,
) -> Result<String, String> {
    let re = Regex::new(pattern).map_err(|e| {
        format!("runtime {runtime}: invalid train.evidence pattern `{pattern}`: {e}")
    })?;
    find_evidence(log, offset, &re).ok_or_else(|| {
        format!(
            "no line of {} matched `{pattern}` after this start",
            log.display()
        )
    })
}

/// A duration in milliseconds, as lifecycle.csv records it.
pub fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Records post-load RSS, stops the service and completes its lifecycle row.
pub fn stop_measured(
    rt: &RuntimePlan,
    mut running: Running<Service>,
) -> (LifecycleRow, Option<String>) {
    let mut row = running.lifecycle;
    if running.service.is_alive() {
        row.post_load_rss_bytes = Some(session_usage(running.service.sid()).rss_bytes);
    }
    match running.service.stop(&rt.stop) {
        Ok(report) => {
            row.stop = Some(report.kind.into());
            row.exit_status = report.exit_status;
            row.log_dropped_bytes = report.log_dropped_bytes;
            (row, None)
        }
        Err(e) => {
            row.stop = Some(StopOutcome::Killed);
            row.exit_status = e.to_string();
            (row, Some(e.to_string()))
        }
    }
}

/// lifecycle.csv records how the service layer says a service ended.
impl From<StopKind> for StopOutcome {
    fn from(kind: StopKind) -> Self {
        match kind {
            StopKind::Graceful => StopOutcome::Graceful,
            StopKind::Killed => StopOutcome::Killed,
            StopKind::Died => StopOutcome::Died,
        }
    }
}
