//! Stage `plan`: a checked spec -> the [`Plan`] (see model.rs).
//!
//! Entry point: [`build`]`(&LoadedSpec, &PlanOptions) -> Result<Plan, PlanErrors>`.
//! It renders every template for every runtime and cell (so an undefined
//! variable is found before anything runs), resolves JDKs, chooses free
//! ports for `port: auto`, and expands the matrix ([`matrix`]).
//! [`Plan::quick`] shortens every duration for `--quick` runs and
//! [`Plan::estimate`] predicts the wall time ([`estimate`]).
pub mod cell;
pub mod commands;
pub mod estimate;
pub mod java;
pub mod matrix;
pub mod model;
pub mod ports;
pub mod runtime;
pub mod show;
pub mod template;
pub mod tools;

use std::path::Path;
use std::time::Duration;

pub use estimate::Estimate;
pub use model::*;

use crate::spec::error::suggestion;
use crate::spec::model::{OrderSpec, RequestSpec};
use crate::spec::values::AxisValue;
use crate::spec::validate::request_name;
use crate::spec::{LoadedSpec, Problem, SpecErrors};
use matrix::OnlyFilter;

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
}

/// Builds the plan of `loaded`, reporting every problem found.
pub fn build(loaded: &LoadedSpec, options: &PlanOptions) -> Result<Plan, PlanErrors> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let java_home = std::env::var_os("JAVA_HOME").map(std::path::PathBuf::from);
    let host = runtime::Host {
        cpus,
        java_home: java_home.as_deref(),
        jvm_root: Path::new(java::JVM_ROOT),
    };
    build_on(loaded, options, &host)
}

/// [`build`] with the host facts given (tests pass fake JDK folders).
pub fn build_on(
    loaded: &LoadedSpec,
    options: &PlanOptions,
    host: &runtime::Host,
) -> Result<Plan, PlanErrors> {
    let spec = &loaded.spec;
    let shown = loaded.path.display().to_string();
    let mut problems = Collector::default();
    let only = parse_only_filters(loaded, &options.only, &shown)?;

    let ports_wanted: Vec<(&str, _)> = loaded
        .runtimes
        .iter()
        .map(|(n, r)| (n.as_str(), r.port))
        .collect();
    let ports = ports::choose_ports(&ports_wanted).map_err(|e| {
        SpecErrors::one(
            Problem::new(&shown, format!("cannot find a free port on 127.0.0.1: {e}"))
                .help("free some ports, or give each runtime a fixed `port:`"),
        )
    })?;

    let env = template::environment();
    let mut runtimes = Vec::new();
    let mut contexts = Vec::new();
    for ((name, rt), port) in loaded.runtimes.iter().zip(ports) {
        let (plan, ctx) = runtime::plan_runtime(loaded, name, rt, port, host, &env, &mut problems);
        runtimes.push(plan);
        contexts.push(ctx);
    }

    let axes: Vec<(String, Vec<AxisValue>)> = spec
        .axes
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let points = matrix::points(&axes);
    let rules =
        |rules: &[indexmap::IndexMap<String, AxisValue>], rt: &str, point: &matrix::Point| {
            rules
                .iter()
                .any(|r| matrix::rule_matches(r.iter().map(|(k, v)| (k, v.to_string())), rt, point))
        };
    let kept: Vec<Vec<usize>> = runtimes
        .iter()
        .map(|rt| {
            (0..points.len())
                .filter(|&p| {
                    let point = &points[p];
                    (spec.include.is_empty() || rules(&spec.include, &rt.name, point))
                        && !rules(&spec.exclude, &rt.name, point)
                        && matrix::only_keeps(&only, &rt.name, point)
                })
                .collect()
        })
        .collect();

    // Training drives the workload over every axis point it is planned for.
    for ((rt, ctx), rt_points) in runtimes.iter_mut().zip(&contexts).zip(&kept) {
        let Some(train) = rt.train.as_mut() else {
            continue;
        };
        let wanted = loaded.runtimes[&rt.name]
            .train
            .as_ref()
            .and_then(|t| t.workload.clone());
        let requests: Vec<&RequestSpec> = spec
            .workload
            .0
            .iter()
            .filter(|r| {
                wanted
                    .as_ref()
                    .is_none_or(|w| w.iter().any(|n| n == request_name(r)))
            })
            .collect();
        for &p in rt_points {
            let vars = cell::cell_vars(ctx, &points[p]);
            for request in &requests {
                let plan =
                    cell::render_request(loaded, &env, request, &vars, &ctx.hints, &mut problems);
                let duplicate = train
                    .requests
                    .iter()
                    .any(|r| r.method == plan.method && r.path == plan.path && r.body == plan.body);
                if !duplicate {
                    train.requests.push(plan);
                }
            }
        }
    }

    let order = match spec.order {
        OrderSpec::Sequential => Order::Sequential,
        OrderSpec::Interleaved => Order::Interleaved,
    };
    let warmup = spec.warmup.cell.map_or(Duration::ZERO, |d| d.0);
    let measure = match (spec.measure.duration, spec.measure.requests) {
        (_, Some(n)) => Measure::Requests(n),
        (Some(d), None) => Measure::Duration(d.0),
        (None, None) => Measure::Duration(Duration::ZERO),
    };
    let mut cells = Vec::new();
    for (r, p, repeat) in matrix::order(&kept, spec.repeats, order) {
        let rt = &runtimes[r];
        let point = &points[p];
        let vars = cell::cell_vars(&contexts[r], point);
        let requests = spec
            .workload
            .0
            .iter()
            .map(|req| {
                cell::render_request(loaded, &env, req, &vars, &contexts[r].hints, &mut problems)
            })
            .collect();
        let load = cell::load_plan(
            loaded,
            &env,
            &vars,
            &contexts[r].hints,
            point,
            &mut problems,
        );
        let config_id = matrix::config_id(&rt.name, point);
        cells.push(Cell {
            id: format!("{config_id}/r{repeat}"),
            config_id,
            runtime: rt.name.clone(),
            axes: point.clone(),
            repeat,
            requests,
            load,
            warmup,
            measure,
        });
    }
    if cells.is_empty() && problems.problems.is_empty() {
        problems.problems.push(
            Problem::new(
                &shown,
                "the plan has no cells: `include`, `exclude` and `--only` filter out every one",
            )
            .help("loosen the filters (`runner plan` without `--only` shows every cell)"),
        );
    }
    if !problems.problems.is_empty() {
        return Err(SpecErrors {
            problems: problems.problems,
        });
    }

    let plan = Plan {
        experiment: ExperimentInfo {
            name: spec.experiment.name.clone(),
            title: spec.experiment.title.clone(),
            description: spec.experiment.description.clone(),
        },
        spec_path: crate::spec::absolute(&loaded.path),
        spec_hash: loaded.sha256.clone(),
        runtimes,
        cells,
        order,
        repeats: spec.repeats,
        service_warmup: spec.warmup.service.map_or(Duration::ZERO, |d| d.0),
        sample_interval: spec
            .sample
            .as_ref()
            .map_or(DEFAULT_SAMPLE_INTERVAL, |s| s.interval.0),
        affinity: spec.affinity.as_ref().map(|a| Affinity {
            service: a.service.clone(),
            load: a.load.clone(),
        }),
        results_dir: crate::spec::absolute(
            &loaded
                .base_dir
                .join(spec.results.as_deref().unwrap_or("results"))
                .join(&spec.experiment.name),
        ),
        report_templates: spec
            .report
            .iter()
            .flat_map(|r| &r.templates)
            .map(|t| crate::spec::absolute(&loaded.base_dir.join(t)))
            .collect(),
        metrics: spec.metrics.clone(),
        max_restarts: spec
            .faults
            .as_ref()
            .map_or(DEFAULT_MAX_RESTARTS, |f| f.max_restarts),
        quick_factor: None,
        verify: spec
            .verify
            .iter()
            .map(|v| VerifyPlan {
                name: v.name.clone(),
                method: v.method.clone(),
                path: v.path.clone(),
                expect_status: v.expect_status,
                compare: v.compare.clone(),
            })
            .collect(),
    };
    Ok(match options.quick {
        Some(factor) => plan.quick(factor),
        None => plan,
    })
}

