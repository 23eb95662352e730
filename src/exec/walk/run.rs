//! The orchestrator: a Plan -> preflight -> run directory -> builds ->
//! training -> cells, one service at a time, everything recorded as it
//! happens. It reads no YAML (the CLI edge loads the spec and plans it) and
//! touches the world only through a [`Driver`], so the policy here (order,
//! restarts, skips, resume, interruption) is unit-tested with a fake. When
//! a cell gets a fresh service start is decided by one rule,
//! [`needs_fresh_start`] (the runtime's `lifecycle.restart`), shared with
//! the plan's estimate; a death always stops the service, so the next cell
//! starts it anew (once).
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::time::Instant;

use crate::exec::ExecError;
use crate::exec::configurations::Configurations;
use crate::exec::events::Event;
use crate::exec::interrupt::Interrupt;
use crate::exec::measure::context::{CellContext, CellEnd};
use crate::exec::measure::load_config::expected;
use crate::exec::rules::dependency_schedule::Tracker;
use crate::exec::rules::verdict::one_line;
use crate::exec::site::driver::Driver;
use crate::exec::start::cold_start::{ColdStart, ColdStartEnd};
use crate::exec::start::started::Running;
use crate::exec::walk::derived_rates::RateBook;
use crate::exec::walk::repeats::Repeats;
use crate::plan::steps::restart::{Slot, needs_fresh_start};
use crate::plan::{Cell, Plan, RuntimePlan};
use crate::results::write::resume::{check_spec, recorded_rows};
use crate::results::{
    CellStatus, ConfigurationStatus, CsvAppender, ENVIRONMENT_FILE, Environment, LIFECYCLE_FILE,
    LifecycleRow, MEASUREMENTS_FILE, MEMORY_PHASES_FILE, MeasurementRow, MemoryPhaseRow,
    MemoryPhaseStatus, PLAN_FILE, REPEATS_FILE, RepeatsStop, RunDir, RunState, RunStatus,
    SPEC_FILE, new_run_id, rfc3339_now, write_csv_atomic,
};

#[path = "run_dependencies.rs"]
mod run_dependencies;

/// A run of a plan: the plan and what the run is asked beyond it.
#[derive(Debug, Clone, Copy)]
pub struct RunRequest<'a> {
    pub plan: &'a Plan,
    /// The spec file's text, written byte for byte to a new run's spec.yaml.
    pub spec_text: &'a str,
    /// `--resume RUN_DIR`.
    pub resume: Option<&'a std::path::Path>,
    /// `--force`: resume even though the spec or `--quick` changed.
    pub force: bool,
    /// `--label KEY=VALUE`s, recorded in a new run's environment.json (a
    /// resumed run keeps the labels it started with).
    pub labels: &'a BTreeMap<String, String>,
}

/// How a run that started ended.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub run_dir: PathBuf,
    pub state: RunState,
    pub cells_done: u64,
    pub cells_failed: u64,
    /// Runtime -> why it was skipped.
    pub skipped: BTreeMap<String, String>,
}

impl RunOutcome {
    /// 0: complete, all cells measured; 1: complete with failed cells or
    /// skipped runtimes; 130: interrupted.
    pub fn exit_code(&self) -> u8 {
        match self.state {
            RunState::Interrupted => 130,
            RunState::Complete if self.cells_failed == 0 && self.skipped.is_empty() => 0,
            _ => 1,
        }
    }
}

