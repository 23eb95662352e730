//! Stage `plan`: a checked spec -> the [`Plan`] (see model.rs).
//!
//! Entry point: [`build`]`(&LoadedSpec, &PlanOptions) -> Result<Plan, PlanErrors>`.
//! It renders every template for every runtime and cell (so an undefined
//! variable is found before anything runs), resolves JDKs, chooses free
//! ports for `port: auto`, and expands the matrix ([`matrix`]).
//! [`Plan::quick`] shortens every duration for `--quick` runs and
//! [`Plan::estimate`] predicts the wall time ([`estimate`]), counting the
//! service starts with the rule exec applies ([`restart`]).
pub mod analysis;
pub mod commands;
pub mod contract;
pub mod keys;
pub mod present;
pub mod steps;
pub mod templating;
pub mod toolchains;

use std::path::Path;
use std::time::Duration;

pub use analysis::estimate::Estimate;
pub use contract::adaptive::{AutoWarmup, CellWarmup, RepeatPolicy};
pub use contract::dependency_plan::*;
pub use contract::model::*;
pub use contract::protocol_plan::{Protocol, ProtocolPlan, Reuse, Trust};
pub use contract::ready_stop::{HealthCheck, HealthPlan, StopPlan};
pub use contract::scratch_plan::{RenderedFile, ScratchPlan};

use crate::spec::{LoadedSpec, Problem, SpecErrors};
use steps::draft::RuntimeDraft;

/// Plan problems are spec problems (templates, filters), shown the same way.
pub type PlanErrors = SpecErrors;

/// Defaults of the spec-wide settings (documented in docs/spec.md).
pub const DEFAULT_LOAD_TIMEOUT: Duration = Duration::from_secs(10);
pub const DEFAULT_SAMPLE_INTERVAL: Duration = Duration::from_millis(200);
pub const DEFAULT_MAX_RESTARTS: u32 = 1;
pub const DEFAULT_OPEN_CONNECTIONS: u32 = 64;
/// Largest matrix planned: beyond this a spec is a mistake, not an experiment.
pub const MAX_CELLS: u64 = 100_000;

/// Choices made on the command line.
#[derive(Debug, Clone, Default)]
pub struct PlanOptions {
    /// `--only KEY=VALUE[,VALUE]` filters, as typed (KEY = `runtime` or an axis).
    pub only: Vec<String>,
    /// `--quick N`: divide every warmup and duration by N (see [`Plan::quick`]).
    pub quick: Option<u32>,
    /// `--repeats N`: at most N repeats of every configuration, cold start
    /// and memory phase (see [`repeats_cap`]).
    pub repeats: Option<u32>,
}

/// Problems found while planning, each reported once even when every cell hits it.
#[derive(Default)]
pub struct Collector {
    problems: Vec<Problem>,
}

impl Collector {
    pub fn add(
        &mut self,
        loaded: &LoadedSpec,
        field: &str,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        let problem = loaded.problem(field, message).help(help);
        let seen = self
            .problems
            .iter()
            .any(|p| p.field == problem.field && p.message == problem.message);
        if !seen {
            self.problems.push(problem);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.problems.is_empty()
    }

    /// `Err` with every problem added, if any.
    pub fn into_result(self) -> Result<(), PlanErrors> {
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(SpecErrors {
                problems: self.problems,
            })
        }
    }
}

/// Builds the plan of `loaded`, reporting every problem found.
pub fn build(loaded: &LoadedSpec, options: &PlanOptions) -> Result<Plan, PlanErrors> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let java_home = std::env::var_os("JAVA_HOME").map(std::path::PathBuf::from);
    let host = steps::inputs::Host {
        cpus,
        user: current_user(),
        java_home: java_home.as_deref(),
        jvm_root: Path::new(toolchains::java::JVM_ROOT),
        allowed_cpus: crate::affinity::allowed_cpus(),
    };
    build_on(loaded, options, &host)
}

