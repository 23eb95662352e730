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

use super::cell::{CellContext, guarded_run};
use super::load_config::measure_config;
use super::verdict::one_line;
use crate::load::{Arrival, LoadConfig, StopCondition};
use crate::plan::memory::MemoryPlan;
use crate::plan::{Cell, HealthPlan, RuntimePlan};
use crate::results::{MemoryPhaseRow, MemoryPhaseStatus};
use crate::sample::{session_pids, session_usage};
use crate::service::{Service, ServiceCommand};

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

/// One reading of the service's memory, every process together.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MemoryReading {
    pub processes: u32,
    pub rss_bytes: Option<u64>,
    pub pss_bytes: Option<u64>,
    pub cgroup_bytes: Option<u64>,
}

impl MemoryReading {
    /// Reads the session of `service` and its cgroup now.
    pub fn of(service: &Service) -> MemoryReading {
        let tree = session_usage(service.sid());
        let pids = session_pids(service.sid());
        // PSS only when every process's smaps_rollup was readable: a partial
        // sum would look like a smaller service.
        let pss: Option<u64> = pids
            .iter()
            .map(|&pid| crate::cgroup::usage::pss_kib(pid).map(|kib| kib * 1024))
            .sum();
        MemoryReading {
            processes: tree.processes,
            rss_bytes: (tree.processes > 0).then_some(tree.rss_bytes),
            pss_bytes: pss.filter(|_| !pids.is_empty()),
            cgroup_bytes: service
                .cgroup()
                .and_then(|c| c.usage_files().read(false).memory_bytes),
        }
    }
}

/// The load between the readings: `cell`'s requests (the runtime's first
/// cell, so the same workload as the latency cells), closed loop at the
/// declared connections, for the declared duration.
pub fn memory_load(
    cell: &Cell,
    memory: &MemoryPlan,
    target: std::net::SocketAddr,
    cpus: Option<Vec<usize>>,
) -> LoadConfig {
    LoadConfig {
        arrival: Arrival::Closed {
            connections: memory.connections as usize,
        },
        stop: StopCondition::Duration(memory.duration),
        // The declared load at once: the connection ramp is the windows'.
        connection_ramp: std::time::Duration::ZERO,
        ..measure_config(cell, target, cpus)
    }
}

/// One fresh process of `rt` through the phases; the row says how far it got.
pub fn memory_phase(
    ctx: &CellContext,
    rt: &RuntimePlan,
    index: u32,
    cell: &Cell,
    memory: &MemoryPlan,
) -> MemoryPhaseRow {
    let mut row = MemoryPhaseRow {
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
    };
    let affinity = ctx.plan.affinity.as_ref();
    let command = ServiceCommand::measured(rt, affinity.map(|a| a.service.clone()));
    let mut service = match Service::start(&command, &ctx.run.log(&rt.name)) {
        Ok(s) => s,
        Err(e) => {
            row.reason = one_line(&format!("memory process {index}: {e}"));
            return row;
        }
    };
    let problem = phases(ctx, &mut service, &rt.health, cell, memory, &mut row);
    let stopped = service.stop(&rt.stop);
    row.reason = match (problem, stopped) {
        (Some(p), _) => one_line(&format!("memory process {index} of {}: {p}", rt.name)),
        (None, Err(e)) => one_line(&format!("memory process {index} of {}: stop: {e}", rt.name)),
        (None, Ok(_)) => {
            row.status = MemoryPhaseStatus::Ok;
            String::new()
        }
    };
    row
}

/// Idle reading, load, reading after; `Some(why)` when a phase failed.
fn phases(
    ctx: &CellContext,
    service: &mut Service,
    health: &HealthPlan,
    cell: &Cell,
    memory: &MemoryPlan,
    row: &mut MemoryPhaseRow,
) -> Option<String> {
    let interrupt = ctx.interrupt;
    let cancelled = || interrupt.is_set();
    if let Err(e) = service.wait_ready(health, &cancelled) {
        return Some(e.to_string());
    }
    if !sleep_unless(memory.settle, &cancelled) {
        return Some("interrupted while settling".into());
    }
    let idle = MemoryReading::of(service);
    row.processes = idle.processes;
    (
        row.idle_rss_bytes,
        row.idle_pss_bytes,
        row.idle_cgroup_bytes,
    ) = (idle.rss_bytes, idle.pss_bytes, idle.cgroup_bytes);
    let load_cpus = ctx.plan.affinity.as_ref().map(|a| a.load.clone());
    let config = memory_load(cell, memory, service.addr(), load_cpus);
    let (result, died) = guarded_run(ctx, service, &config, None);
    // Right after the load, before anything else touches the service.
    let after = MemoryReading::of(service);
    (
        row.after_rss_bytes,
        row.after_pss_bytes,
        row.after_cgroup_bytes,
    ) = (after.rss_bytes, after.pss_bytes, after.cgroup_bytes);
    if died || !service.is_alive() {
        return Some(format!(
            "the service died under the memory load; see {}",
            service.log().display()
        ));
    }
    match result {
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
