//! The real [`Driver`]: builds with the build stage, starts services as
//! process groups, measures with the built-in load generator, checks the
//! host in preflight and records its environment.
use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::build::{BuildCache, BuildOutcome, build_runtime_unless};
use crate::dependency::{Dependencies, Window};
use crate::exec::measure::cell::measure_cell_observed;
use crate::exec::measure::context::{CellContext, CellEnd, WindowObserver};
use crate::exec::site::driver::Driver;
use crate::exec::start::dependencies::{DependencyFiles, RunDependencies};
use crate::exec::start::lifecycle::{start_measured, stop_measured};
use crate::exec::start::site::Here;
use crate::exec::start::started::{Running, StartFailure};
use crate::exec::start::training::train;
use crate::plan::{Cell, DependencyPlan, Plan, RuntimePlan, TrainPlan};
use crate::preflight::build_output::check_built;
use crate::preflight::{Preflight, preflight};
use crate::results::environment::{
    VERSION_TIMEOUT, VersionProbe, capture, first_lines, standard_probes,
};
use crate::results::provenance::{GIT_TIMEOUT, git_source};
use crate::results::{Environment, LifecycleRow, ResultsError};
use crate::service::Service;

/// Drives real processes on this host.
#[derive(Default)]
pub struct Processes {
    /// The dependencies started so far (stopped by `run`; a drop kills what is left).
    dependencies: Dependencies,
    /// dependency-usage.csv and dependency-stats.csv.
    dependency_files: DependencyFiles,
    /// Idle RSS of the service started last (lifecycle.csv), for the
    /// cells' memory per connection.
    idle_rss: Option<u64>,
}

/// Samples the dependencies of a cell's runtime over its measured window.
struct DependencyWindow<'d, 'c> {
    dependencies: &'d mut Dependencies,
    ctx: &'d CellContext<'c>,
    needs: &'d [String],
    window: Option<Window>,
}

impl WindowObserver for DependencyWindow<'_, '_> {
    fn window_opened(&mut self) {
        self.window = Some(self.dependencies.open_window(self.ctx, self.needs));
    }
    fn window_closed(&mut self) {
        if let Some(w) = self.window.as_mut() {
            self.dependencies.close_window(w);
        }
    }
}

impl Driver for Processes {
    type Service = Service;

    fn preflight(&self, plan: &Plan, runtimes: &BTreeSet<String>) -> Preflight {
        preflight(plan, runtimes)
    }

