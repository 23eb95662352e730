//! A runtime's `profile:` resolved: its collectors, the async-profiler
//! library, the Go pprof port, and the extra profiled repeat of each chosen
//! configuration. The profiled cells come after every measured cell, each on
//! a fresh start, so profiling never perturbs a measured repeat.

use crate::plan::contract::profile_plan::ProfilePlan;
use crate::plan::steps::draft::RuntimeDraft;
use crate::plan::{Cell, Collector as Problems, keys::ports};
use crate::spec::LoadedSpec;
use crate::spec::keys::profile::{Collector, ProfileSpec};
use crate::spec::values::PortSpec;

/// The shortest profiled window `--quick` leaves (a window planned shorter
/// stays as planned): async-profiler's CPU and allocation halves each need
/// load after two `jcmd` attaches, which take a second each on a busy host.
pub const QUICK_PROFILED_WINDOW: std::time::Duration = std::time::Duration::from_secs(5);

/// The spec's profile of runtime `name`: its own, else the spec-wide one.
fn spec_of<'s>(loaded: &'s LoadedSpec, name: &str) -> Option<(&'s ProfileSpec, String)> {
    match loaded.runtimes.get(name).and_then(|r| r.profile.as_ref()) {
        Some(p) => Some((p, format!("runtimes.{name}.profile"))),
        None => loaded
            .spec
            .profile
            .as_ref()
            .map(|p| (p, "profile".to_string())),
    }
}

/// Resolves every runtime's profile into its plan: collectors, library
/// path, pprof port, and the environment the service needs for them
/// (`PPROF=true`, `PPROF_PORT`; `NODE_OPTIONS=--perf-basic-prof` for perf).
pub fn apply(loaded: &LoadedSpec, drafts: &mut [RuntimeDraft], problems: &mut Problems) {
    let taken: Vec<(String, Option<PortSpec>)> = drafts
        .iter()
        .map(|d| {
            (
                d.name().to_string(),
                Some(PortSpec::Fixed(d.runtime().port)),
            )
        })
        .collect();
    for draft in drafts.iter_mut() {
        let name = draft.name().to_string();
        let Some((spec, field)) = spec_of(loaded, &name) else {
            continue;
        };
        check_cells(loaded, spec, &field, problems);
        let mut collect = spec.collect.clone();
        collect.sort();
        collect.dedup();
        if collect.is_empty() {
            problems.add(
                loaded,
                &format!("{field}.collect"),
                format!("runtime {name}: `profile.collect` is empty"),
                "name what to collect, e.g. `collect: [gc_log, jfr, async_cpu]` or `[pprof_cpu, go_gc]`",
            );
        }
        let rt = draft.runtime_mut();
        let needs_lib =
            collect.contains(&Collector::AsyncCpu) || collect.contains(&Collector::AsyncAlloc);
        let async_profiler = spec.async_profiler.as_ref().map(|p| rt.dir.join(p));
        if needs_lib && async_profiler.is_none() {
            problems.add(
                loaded,
                &format!("{field}.async_profiler"),
                format!("runtime {name}: `async_cpu`/`async_alloc` need the path of libasyncProfiler.so"),
                "set `async_profiler:` relative to the runtime's dir, e.g. `target/async-profiler/libasyncProfiler.so` (scripts/async-profiler.sh fetches it from Maven Central)",
            );
        }
        let go = [Collector::PprofCpu, Collector::PprofHeap, Collector::GoGc];
        let pprof_port = if collect.iter().any(|c| go.contains(c)) {
            let mut wanted = taken.clone();
            wanted.push(("pprof".to_string(), None));
            let refs: Vec<(&str, Option<PortSpec>)> =
                wanted.iter().map(|(n, p)| (n.as_str(), *p)).collect();
            match ports::choose_ports(&refs) {
                Ok(p) => p.last().copied(),
                Err(e) => {
                    problems.add(
                        loaded,
                        &field,
                        format!(
                            "runtime {name}: no free port on 127.0.0.1 for its pprof listener: {e}"
                        ),
                        "free some ports",
                    );
                    None
                }
            }
        } else {
            None
        };
        if let Some(port) = pprof_port {
            rt.env.insert("PPROF".into(), "true".into());
            rt.env.insert("PPROF_PORT".into(), port.to_string());
        }
        if collect.contains(&Collector::Perf) {
            let node = rt.env.entry("NODE_OPTIONS".into()).or_default();
            if !node.contains("--perf-basic-prof") {
                *node = format!("{node} --perf-basic-prof").trim().to_string();
            }
        }
        rt.profile = Some(ProfilePlan {
            collect,
            async_profiler,
            pprof_port,
        });
    }
}

/// Every axis named in `profile.cells` must be one of the spec's axes.
fn check_cells(loaded: &LoadedSpec, spec: &ProfileSpec, field: &str, problems: &mut Problems) {
    for axis in spec.cells.keys() {
        if !loaded.spec.axes.contains_key(axis) {
            let known: Vec<&str> = loaded.spec.axes.keys().map(String::as_str).collect();
            problems.add(
                loaded,
                &format!("{field}.cells.{axis}"),
                format!("`profile.cells` names axis `{axis}`, which the spec does not have"),
                format!("use one of the axes: {}", known.join(", ")),
            );
        }
    }
}

/// The extra, profiled repeat of each configuration `profile.cells` picks:
/// a copy of its first repeat numbered after the last planned one, marked
/// `profiled`, placed after every other cell.
pub fn profiled_cells(loaded: &LoadedSpec, drafts: &[RuntimeDraft], cells: &[Cell]) -> Vec<Cell> {
    let mut out = Vec::new();
    for draft in drafts {
        let Some((spec, _)) = spec_of(loaded, draft.name()) else {
            continue;
        };
        let repeat = draft.repeats().max() + 1;
        for cell in cells.iter().filter(|c| {
            c.runtime == draft.name()
                && c.repeat == 1
                && c.derived_rate.is_none()
                && picked(spec, c)
        }) {
            out.push(Cell {
                id: format!("{}/r{repeat}", cell.config_id),
                repeat,
                profiled: true,
                ..cell.clone()
            });
        }
    }
    out
}

/// Whether `cell` has, for each axis `profile.cells` names, a listed value.
fn picked(spec: &ProfileSpec, cell: &Cell) -> bool {
    spec.cells.iter().all(|(axis, values)| {
        cell.axes
            .iter()
            .any(|(k, v)| k == axis && values.iter().any(|w| w.to_string() == v.to_string()))
    })
}
