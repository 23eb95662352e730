//! Memory measured in phases on fresh processes (the spec's `memory:`), the
//! "Node.js vs Go for a JSON API" study's method, apart from the latency
//! cells: for one runtime, one fresh process is started, read idle once it
//! has been healthy for `settle`, given the declared closed-loop load, read
//! again right after, and stopped. No sampler runs meanwhile: the two
//! readings are all that touch the service, so they cannot distort a
//! latency and no latency cell pays for them.
//!
//! The readings total every process of the service (a Node cluster's
//! primary and its workers): RSS summed, PSS summed (shared pages split)
//! and, where the service has a memory cgroup, its `memory.current`.
use std::time::{Duration, Instant};

use crate::exec::measure::context::CellContext;
use crate::exec::measure::load_config::measure_config;
use crate::exec::rules::verdict::one_line;
pub use crate::exec::start::site::{LoadOutcome, MemorySubject};
use crate::exec::start::site::{Spawn, StartSite};
use crate::load::{Arrival, LoadConfig, StopCondition};
use crate::plan::contract::memory::MemoryPlan;
use crate::plan::{Cell, RuntimePlan};
use crate::results::{LifecycleRow, MemoryPhaseRow, MemoryPhaseStatus};
pub use crate::sample::MemoryReading;

/// The (runtime, process) pairs memory-phases.csv at `path` already holds
/// (none when it is missing or unreadable: those are measured again).
pub fn recorded(path: &std::path::Path) -> std::collections::HashSet<(String, u32)> {
    crate::results::read_csv::<MemoryPhaseRow>(path)
        .ok()
        .flatten()
        .unwrap_or_default()
        .into_iter()
        .map(|r| (r.runtime, r.process))
        .collect()
}

/// Runtimes of `plan` (those with cells) with a memory process still to
/// measure, given what `path` holds: a resumed run needs them even when all
/// their cells are recorded.
pub fn runtimes_left(plan: &crate::plan::Plan, path: &std::path::Path) -> Vec<String> {
    let Some(memory) = &plan.memory else {
        return Vec::new();
    };
    let done = recorded(path);
    plan.runtimes
        .iter()
        .filter(|rt| plan.cells.iter().any(|c| c.runtime == rt.name))
        .filter(|rt| (1..=memory.repeats).any(|i| !done.contains(&(rt.name.clone(), i))))
        .map(|rt| rt.name.clone())
        .collect()
}

/// The load between the readings: `cell`'s requests (the runtime's first
/// cell, so the same workload as the latency cells), closed loop at the
/// declared connections, for the declared duration.
pub fn memory_load(
    cell: &Cell,
    memory: &MemoryPlan,
    aim: &crate::exec::measure::load_config::Aim,
    cpus: Option<Vec<usize>>,
) -> LoadConfig {
    LoadConfig {
        arrival: Arrival::Closed {
            connections: memory.connections as usize,
        },
        stop: StopCondition::Duration(memory.duration),
        // The declared load at once: the connection ramp is the windows'.
        connection_ramp: std::time::Duration::ZERO,
        ..measure_config(cell, aim, cpus)
    }
}

/// One fresh process of `rt` at `site` through the phases; the row says
/// how far it got. A memory process runs without the cells' limits.
pub(crate) fn memory_phase<S: StartSite>(
    site: &mut S,
    ctx: &CellContext,
    rt: &RuntimePlan,
    index: u32,
    cell: &Cell,
    memory: &MemoryPlan,
) -> MemoryPhaseRow {
    let mut row = empty_row(rt, index, memory);
    let mut lifecycle = LifecycleRow::default();
    let mut service = match site.spawn_ready(ctx, rt, Spawn::Bare, &mut lifecycle) {
        Ok(spawned) => spawned.service,
        Err(failure) => return conclude(row, rt, Some(failure.why), Ok(())),
    };
    let problem = phases(ctx, &mut service, cell, memory, &mut row);
    let stopped = match site.stop(rt, service, &mut lifecycle) {
        None => Ok(()),
        Some(problem) => Err(problem),
    };
    conclude(row, rt, problem, stopped)
}