/// The name of the effective user (its uid as text when it has no name).
fn current_user() -> String {
    // SAFETY: geteuid has no preconditions; getpwuid_r writes only into the
    // buffers given, and the name is read from them before they are dropped.
    unsafe {
        let uid = libc::geteuid();
        let mut entry: libc::passwd = std::mem::zeroed();
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        let mut buf = vec![0 as libc::c_char; 4096];
        let rc = libc::getpwuid_r(uid, &mut entry, buf.as_mut_ptr(), buf.len(), &mut found);
        if rc != 0 || found.is_null() || entry.pw_name.is_null() {
            return uid.to_string();
        }
        std::ffi::CStr::from_ptr(entry.pw_name)
            .to_string_lossy()
            .into_owned()
    }
}

/// [`build`] with the host facts given (tests pass fake JDK folders).
///
/// The steps, in order: check the `--only` filters, choose the ports,
/// render each runtime's own fields, filter the axis points per runtime,
/// render the training requests, render the cells, assemble. Problems are
/// reported in that order, each once.
pub fn build_on(
    loaded: &LoadedSpec,
    options: &PlanOptions,
    host: &steps::inputs::Host,
) -> Result<Plan, PlanErrors> {
    let only = steps::filter::parse_only_filters(loaded, &options.only)?;
    let (ports, dependency_ports) = keys::ports::runtime_and_dependency_ports(loaded)?;
    let env = templating::template::environment();
    let mut problems = Collector::default();
    let dependencies = steps::dependencies::plan_dependencies(
        loaded,
        &dependency_ports,
        host,
        &env,
        &mut problems,
    );

    let points = steps::matrix::points(&loaded.spec.axes);
    let names: Vec<&str> = loaded.runtimes.keys().map(String::as_str).collect();
    let kept = steps::filter::kept_points(&loaded.spec, &names, &points, &only);

    let mut drafts: Vec<RuntimeDraft> = loaded
        .runtimes
        .iter()
        .zip(ports)
        .zip(&kept)
        .map(|(((name, rt), port), kept)| {
            let placed = steps::runtime::Placed {
                port,
                dependencies: &dependencies,
                points: kept.iter().map(|&p| &points[p]).collect(),
            };
            steps::runtime::plan_runtime(loaded, name, rt, placed, host, &env, &mut problems)
        })
        .collect();
    steps::profile::apply(loaded, &mut drafts, &mut problems);
    if let Some(cap) = options.repeats {
        for draft in &mut drafts {
            keys::repeats_cap::cap_runtime(draft.runtime_mut(), cap);
        }
    }

    let train_requests: Vec<Vec<RequestPlan>> = drafts
        .iter()
        .zip(&kept)
        .map(|(draft, kept)| {
            steps::training::training_requests(loaded, &env, draft, &points, kept, &mut problems)
        })
        .collect();
    let order = steps::assemble::order(loaded);
    let mut cells =
        steps::cell::render_cells(loaded, &env, &drafts, &points, &kept, order, &mut problems);
    contract::scenarios::scenario_by_scenario(loaded, &mut cells);
    let mut jdks = steps::variant::finder_of(loaded, host);
    let (mut cells, skipped_cells) =
        steps::variant::apply(loaded, &env, &mut drafts, cells, &mut jdks, &mut problems);
    let equal_load = steps::equal_load::equal_load_cells(loaded, &cells, order, &mut problems);
    cells.extend(equal_load);
    let profiled = steps::profile::profiled_cells(loaded, &drafts, &cells);
    cells.extend(profiled);
    let verify = keys::verify_requests::plan_verify(loaded, &mut problems);

    if cells.is_empty() && skipped_cells.is_empty() && problems.is_empty() {
        return Err(SpecErrors::one(steps::filter::nothing_kept(loaded)));
    }
    problems.into_result()?;

    let runtimes = drafts
        .into_iter()
        .zip(train_requests)
        .map(|(draft, requests)| draft.finish(requests))
        .collect();
    let affinity = keys::pinning::resolve(loaded.spec.affinity.as_ref(), &host.allowed_cpus);
    let mut plan = steps::assemble::assemble(loaded, runtimes, cells, affinity);
    plan.versions = keys::versions::plan_versions(loaded, &plan.runtimes, &dependencies);
    plan.dependencies = dependencies;
    plan.verify = verify;
    plan.skipped_cells = skipped_cells;
    if let Some(cap) = options.repeats {
        keys::repeats_cap::cap_plan(&mut plan, cap);
    }
    Ok(match options.quick {
        Some(factor) => plan.quick(factor),
        None => plan,
    })
}