fn parse_only_filters(
    loaded: &LoadedSpec,
    only: &[String],
    shown: &str,
) -> Result<Vec<OnlyFilter>, PlanErrors> {
    let mut problems = Vec::new();
    let mut filters = Vec::new();
    let mut keys: Vec<&str> = vec!["runtime"];
    keys.extend(loaded.spec.axes.keys().map(String::as_str));
    for text in only {
        let filter = match matrix::parse_only(text) {
            Ok(f) => f,
            Err(e) => {
                problems.push(
                    Problem::new(shown, format!("--only {e}"))
                        .help("e.g. `--only runtime=go-stdlib --only payload=128,2048`"),
                );
                continue;
            }
        };
        let known: Vec<String> = if filter.key == "runtime" {
            loaded.runtimes.keys().cloned().collect()
        } else if let Some(values) = loaded.spec.axes.get(&filter.key) {
            values.iter().map(ToString::to_string).collect()
        } else {
            problems.push(
                Problem::new(
                    shown,
                    format!(
                        "--only {text}: `{}` is neither `runtime` nor an axis",
                        filter.key
                    ),
                )
                .help(suggestion(&filter.key, &keys, "valid keys")),
            );
            continue;
        };
        for value in &filter.values {
            if !known.contains(value) {
                let names: Vec<&str> = known.iter().map(String::as_str).collect();
                problems.push(
                    Problem::new(
                        shown,
                        format!(
                            "--only {text}: `{value}` is not a value of `{}`",
                            filter.key
                        ),
                    )
                    .help(suggestion(value, &names, "values")),
                );
            }
        }
        filters.push(filter);
    }
    if problems.is_empty() {
        Ok(filters)
    } else {
        Err(SpecErrors { problems })
    }
}
