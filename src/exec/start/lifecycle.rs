//! Starting and stopping the measured service of a runtime, here or on a
//! service host (one path for both, against [`StartSite`]), with what
//! lifecycle.csv records: startup time, time to the first successful
//! workload request, idle and post-load RSS, how it stopped.

use regex::Regex;

use crate::exec::handle::{ServiceHandle, first_success};
use crate::exec::measure::cell::CellTarget;
use crate::exec::measure::context::CellContext;
use crate::exec::measure::load_config::warmup_config;
use crate::exec::rules::verdict::one_line;
use crate::exec::start::first_requests::record as record_first_requests;
use crate::exec::start::site::{Again, MemorySubject, Spawn, StartSite};
use crate::exec::start::started::{Running, StartFailure};
use crate::plan::{Cell, RuntimePlan};
use crate::results::{LifecycleRow, Phase, StopOutcome, rfc3339_now};
use crate::service::StopKind;
use crate::train::find_evidence;

/// Starts `rt` for measuring at `site`: health, first request, idle RSS,
/// service warmup with `first_cell`'s load, training evidence.
pub(crate) fn start_measured<S: StartSite>(
    site: &mut S,
    ctx: &CellContext,
    rt: &RuntimePlan,
    start_index: u32,
    first_cell: &Cell,
) -> Result<Running<S::Service>, Box<StartFailure>> {
    let provenance = site.check_provenance(ctx, rt);
    let offset = std::fs::metadata(ctx.run.log(&rt.name)).map_or(0, |m| m.len());
    let start = (Phase::Measure, start_index);
    let mut lifecycle = fresh_row(rt, start);
    let how = Spawn::Measured {
        cell: first_cell,
        start_index,
    };
    let answered = until_first_answer(site, ctx, rt, how, start, first_cell, &mut lifecycle);
    let warmed = answered.and_then(|mut service| {
        lifecycle.idle_rss_bytes = site.rss_bytes(&mut service);
        lifecycle.shell_rss_bytes = site.shell_rss_bytes(&mut service);
        match service_warmup(ctx, rt, &mut service, first_cell) {
            Ok(()) => Ok(service),
            Err(why) => Err(Unanswered {
                service: Some(service),
                why,
                again: Again::MightWork,
            }),
        }
    });
    let mut service = match warmed {
        Ok(service) => service,
        Err(Unanswered { service, why, .. }) => {
            if let Some(service) = service {
                site.stop(rt, service, &mut lifecycle);
            }
            return Err(Box::new(StartFailure {
                reason: one_line(&why),
                lifecycle,
                cancelled: ctx.interrupt.is_set(),
            }));
        }
    };
    let evidence = rt
        .train
        .as_ref()
        .and_then(|t| t.evidence.as_ref())
        .map(|pattern| check_evidence(&service.log_here(), offset, pattern, &rt.name));
    let seen = site.observe(&service, rt);
    Ok(Running {
        service,
        lifecycle,
        // A trained artifact that is not the one trained outweighs any log line.
        evidence: provenance.map(Err).or(evidence),
        seen,
    })
}

/// The lifecycle row of a start of `rt` (`start`: its phase and index), begun now.
pub(crate) fn fresh_row(rt: &RuntimePlan, (phase, start_index): (Phase, u32)) -> LifecycleRow {
    LifecycleRow {
        runtime: rt.name.clone(),
        phase,
        start_index,
        started_at: rfc3339_now(),
        ..Default::default()
    }
}

/// Why a fresh service got no further than it did, the service when one
/// was left running (the caller stops it), and whether another start could
/// go differently.
pub(crate) struct Unanswered<S> {
    pub service: Option<S>,
    pub why: String,
    pub again: Again,
}

/// A fresh process of `rt` at `site` up to its first successful workload
/// request: spawned `how`, healthy, its first requests recorded in
/// first-requests.csv as start `start`, and its times (port, health, first
/// answer) in `row`.
pub(crate) fn until_first_answer<S: StartSite>(
    site: &mut S,
    ctx: &CellContext,
    rt: &RuntimePlan,
    how: Spawn,
    start: (Phase, u32),
    cell: &Cell,
    row: &mut LifecycleRow,
) -> Result<S::Service, Unanswered<S::Service>> {
    let spawned = site
        .spawn_ready(ctx, rt, how, row)
        .map_err(|failure| Unanswered {
            service: None,
            why: failure.why,
            again: failure.again,
        })?;
    row.port_ms = spawned.port_ms;
    row.startup_ms = Some(spawned.startup_ms);
    let mut service = spawned.service;
    let interrupt = ctx.interrupt;
    let answered = first_success(&mut service, cell, rt.health.timeout, &|| {
        interrupt.is_set()
    })
    .map_err(|e| {
        format!(
            "runtime {}: the first workload request to {} never succeeded: {e}",
            rt.name,
            service.addr()
        )
    })
    .and_then(|first| {
        record_first_requests(ctx, service.addr(), rt, start, cell, first.latency)
            .map_err(|why| format!("runtime {}: {why}", rt.name))?;
        Ok(site.first_request_ms(&service, spawned.startup_ms, &first))
    });
    match answered {
        Ok(ms) => {
            row.first_request_ms = Some(ms);
            Ok(service)
        }
        Err(why) => Err(Unanswered {
            service: Some(service),
            why,
            again: Again::MightWork,
        }),
    }
}

/// The plan's `service_warmup`: `cell`'s load for that long before any
/// cell, so that no cell's own warmup starts from a cold process.
fn service_warmup(
    ctx: &CellContext,
    rt: &RuntimePlan,
    service: &mut impl CellTarget,
    cell: &Cell,
) -> Result<(), String> {
    if ctx.plan.service_warmup.is_zero() {
        return Ok(());
    }
    let cpus = service.load_cpus(ctx);
    let config = warmup_config(
        cell,
        &crate::exec::measure::load_config::Aim::of(ctx, service.addr()),
        cpus,
        ctx.plan.service_warmup,
    );
    let died = service.guarded_warmup(ctx, &config);
    if ctx.interrupt.is_set() {
        return Err("interrupted".into());
    }
    if died || !service.is_alive() {
        let (exit, tail) = (service.exit_text(), service.log_tail());
        return Err(format!(
            "runtime {}: the service died{} during the service warmup ({exit}); see {}; last log lines: {tail}",
            rt.name,
            service.site_words(),
            service.log_path().display(),
        ));
    }
    Ok(())
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

/// Records post-load RSS, stops the service and completes its lifecycle row.
pub(crate) fn stop_measured<S: StartSite>(
    site: &mut S,
    rt: &RuntimePlan,
    running: Running<S::Service>,
) -> (LifecycleRow, Option<String>) {
    let Running {
        mut service,
        lifecycle: mut row,
        ..
    } = running;
    if service.is_alive() {
        row.post_load_rss_bytes = site.rss_bytes(&mut service);
    }
    let problem = site.stop(rt, service, &mut row);
    (row, problem)
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