/// A row of `rt`'s `index`-th memory process that got nowhere yet.
pub fn empty_row(rt: &RuntimePlan, index: u32, memory: &MemoryPlan) -> MemoryPhaseRow {
    MemoryPhaseRow {
        runtime: rt.name.clone(),
        process: index,
        status: MemoryPhaseStatus::Failed,
        processes: 0,
        idle_rss_bytes: None,
        idle_pss_bytes: None,
        idle_cgroup_bytes: None,
        after_rss_bytes: None,
        after_pss_bytes: None,
        after_cgroup_bytes: None,
        connections: memory.connections,
        load_seconds: 0.0,
        requests_ok: 0,
        errors: 0,
        reason: String::new(),
    }
}

/// The row's status and reason from the phases' `problem` and the stop's.
pub fn conclude(
    mut row: MemoryPhaseRow,
    rt: &RuntimePlan,
    problem: Option<String>,
    stopped: Result<(), String>,
) -> MemoryPhaseRow {
    let index = row.process;
    row.reason = match (problem, stopped) {
        (Some(p), _) => one_line(&format!("memory process {index} of {}: {p}", rt.name)),
        (None, Err(e)) => one_line(&format!("memory process {index} of {}: stop: {e}", rt.name)),
        (None, Ok(())) => {
            row.status = MemoryPhaseStatus::Ok;
            String::new()
        }
    };
    row
}

/// On a healthy `service`: settle, idle reading, load, reading after;
/// `Some(why)` when a phase failed.
pub fn phases(
    ctx: &CellContext,
    service: &mut impl MemorySubject,
    cell: &Cell,
    memory: &MemoryPlan,
    row: &mut MemoryPhaseRow,
) -> Option<String> {
    let interrupt = ctx.interrupt;
    if !sleep_unless(memory.settle, &|| interrupt.is_set()) {
        return Some("interrupted while settling".into());
    }
    let idle = match service.reading() {
        Ok(r) => r,
        Err(e) => return Some(format!("the idle reading failed: {e}")),
    };
    row.processes = idle.processes;
    (
        row.idle_rss_bytes,
        row.idle_pss_bytes,
        row.idle_cgroup_bytes,
    ) = (idle.rss_bytes, idle.pss_bytes, idle.cgroup_bytes);
    // The load's CPUs where it runs here; a remote load host has its own.
    let load_cpus = ctx.plan.affinity.as_ref().map(|a| a.load.clone());
    let config = memory_load(
        cell,
        memory,
        &crate::exec::measure::load_config::Aim::of(ctx, service.addr()),
        load_cpus,
    );
    let LoadOutcome { report, died } = service.load(ctx, &config);
    // Right after the load, before anything else touches the service.
    let after = match service.reading() {
        Ok(r) => r,
        Err(e) => return Some(format!("the reading after the load failed: {e}")),
    };
    (
        row.after_rss_bytes,
        row.after_pss_bytes,
        row.after_cgroup_bytes,
    ) = (after.rss_bytes, after.pss_bytes, after.cgroup_bytes);
    if died || !service.is_alive() {
        return Some(format!(
            "the service died under the memory load; see {}",
            service.log_here().display()
        ));
    }
    match report {
        Ok(report) => {
            row.load_seconds = report.elapsed.as_secs_f64();
            row.requests_ok = report.ok;
            row.errors = report.errors.total();
            if report.was_cancelled {
                return Some("interrupted during the load".into());
            }
            None
        }
        Err(e) => Some(format!("load generator: {e}")),
    }
}

/// Sleeps `d` in short steps; false when `cancelled` said stop first.
fn sleep_unless(d: Duration, cancelled: &dyn Fn() -> bool) -> bool {
    let end = Instant::now() + d;
    while Instant::now() < end {
        if cancelled() {
            return false;
        }
        std::thread::sleep((end - Instant::now()).min(Duration::from_millis(50)));
    }
    !cancelled()
}