/// Runs (or resumes) `req.plan` through `driver`, sending progress to
/// `events`. `interrupt` is armed by the caller once the run is about to
/// create files (a signal before that ends the process as usual).
pub fn run<D: Driver>(
    req: &RunRequest,
    driver: &mut D,
    arm_interrupt: impl FnOnce() -> std::io::Result<Interrupt>,
    events: Sender<Event>,
) -> Result<RunOutcome, ExecError> {
    let plan = req.plan;
    let (run, rows, started_at) = match req.resume {
        Some(dir) => {
            let run = RunDir::open(dir)?;
            let status = run.read_status()?;
            check_spec(&run, &status, &plan.spec_hash, req.force)?;
            if status.quick_factor != plan.quick_factor && !req.force {
                return Err(ExecError::QuickMismatch {
                    run: dir.to_path_buf(),
                    recorded: status.quick_factor,
                    current: plan.quick_factor,
                });
            }
            let rows = recorded_rows(&run)?;
            (Some(run), rows, status.started_at)
        }
        None => (None, Vec::new(), rfc3339_now()),
    };
    let recorded: HashSet<String> = rows.iter().map(|r| r.cell_id.clone()).collect();
    // Adaptive repeats: the recorded rows count, and decide what is left.
    let repeats = Repeats::new(plan, &rows);
    let mut needed: BTreeSet<String> = plan
        .cells
        .iter()
        .filter(|c| !recorded.contains(&c.id) && repeats.wants(c))
        .map(|c| c.runtime.clone())
        .collect();
    if let Some(run) = &run {
        // Memory processes a first session did not finish.
        let left =
            crate::exec::start::memory_phases::runtimes_left(plan, &run.file(MEMORY_PHASES_FILE));
        needed.extend(left);
    }
    let checked = driver.preflight(plan, &needed);
    if !checked.problems.is_empty() {
        return Err(ExecError::Preflight(checked.problems));
    }
    let run = match run {
        Some(run) => run,
        None => create_run(plan, req.spec_text, req.labels, driver)?,
    };
    let certificates = crate::exec::walk::certificates::for_run(plan, &run)?;
    let interrupt = arm_interrupt().map_err(ExecError::Signals)?;
    let mut exec = Executor {
        ctx: CellContext {
            plan,
            run: &run,
            interrupt: &interrupt,
            events: &events,
            evidence_missing: None,
            tls: certificates.as_ref(),
        },
        driver,
        status: RunStatus {
            state: RunState::Running,
            run_id: run.run_id().to_string(),
            experiment: plan.experiment.name.clone(),
            started_at,
            updated_at: rfc3339_now(),
            cells_total: plan.cells.len() as u64,
            cells_done: plan
                .cells
                .iter()
                .filter(|c| recorded.contains(&c.id))
                .count() as u64,
            quick_factor: plan.quick_factor,
            spec_hash: plan.spec_hash.clone(),
            message: req.resume.map(|_| "resumed".to_string()),
            skipped_cells: plan.skipped_cells.clone(),
        },
        configurations: Configurations::new(plan, &run)?,
        measurements: CsvAppender::open(&run.file(MEASUREMENTS_FILE))?,
        lifecycle: CsvAppender::open(&run.file(LIFECYCLE_FILE))?,
        skipped: BTreeMap::new(),
        cells_failed: 0,
        resumed: req.resume.is_some(),
        repeats,
        deps: Tracker::default(),
    };
    exec.write_status()?;
    let _ = exec.ctx.events.send(Event::RunStarted {
        run_dir: run.path().to_path_buf(),
        cells_total: exec.status.cells_total,
        cells_least: plan.estimate().least.map(|l| l.cells as u64),
        estimated: plan.estimate().total,
        cells_done: exec.status.cells_done,
        quick_factor: plan.quick_factor,
        repeats_cap: plan.repeats_cap,
    });
    let initial = exec.status.clone();
    let result = exec.execute(&needed, &recorded, &checked.unavailable);
    if let Err(e) = &result {
        // The run could not go on (e.g. the disk is full): say so in status.json.
        let mut status = run.read_status().unwrap_or(initial);
        status.state = RunState::Failed;
        status.updated_at = rfc3339_now();
        status.message = Some(one_line(&e.to_string()));
        let _ = run.write_status(&status);
    }
    result
}

fn create_run(
    plan: &Plan,
    spec_text: &str,
    labels: &BTreeMap<String, String>,
    driver: &impl Driver,
) -> Result<RunDir, ExecError> {
    let run = RunDir::create(&plan.results_dir, &new_run_id())?;
    let spec_path = run.file(SPEC_FILE);
    std::fs::write(&spec_path, spec_text)
        .map_err(crate::results::ResultsError::write(&spec_path))?;
    run.write_json(PLAN_FILE, plan)?;
    let environment = Environment {
        labels: labels.clone(),
        ..driver.environment(plan)
    };
    run.write_json(ENVIRONMENT_FILE, &environment)?;
    crate::exec::walk::rendered_files::write_rendered_files(&run, plan)?;
    Ok(run)
}

