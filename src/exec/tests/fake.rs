//! A scripted [`Driver`] for unit tests of the orchestration: no process is
//! started and no load is sent. Each call is logged as one line, so a test
//! can assert the exact order of builds, starts, cells and stops; cells end
//! as their script says (measured, the service dies, or a signal arrives).
use std::collections::{BTreeMap, BTreeSet};

use crate::build::BuildOutcome;
use crate::exec::measure::context::{CellContext, CellEnd};
use crate::exec::measure::row::base_row;
use crate::exec::site::driver::Driver;
use crate::exec::start::cold_start::{ColdStart, ColdStartEnd};
use crate::exec::start::started::{Running, StartFailure};
use crate::plan::{Cell, DependencyPlan, LoadMode, Plan, RuntimePlan, TrainPlan};
use crate::preflight::Preflight;
use crate::results::{
    CellStatus, Environment, LifecycleRow, MeasurementRow, Phase, ResultsError, StopOutcome,
};

/// How a scripted cell ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellScript {
    /// The service dies during the measurement.
    Dies,
    /// SIGINT arrives during the measurement.
    Interrupted,
}

/// The fake's service: which runtime it is and which start of it.
#[derive(Debug)]
pub struct FakeService {
    pub runtime: String,
    pub start_index: u32,
}

#[derive(Debug, Default)]
pub struct Fake {
    /// One line per call, in call order: `build go`, `start go #1`,
    /// `measure go/payload=1/r1`, `stop go #1`, ...
    pub calls: Vec<String>,
    /// Cells that do not simply get measured, by cell id.
    pub cells: BTreeMap<String, CellScript>,
    /// Runtimes whose build fails.
    pub failing_builds: BTreeSet<String>,
    /// Runtimes that never become healthy.
    pub failing_starts: BTreeSet<String>,
    /// Runtimes whose service has to be killed when it is stopped.
    pub failing_stops: BTreeSet<String>,
    /// Throughput a runtime's cells record (default 100 req/s).
    pub rps: BTreeMap<String, f64>,
    /// The throughput a measured cell records, by cell id (overrides `rps`).
    pub throughput: BTreeMap<String, f64>,
    /// Dependencies that never become ready.
    pub failing_dependencies: BTreeSet<String>,
    /// Dependencies found dead when checked after this many checks.
    pub dying_dependencies: BTreeMap<String, u32>,
    /// The start command and env of every measured start, in order, as
    /// the runtime was handed to `start` (a cell's resolved start fields).
    pub started_as: Vec<(String, BTreeMap<String, String>)>,
}

impl Fake {
    /// The calls that start with `prefix` (e.g. "measure").
    pub fn calls_of(&self, prefix: &str) -> Vec<&str> {
        self.calls
            .iter()
            .filter(|c| c.starts_with(prefix))
            .map(String::as_str)
            .collect()
    }
}

fn lifecycle(runtime: &str, start_index: u32) -> LifecycleRow {
    LifecycleRow {
        runtime: runtime.to_string(),
        phase: Phase::Measure,
        start_index,
        ..Default::default()
    }
}

fn row(cell: &Cell, rps: f64, status: CellStatus, reason: &str) -> Box<MeasurementRow> {
    Box::new(MeasurementRow {
        ok: rps as u64,
        throughput_rps: rps,
        status,
        reason: reason.into(),
        ..base_row(cell, "")
    })
}

impl Driver for Fake {
    type Service = FakeService;

    fn preflight(&self, _plan: &Plan, _runtimes: &BTreeSet<String>) -> Preflight {
        Preflight::default()
    }

    fn environment(&self, _plan: &Plan) -> Environment {
        Environment::default()
    }

    fn build(&mut self, _ctx: &CellContext, rt: &RuntimePlan) -> Result<BuildOutcome, String> {
        self.calls.push(format!("build {}", rt.name));
        if self.failing_builds.contains(&rt.name) {
            return Err("exit status 1 (scripted)".into());
        }
        Ok(BuildOutcome {
            cached: false,
            seconds: 0.5,
            artifact_bytes: None,
            input_hash: String::new(),
            deployable_bytes: None,
        })
    }

    fn check_built(
        &self,
        _ctx: &CellContext,
        _rt: &RuntimePlan,
        _cached: bool,
    ) -> Result<(), String> {
        Ok(())
    }

    fn train(
        &mut self,
        _ctx: &CellContext,
        rt: &RuntimePlan,
        _tp: &TrainPlan,
    ) -> (Result<(), String>, LifecycleRow) {
        self.calls.push(format!("train {}", rt.name));
        let mut row = lifecycle(&rt.name, 1);
        row.phase = Phase::Train;
        (Ok(()), row)
    }

