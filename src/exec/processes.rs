//! The real [`Driver`]: builds with the build stage, starts services as
//! process groups, measures with the built-in load generator, checks the
//! host in preflight and records its environment.
use std::collections::BTreeSet;
use std::path::PathBuf;

use super::cell::{CellContext, CellEnd, measure_cell};
use super::driver::{Driver, Running, StartFailure};
use super::lifecycle::{start_measured, stop_measured};
use super::training::train;
use crate::build::{BuildCache, BuildOutcome, build_runtime_unless};
use crate::plan::{Cell, Plan, RuntimePlan, TrainPlan};
use crate::preflight::build_output::check_built;
use crate::preflight::{Preflight, preflight};
use crate::results::environment::{VERSION_TIMEOUT, capture, standard_probes};
use crate::results::{Environment, LifecycleRow, ResultsError};
use crate::service::Service;

/// Drives real processes on this host.
#[derive(Debug, Default)]
pub struct Processes;

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
        let mut env = capture(&standard_probes(&jdks), VERSION_TIMEOUT);
        env.hosts = crate::remote::fingerprint::hosts_environment(&plan.hosts);
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
    ) -> super::cold_start::ColdStart {
        super::cold_start::cold_start(ctx, rt, index, first_cell)
    }

    fn start(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        start_index: u32,
        first_cell: &Cell,
    ) -> Result<Running<Service>, Box<StartFailure>> {
        start_measured(ctx, rt, start_index, first_cell)
    }

    fn measure(
        &mut self,
        ctx: &CellContext,
        service: &mut Service,
        cell: &Cell,
    ) -> Result<CellEnd, ResultsError> {
        measure_cell(ctx, service, cell)
    }

    fn stop(
        &mut self,
        rt: &RuntimePlan,
        running: Running<Service>,
    ) -> (LifecycleRow, Option<String>) {
        stop_measured(rt, running)
    }
}