/// The measured service that is up: its runtime, and the repeat of the
/// cell it measured last (what [`needs_fresh_start`] compares with).
struct Up<S> {
    runtime: String,
    repeat: u32,
    /// The limits it was started under (cells with others need a new start).
    limits: crate::cgroup::Limits,
    /// The scenario of the cell it was started for (`scenarios:`).
    scenario: Option<String>,
    /// The start fields it was started with, when they vary per cell.
    variant: Option<crate::plan::contract::start_variant::StartVariant>,
    running: Running<S>,
}

impl<S> Up<S> {
    fn slot(&self) -> Slot<'_> {
        Slot {
            runtime: &self.runtime,
            repeat: self.repeat,
            limits: &self.limits,
            scenario: self.scenario.as_deref(),
            start: self.variant.as_ref(),
        }
    }
}

struct Executor<'a, D: Driver> {
    /// The plan, run directory, interrupt flag and event channel: what every
    /// driver call is given.
    ctx: CellContext<'a>,
    driver: &'a mut D,
    status: RunStatus,
    configurations: Configurations,
    measurements: CsvAppender<MeasurementRow>,
    lifecycle: CsvAppender<LifecycleRow>,
    skipped: BTreeMap<String, String>,
    cells_failed: u64,
    resumed: bool,
    /// Which planned repeats are still wanted (adaptive repeats).
    repeats: Repeats,
    /// The dependencies up, and the slot each last served.
    deps: Tracker,
}

impl<'a, D: Driver> Executor<'a, D> {
    fn execute(
        mut self,
        needed: &BTreeSet<String>,
        recorded: &HashSet<String>,
        unavailable: &[(String, String)],
    ) -> Result<RunOutcome, ExecError> {
        let runtimes: Vec<&RuntimePlan> = self
            .ctx
            .plan
            .runtimes
            .iter()
            .filter(|r| needed.contains(&r.name))
            .collect();
        for rt in &runtimes {
            self.configurations.retry(&rt.name);
        }
        for (name, why) in unavailable {
            self.skip(name, format!("toolchain missing on this host: {why}"))?;
        }
        for rt in &runtimes {
            if self.ctx.interrupt.is_set() {
                break;
            }
            if !self.skipped.contains_key(&rt.name) {
                self.build(rt)?;
            }
        }
        for rt in &runtimes {
            if self.ctx.interrupt.is_set() {
                break;
            }
            if let Some(tp) = &rt.train
                && !self.skipped.contains_key(&rt.name)
                && self.prepare_dependencies(rt, None)?
            {
                self.train(rt, tp)?;
            }
        }
        for rt in &runtimes {
            if self.ctx.interrupt.is_set() {
                break;
            }
            if !self.skipped.contains_key(&rt.name)
                && rt.startup_repeats > 0
                && !self.resumed
                && self.prepare_dependencies(rt, None)?
            {
                self.cold_starts(rt)?;
            }
        }
        if !self.ctx.interrupt.is_set() {
            self.cells(recorded)?;
        }
        if let Some(memory) = &self.ctx.plan.memory
            && !self.ctx.interrupt.is_set()
        {
            self.memory_phases(&runtimes, memory)?;
        }
        self.stop_all_dependencies();
        self.finish()
    }