    fn memory_phase(
        &mut self,
        _ctx: &CellContext,
        rt: &RuntimePlan,
        index: u32,
        _first_cell: &Cell,
        memory: &crate::plan::contract::memory::MemoryPlan,
    ) -> crate::results::MemoryPhaseRow {
        self.calls.push(format!("memory {} #{index}", rt.name));
        // A scripted process: 10 MiB idle, 20 MiB after, one process.
        crate::results::MemoryPhaseRow {
            runtime: rt.name.clone(),
            process: index,
            status: crate::results::MemoryPhaseStatus::Ok,
            processes: 1,
            idle_rss_bytes: Some(10 << 20),
            idle_pss_bytes: Some(9 << 20),
            idle_cgroup_bytes: None,
            after_rss_bytes: Some(20 << 20),
            after_pss_bytes: Some(19 << 20),
            after_cgroup_bytes: None,
            connections: memory.connections,
            load_seconds: memory.duration.as_secs_f64(),
            requests_ok: 1000,
            errors: 0,
            reason: String::new(),
        }
    }

    fn cold_start(
        &mut self,
        _ctx: &CellContext,
        rt: &RuntimePlan,
        index: u32,
        _first_cell: &Cell,
    ) -> ColdStart {
        self.calls.push(format!("cold-start {} #{index}", rt.name));
        let mut row = lifecycle(&rt.name, index);
        row.phase = Phase::Startup;
        let completed = !self.failing_starts.contains(&rt.name);
        if completed {
            row.stop = Some(StopOutcome::Graceful);
        }
        let end = if completed {
            ColdStartEnd::Completed
        } else {
            ColdStartEnd::Failed
        };
        ColdStart { row, end }
    }

    fn start(
        &mut self,
        _ctx: &CellContext,
        rt: &RuntimePlan,
        start_index: u32,
        _first_cell: &Cell,
    ) -> Result<Running<FakeService>, Box<StartFailure>> {
        self.calls.push(format!("start {} #{start_index}", rt.name));
        self.started_as.push((rt.start.clone(), rt.env.clone()));
        if self.failing_starts.contains(&rt.name) {
            return Err(Box::new(StartFailure {
                reason: format!("runtime {}: no 200 from GET /health (scripted)", rt.name),
                lifecycle: lifecycle(&rt.name, start_index),
                cancelled: false,
            }));
        }
        Ok(Running {
            service: FakeService {
                runtime: rt.name.clone(),
                start_index,
            },
            lifecycle: lifecycle(&rt.name, start_index),
            evidence: None,
            seen: None,
        })
    }

    fn measure(
        &mut self,
        ctx: &CellContext,
        service: &mut FakeService,
        cell: &Cell,
    ) -> Result<CellEnd, ResultsError> {
        assert_eq!(
            service.runtime, cell.runtime,
            "cell {} measured against another runtime's service",
            cell.id
        );
        match cell.load.mode {
            LoadMode::Open { rate, .. } => self.calls.push(format!("measure {} @{rate}", cell.id)),
            LoadMode::Closed { .. } => self.calls.push(format!("measure {}", cell.id)),
            LoadMode::Search(s) => self
                .calls
                .push(format!("measure {} search@{}", cell.id, s.from)),
        }
        let rps = (self.throughput.get(&cell.id))
            .or(self.rps.get(&cell.runtime))
            .copied()
            .unwrap_or(100.0);
        Ok(match self.cells.get(&cell.id) {
            None => CellEnd::Recorded(row(cell, rps, CellStatus::Ok, "")),
            Some(CellScript::Dies) => CellEnd::ServiceDied(row(
                cell,
                rps,
                CellStatus::Failed,
                "the service died (scripted)",
            )),
            Some(CellScript::Interrupted) => {
                ctx.interrupt.trigger();
                CellEnd::Interrupted
            }
        })
    }

    fn stop(
        &mut self,
        rt: &RuntimePlan,
        running: Running<FakeService>,
    ) -> (LifecycleRow, Option<String>) {
        self.calls
            .push(format!("stop {} #{}", rt.name, running.service.start_index));
        let mut row = running.lifecycle;
        if self.failing_stops.contains(&rt.name) {
            row.stop = Some(StopOutcome::Killed);
            let problem = format!("runtime {}: ignored SIGTERM (scripted)", rt.name);
            return (row, Some(problem));
        }
        row.stop = Some(StopOutcome::Graceful);
        (row, None)
    }

    fn start_dependency(&mut self, _ctx: &CellContext, dep: &DependencyPlan) -> Result<(), String> {
        self.calls.push(format!("dep-start {}", dep.name));
        if self.failing_dependencies.contains(&dep.name) {
            return Err(format!("dependency `{}`: not ready (scripted)", dep.name));
        }
        Ok(())
    }

    fn reset_dependency(&mut self, _ctx: &CellContext, dep: &DependencyPlan) -> Result<(), String> {
        self.calls.push(format!("dep-reset {}", dep.name));
        Ok(())
    }

    fn check_dependency(&mut self, dep: &DependencyPlan) -> Result<(), String> {
        match self.dying_dependencies.get_mut(&dep.name) {
            Some(0) => Err(format!("dependency `{}`: died (scripted)", dep.name)),
            Some(n) => {
                *n -= 1;
                Ok(())
            }
            None => Ok(()),
        }
    }

    fn stop_dependency(&mut self, dep: &DependencyPlan) -> Option<String> {
        self.calls.push(format!("dep-stop {}", dep.name));
        None
    }
}
