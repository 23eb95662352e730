//! The seam between the orchestration ([`crate::exec::walk::run`]: which runtime is built,
//! started, measured, restarted or skipped, in what order, what is recorded)
//! and the world it acts on (processes, the load generator, the host).
//!
//! [`Processes`](crate::exec::site::processes::Processes) is the real driver. Unit tests of
//! the orchestration use a scripted fake (`crate::exec::tests::fake`) so that restart policy,
//! `max_restarts`, resume, interleaving and interruption are checked in
//! milliseconds and deterministically, without real services.
use std::collections::BTreeSet;

use crate::build::BuildOutcome;
use crate::exec::measure::context::{CellContext, CellEnd};
use crate::exec::start::cold_start::ColdStart;
use crate::exec::start::started::{Running, StartFailure};
use crate::plan::{Cell, DependencyPlan, Plan, RuntimePlan, TrainPlan};
use crate::preflight::Preflight;
use crate::results::{Environment, LifecycleRow, ResultsError};

/// Everything `run` asks of the outside world.
pub trait Driver {
    /// A measured service that is up.
    type Service;

    /// What can be checked before anything starts, for the runtimes named.
    fn preflight(&self, plan: &Plan, runtimes: &BTreeSet<String>) -> Preflight;

    /// What the run ran on (host, toolchain versions), for environment.json.
    fn environment(&self, plan: &Plan) -> Environment;

    /// Builds `rt` (or finds it cached); the error says why it failed.
    fn build(&mut self, ctx: &CellContext, rt: &RuntimePlan) -> Result<BuildOutcome, String>;

    /// After a build (run or cached): `Err(why)` when the programs the
    /// build should have produced (the start command's, training's) are
    /// still missing.
    fn check_built(&self, ctx: &CellContext, rt: &RuntimePlan, cached: bool) -> Result<(), String>;

    /// Trains `rt`; the lifecycle row of the training start is recorded either way.
    fn train(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        tp: &TrainPlan,
    ) -> (Result<(), String>, LifecycleRow);

    /// One cold start of `rt` measured for its times alone (the `index`-th
    /// of `startup.repeats`), completed or not.
    fn cold_start(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        index: u32,
        first_cell: &Cell,
    ) -> ColdStart;

    /// One fresh process of `rt` through the memory phases (the `index`-th
    /// of `memory.repeats`): idle reading, the declared load, the reading
    /// right after, stop.
    fn memory_phase(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        index: u32,
        first_cell: &Cell,
        memory: &crate::plan::contract::memory::MemoryPlan,
    ) -> crate::results::MemoryPhaseRow;

    /// Starts `rt` for measuring (health, first request, service warmup with
    /// `first_cell`'s load, training evidence).
    fn start(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        start_index: u32,
        first_cell: &Cell,
    ) -> Result<Running<Self::Service>, Box<StartFailure>>;

    /// Warms up and measures `cell` against `service`.
    fn measure(
        &mut self,
        ctx: &CellContext,
        service: &mut Self::Service,
        cell: &Cell,
    ) -> Result<CellEnd, ResultsError>;

    /// Stops the service and completes its lifecycle row; `Some(problem)` when
    /// it could not be stopped cleanly (the runtime is then skipped).
    fn stop(
        &mut self,
        rt: &RuntimePlan,
        running: Running<Self::Service>,
    ) -> (LifecycleRow, Option<String>);

    // Dependencies (docs/spec.md, `dependencies`): the driver keeps the
    // started ones; `measure` samples those the cell's runtime needs.
    /// Builds (once) and starts `dep` until ready and seeded; `Err(why)`.
    fn start_dependency(&mut self, ctx: &CellContext, dep: &DependencyPlan) -> Result<(), String>;

    /// Brings the started `dep` back to its seeded state.
    fn reset_dependency(&mut self, ctx: &CellContext, dep: &DependencyPlan) -> Result<(), String>;

    /// `Ok` while the started `dep` runs; why not once it died.
    fn check_dependency(&mut self, dep: &DependencyPlan) -> Result<(), String>;

    /// Stops `dep` with grace and removes what it left; `Some(problem)`.
    fn stop_dependency(&mut self, dep: &DependencyPlan) -> Option<String>;
}