    /// The runtime `name` of the plan (borrowed from the plan, not from self).
    fn runtime(&self, name: &str) -> &'a RuntimePlan {
        let plan: &'a Plan = self.ctx.plan;
        plan.runtimes
            .iter()
            .find(|r| r.name == name)
            .expect("plan cells only name planned runtimes")
    }

    fn skip(&mut self, runtime: &str, reason: String) -> Result<(), ExecError> {
        let reason = one_line(&reason);
        let row = self.configurations.get_mut(runtime);
        row.status = ConfigurationStatus::Skipped;
        row.reason = reason.clone();
        self.configurations.save(self.ctx.run)?;
        let _ = self.ctx.events.send(Event::RuntimeSkipped {
            runtime: runtime.to_string(),
            reason: reason.clone(),
        });
        self.skipped.insert(runtime.to_string(), reason);
        Ok(())
    }

    fn build(&mut self, rt: &RuntimePlan) -> Result<(), ExecError> {
        if rt.build.is_empty() {
            return Ok(());
        }
        let _ = self.ctx.events.send(Event::BuildStarted {
            runtime: rt.name.clone(),
        });
        match self.driver.build(&self.ctx, rt) {
            Ok(outcome) => {
                let row = self.configurations.get_mut(&rt.name);
                row.build_seconds = Some(outcome.seconds);
                row.build_cached = outcome.cached;
                row.artifact_bytes = outcome.artifact_bytes;
                row.deployable_bytes = outcome.deployable_bytes;
                row.jdk_bytes = crate::build::shipped_jdk_bytes(rt);
                self.configurations.save(self.ctx.run)?;
                let _ = self.ctx.events.send(Event::BuildFinished {
                    runtime: rt.name.clone(),
                    cached: outcome.cached,
                    seconds: outcome.seconds,
                });
                match self.driver.check_built(&self.ctx, rt, outcome.cached) {
                    Ok(()) => Ok(()),
                    Err(e) => self.skip(&rt.name, format!("build failed: {e}")),
                }
            }
            Err(_) if self.ctx.interrupt.is_set() => Ok(()),
            Err(e) => self.skip(&rt.name, format!("build failed: {e}")),
        }
    }

    fn train(&mut self, rt: &RuntimePlan, tp: &crate::plan::TrainPlan) -> Result<(), ExecError> {
        // A resumed run keeps the artifact its first session trained and measured with.
        let already = self.resumed
            && self.configurations.get(&rt.name).is_some_and(|r| r.trained)
            && tp
                .produces
                .iter()
                .all(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0));
        if already {
            return Ok(());
        }
        let _ = self.ctx.events.send(Event::TrainStarted {
            runtime: rt.name.clone(),
        });
        let started = Instant::now();
        let (result, lifecycle) = self.driver.train(&self.ctx, rt, tp);
        self.lifecycle.append(&lifecycle)?;
        match result {
            Ok(()) => {
                self.configurations.get_mut(&rt.name).trained = true;
                self.configurations.save(self.ctx.run)?;
                let _ = self.ctx.events.send(Event::TrainFinished {
                    runtime: rt.name.clone(),
                    seconds: started.elapsed().as_secs_f64(),
                });
                Ok(())
            }
            Err(_) if self.ctx.interrupt.is_set() => Ok(()),
            Err(e) => self.skip(&rt.name, format!("training failed: {e}")),
        }
    }

    /// `startup.repeats` cold starts of `rt`, recorded in lifecycle.csv; a
    /// failed one ends them (the measured start will say why, or skip), and
    /// one that every start would repeat skips the runtime at once.
    /// A resumed run keeps the cold starts of its first session.
    fn cold_starts(&mut self, rt: &RuntimePlan) -> Result<(), ExecError> {
        let plan: &'a Plan = self.ctx.plan;
        let Some(first_cell) = plan.cells.iter().find(|c| c.runtime == rt.name) else {
            return Ok(());
        };
        if self.resumed {
            return Ok(());
        }
        for index in 1..=rt.startup_repeats {
            if self.ctx.interrupt.is_set() {
                return Ok(());
            }
            let ColdStart { row, end } =
                self.driver
                    .cold_start(&self.ctx, &rt.for_cell(first_cell), index, first_cell);
            if self.ctx.interrupt.is_set() {
                return Ok(());
            }
            self.lifecycle.append(&row)?;
            let _ = self.ctx.events.send(Event::ColdStart {
                runtime: rt.name.clone(),
                index,
                of: rt.startup_repeats,
                healthy_ms: row.startup_ms.filter(|_| end == ColdStartEnd::Completed),
            });
            match end {
                ColdStartEnd::Completed => {}
                ColdStartEnd::Failed => return Ok(()),
                ColdStartEnd::FailedForGood => {
                    let reason = row.exit_status.clone();
                    return self.skip(&rt.name, reason);
                }
            }
        }
        Ok(())
    }

    fn cells(&mut self, recorded: &HashSet<String>) -> Result<(), ExecError> {
        let plan = self.ctx.plan;
        let total = plan.cells.len() as u64;
        let mut current: Option<Up<D::Service>> = None;
        let mut starts: BTreeMap<String, u32> = BTreeMap::new();
        let mut deaths: BTreeMap<String, u32> = BTreeMap::new();
        let mut evidence_missing: Option<String> = None;
        let mut rates = RateBook::default();
        for (index, cell) in plan.cells.iter().enumerate() {
            if self.ctx.interrupt.is_set() {
                break;
            }
            if recorded.contains(&cell.id)
                || self.skipped.contains_key(&cell.runtime)
                || (!cell.profiled && !self.repeats.wants(cell))
            {
                continue;
            }
            // An equal_load cell gets its rate from the closed-loop pass.
            let resolved = match rates.resolve(self.ctx.run, &plan.cells, cell)? {
                Ok(resolved) => resolved,
                Err(row) => {
                    self.record(&row)?;
                    continue;
                }
            };
            let cell: &Cell = &resolved;
            let rt = self.runtime(&cell.runtime);
            let fresh =
                needs_fresh_start(rt.restart, current.as_ref().map(Up::slot), Slot::of(cell));
            if fresh && let Some(up) = current.take() {
                self.stop(&up.runtime, up.running)?;
                if self.skipped.contains_key(&rt.name) {
                    continue; // it could not be stopped cleanly: not started again
                }
            }
            if !self.prepare_dependencies(rt, Some(cell))? {
                if let Some(up) = current.take() {
                    self.stop(&up.runtime, up.running)?;
                }
                continue;
            }
            if fresh {
                let n = starts.entry(rt.name.clone()).or_default();
                *n += 1;
                let start_index = *n;
                // The runtime as this cell starts it (its JDK, flags, env).
                let started = self
                    .driver
                    .start(&self.ctx, &rt.for_cell(cell), start_index, cell);
                match started {
                    Ok(running) => {
                        evidence_missing = self.record_evidence(rt, &running)?;
                        let conf = self.configurations.get_mut(&rt.name);
                        crate::exec::start::containment::record(
                            conf,
                            &cell.limits,
                            running.seen.as_ref(),
                        );
                        self.configurations.save(self.ctx.run)?;
                        let _ = self.ctx.events.send(Event::ServiceStarted {
                            runtime: rt.name.clone(),
                            startup_ms: running.lifecycle.startup_ms.unwrap_or_default(),
                        });
                        current = Some(Up {
                            runtime: rt.name.clone(),
                            repeat: cell.repeat,
                            limits: cell.limits.clone(),
                            scenario: crate::spec::keys::scenarios::scenario_of(&cell.axes)
                                .map(str::to_owned),
                            variant: cell.variant.clone(),
                            running,
                        });
                    }
                    Err(failure) => {
                        self.lifecycle.append(&failure.lifecycle)?;
                        if failure.cancelled {
                            break;
                        }
                        self.skip(&rt.name, failure.reason)?;
                        continue;
                    }
                }
            }
            let _ = self.ctx.events.send(Event::CellStarted {
                index: index as u64 + 1,
                total,
                cell_id: cell.id.clone(),
                runtime: cell.runtime.clone(),
                expected: expected(cell),
            });
            let up = current.as_mut().expect("a service was started above");
            up.repeat = cell.repeat;
            let ctx = CellContext {
                evidence_missing: evidence_missing.clone(),
                ..self.ctx.clone()
            };
            let end = self.driver.measure(&ctx, &mut up.running.service, cell)?;
            // A dependency that died during the cell fails it, whatever the load saw.
            let dead = match &end {
                CellEnd::Interrupted => None,
                _ => self.dead_dependency(rt, cell),
            };
            if let Some((dep, why)) = dead {
                let (CellEnd::Recorded(mut row) | CellEnd::ServiceDied(mut row)) = end else {
                    unreachable!("an interrupted cell is not checked")
                };
                row.status = crate::results::CellStatus::Failed;
                row.reason = one_line(&format!(
                    "dependency `{}` died during the cell: {why}",
                    dep.name
                ));
                self.record(&row)?;
                if let Some(up) = current.take() {
                    self.stop(&up.runtime, up.running)?;
                }
                self.dependency_failed(
                    dep,
                    crate::exec::rules::dependency_schedule::Prepare::Keep,
                    &why,
                )?;
                continue;
            }
            match end {
                CellEnd::Interrupted => break,
                CellEnd::Recorded(row) => self.record(&row)?,
                CellEnd::ServiceDied(row) => {
                    self.record(&row)?;
                    let Up {
                        runtime: name,
                        running,
                        ..
                    } = current.take().expect("the service of this cell");
                    self.stop(&name, running)?;
                    let died = deaths.entry(name.clone()).or_default();
                    *died += 1;
                    if *died > plan.max_restarts {
                        let reason = format!(
                            "the service died or stopped answering {} time(s) (max_restarts: {}); last: {}",
                            died, plan.max_restarts, row.reason
                        );
                        self.skip(&name, reason)?;
                    }
                }
            }
            self.stop_unneeded_dependencies(index, recorded, &mut current)?;
        }
        if let Some(up) = current.take() {
            self.stop(&up.runtime, up.running)?;
        }
        Ok(())
    }

    fn record_evidence(
        &mut self,
        rt: &RuntimePlan,
        running: &Running<D::Service>,
    ) -> Result<Option<String>, ExecError> {
        let Some(evidence) = &running.evidence else {
            return Ok(None);
        };
        let row = self.configurations.get_mut(&rt.name);
        let missing = match evidence {
            Ok(line) => {
                row.training_evidence = line.clone();
                None
            }
            Err(why) => {
                row.training_evidence = format!("NOT FOUND: {why}");
                Some(why.clone())
            }
        };
        self.configurations.save(self.ctx.run)?;
        Ok(missing)
    }

    fn record(&mut self, row: &MeasurementRow) -> Result<(), ExecError> {
        self.measurements.append(row)?;
        // The profiled repeat is no repeat of the statistics.
        let stopped = if row.profiled {
            Vec::new()
        } else {
            self.repeats.record(row)
        };
        if row.status == CellStatus::Failed {
            self.cells_failed += 1;
        }
        let conf = self.configurations.get_mut(&row.runtime);
        if conf.status == ConfigurationStatus::Pending {
            conf.status = ConfigurationStatus::Ran;
            self.configurations.save(self.ctx.run)?;
        }
        self.status.cells_done += 1;
        self.write_status()?;
        let _ = self.ctx.events.send(Event::CellFinished {
            cell_id: row.cell_id.clone(),
            status: row.status,
            throughput_rps: row.throughput_rps,
            p99_ms: row.latency_p99_ms,
            reason: row.reason.clone(),
        });
        // A fixed count stopping is no news; an adaptive stop is.
        for stopped in stopped.into_iter().filter(|s| s.stop != RepeatsStop::Fixed) {
            let dropped = self
                .ctx
                .plan
                .cells
                .iter()
                .filter(|c| c.config_id == stopped.config_id && c.repeat > stopped.repeats)
                .count() as u64;
            let _ = self.ctx.events.send(Event::RepeatsStopped {
                config_id: stopped.config_id,
                stop: stopped.stop,
                repeats: stopped.repeats,
                half_width: stopped.half_width,
                dropped,
            });
        }
        self.save_repeats()
    }

    /// repeats.csv, rewritten whole (one row per configuration).
    fn save_repeats(&self) -> Result<(), ExecError> {
        let skipped: BTreeSet<&str> = self.skipped.keys().map(String::as_str).collect();
        let rows = self.repeats.rows(&skipped);
        write_csv_atomic(&self.ctx.run.file(REPEATS_FILE), &rows)?;
        Ok(())
    }

    fn stop(&mut self, name: &str, running: Running<D::Service>) -> Result<(), ExecError> {
        let rt = self.runtime(name);
        let (row, problem) = self.driver.stop(rt, running);
        self.lifecycle.append(&row)?;
        if let Some(problem) = problem {
            self.skip(name, problem)?;
        }
        Ok(())
    }

    fn write_status(&mut self) -> Result<(), ExecError> {
        self.status.updated_at = rfc3339_now();
        self.ctx.run.write_status(&self.status)?;
        Ok(())
    }

    /// The memory phases after every cell: process 1 of every runtime, then
    /// process 2, ... (interleaved, so host drift spreads over runtimes
    /// alike). A resumed run keeps the processes already recorded.
    fn memory_phases(
        &mut self,
        runtimes: &[&RuntimePlan],
        memory: &crate::plan::contract::memory::MemoryPlan,
    ) -> Result<(), ExecError> {
        let path = self.ctx.run.file(MEMORY_PHASES_FILE);
        let done = crate::exec::start::memory_phases::recorded(&path);
        let mut rows = CsvAppender::<MemoryPhaseRow>::open(&path)?;
        for index in 1..=memory.repeats {
            for rt in runtimes {
                if self.ctx.interrupt.is_set() {
                    return Ok(());
                }
                let plan: &'a Plan = self.ctx.plan;
                let first = plan.cells.iter().find(|c| c.runtime == rt.name);
                let Some(first) = first.filter(|_| !self.skipped.contains_key(&rt.name)) else {
                    continue;
                };
                if done.contains(&(rt.name.clone(), index)) {
                    continue;
                }
                // The dependencies of the first cell, whose workload it sends.
                if !self.prepare_dependencies(rt, None)? {
                    continue;
                }
                let row =
                    self.driver
                        .memory_phase(&self.ctx, &rt.for_cell(first), index, first, memory);
                if self.ctx.interrupt.is_set() {
                    return Ok(()); // an interrupted process is measured again on resume
                }
                let _ = self.ctx.events.send(Event::MemoryPhase {
                    runtime: rt.name.clone(),
                    index,
                    of: memory.repeats,
                    idle_bytes: row.idle_rss_bytes,
                    after_bytes: row.after_rss_bytes,
                    failed: (row.status == MemoryPhaseStatus::Failed).then(|| row.reason.clone()),
                });
                rows.append(&row)?;
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Result<RunOutcome, ExecError> {
        if self.ctx.interrupt.is_set() {
            self.status.state = RunState::Interrupted;
            self.status.message = Some(format!(
                "interrupted by {}; continue with: runner exec <spec> --resume {}",
                self.ctx.interrupt.describe(),
                self.ctx.run.path().display()
            ));
        } else {
            self.status.state = RunState::Complete;
            let mut said = Vec::new();
            if !self.skipped.is_empty() {
                let names: Vec<&str> = self.skipped.keys().map(String::as_str).collect();
                said.push(format!("skipped runtimes: {}", names.join(", ")));
            }
            let cells = self.ctx.plan.skipped_cells.len();
            if cells > 0 {
                said.push(format!(
                    "{cells} cell(s) skipped by the plan (their JDK; see `skipped_cells`)"
                ));
            }
            if !said.is_empty() {
                self.status.message = Some(said.join("; "));
            }
        }
        self.write_status()?;
        self.configurations.save(self.ctx.run)?;
        self.save_repeats()?;
        let _ = self.ctx.events.send(Event::RunFinished {
            state: self.status.state,
            run_dir: self.ctx.run.path().to_path_buf(),
            message: self.status.message.clone(),
        });
        Ok(RunOutcome {
            run_dir: self.ctx.run.path().to_path_buf(),
            state: self.status.state,
            cells_done: self.status.cells_done,
            cells_failed: self.cells_failed,
            skipped: self.skipped,
        })
    }
}