    fn environment(&self, plan: &Plan) -> Environment {
        let jdks: Vec<(String, PathBuf)> = plan
            .runtimes
            .iter()
            .filter_map(|rt| {
                let java = rt.java.as_ref()?;
                Some((java.requested.clone(), java.home.clone()?))
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut env = capture(
            &used_toolchains(plan, standard_probes(&jdks)),
            VERSION_TIMEOUT,
        );
        env.hosts = crate::exec::measure::remote_load::hosts_environment(plan);
        let versions: Vec<VersionProbe> = plan
            .versions
            .iter()
            .map(|v| VersionProbe {
                env: Some(crate::process::env::command_env(&Default::default(), &[])),
                ..VersionProbe::shell(&v.subject, &v.command, v.dir.clone())
            })
            .collect();
        env.versions = first_lines(&versions, VERSION_TIMEOUT);
        env.sources = plan
            .runtimes
            .iter()
            .filter_map(|rt| {
                // A runtime built from a revision measured that commit, not
                // the work tree its export was taken from.
                let source = match &rt.source {
                    Some(s) => s.commit.clone(),
                    None => git_source(&rt.dir, GIT_TIMEOUT)?,
                };
                Some((rt.name.clone(), source))
            })
            .collect();
        env.passed_env = passed_env_names(plan);
        env
    }

    fn build(&mut self, ctx: &CellContext, rt: &RuntimePlan) -> Result<BuildOutcome, String> {
        let cache = BuildCache::for_experiment(&ctx.plan.results_dir);
        let log = ctx.run.log(&format!("build-{}", rt.name));
        let interrupt = ctx.interrupt.clone();
        build_runtime_unless(rt, &cache, &log, &|| interrupt.is_set()).map_err(|e| e.to_string())
    }

    fn check_built(&self, ctx: &CellContext, rt: &RuntimePlan, cached: bool) -> Result<(), String> {
        let log = ctx.run.log(&format!("build-{}", rt.name));
        check_built(rt, &log, cached).map_err(|e| e.to_string())
    }

    fn train(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        tp: &TrainPlan,
    ) -> (Result<(), String>, LifecycleRow) {
        let (result, lifecycle) = train(ctx, rt, tp);
        (result.map(|_| ()), lifecycle)
    }

    fn cold_start(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        index: u32,
        first_cell: &Cell,
    ) -> crate::exec::start::cold_start::ColdStart {
        crate::exec::start::cold_start::cold_start(&mut Here, ctx, rt, index, first_cell)
    }

    fn memory_phase(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        index: u32,
        first_cell: &Cell,
        memory: &crate::plan::contract::memory::MemoryPlan,
    ) -> crate::results::MemoryPhaseRow {
        crate::exec::start::memory_phases::memory_phase(
            &mut Here, ctx, rt, index, first_cell, memory,
        )
    }

    fn start(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        start_index: u32,
        first_cell: &Cell,
    ) -> Result<Running<Service>, Box<StartFailure>> {
        let running = start_measured(&mut Here, ctx, rt, start_index, first_cell);
        self.idle_rss = running
            .as_ref()
            .ok()
            .and_then(|r| r.lifecycle.idle_rss_bytes);
        running
    }

    fn measure(
        &mut self,
        ctx: &CellContext,
        service: &mut Service,
        cell: &Cell,
    ) -> Result<CellEnd, ResultsError> {
        let needs = crate::exec::start::dependencies::needs_of_cell(ctx.plan, cell);
        let mut observer = DependencyWindow {
            dependencies: &mut self.dependencies,
            ctx,
            needs: &needs,
            window: None,
        };
        let mut end = measure_cell_observed(ctx, service, cell, &mut observer)?;
        let window = observer.window.take();
        if let CellEnd::Recorded(row) = &mut end {
            crate::exec::measure::connections::fill_per_connection(row, self.idle_rss);
        }
        if let (Some(window), CellEnd::Recorded(row) | CellEnd::ServiceDied(row)) = (window, &end) {
            self.dependency_files.write(ctx, window.readings(), row)?;
        }
        Ok(end)
    }

    fn stop(
        &mut self,
        rt: &RuntimePlan,
        running: Running<Service>,
    ) -> (LifecycleRow, Option<String>) {
        stop_measured(&mut Here, rt, running)
    }

    fn start_dependency(&mut self, ctx: &CellContext, dep: &DependencyPlan) -> Result<(), String> {
        self.dependencies.start(ctx, dep).map_err(|e| e.to_string())
    }

    fn reset_dependency(&mut self, ctx: &CellContext, dep: &DependencyPlan) -> Result<(), String> {
        self.dependencies.reset(ctx, dep).map_err(|e| e.to_string())
    }

    fn check_dependency(&mut self, dep: &DependencyPlan) -> Result<(), String> {
        self.dependencies.check(dep).map_err(|e| e.to_string())
    }

    fn stop_dependency(&mut self, dep: &DependencyPlan) -> Option<String> {
        self.dependencies.stop(dep)
    }
}

/// The toolchain probes of the programs `plan`'s runtimes use (their
/// `tools`, `rustc` beside `cargo`, `java` for a runtime with `java:`, and
/// each resolved JDK's own): a report of nginx lists nginx's version, not
/// the Go and Maven that happen to be installed.
fn used_toolchains(plan: &Plan, probes: Vec<VersionProbe>) -> Vec<VersionProbe> {
    let mut used: BTreeSet<&str> = plan
        .runtimes
        .iter()
        .flat_map(|rt| rt.tools.iter().map(String::as_str))
        .collect();
    if used.contains("cargo") {
        used.insert("rustc");
    }
    if plan.runtimes.iter().any(|rt| rt.java.is_some()) {
        used.insert("java");
    }
    probes
        .into_iter()
        .filter(|p| used.contains(p.name.as_str()) || p.name.starts_with("java ("))
        .collect()
}

/// environment.json's `passed_env`: the caller's variable names each
/// runtime's and dependency's commands get here.
fn passed_env_names(plan: &Plan) -> std::collections::BTreeMap<String, Vec<String>> {
    let names = |pass: &[String]| -> Vec<String> {
        crate::process::env::caller_passed(std::env::vars_os(), pass)
            .into_keys()
            .collect()
    };
    let runtimes =
        (plan.runtimes.iter()).map(|rt| (format!("runtime {}", rt.name), names(&rt.pass_env)));
    let dependencies =
        (plan.dependencies.iter()).map(|d| (format!("dependency {}", d.name), names(&[])));
    runtimes.chain(dependencies).collect()
}
