//! Rendering the cells: for each one the workload requests and the load
//! settings, with the runtime's variables plus the cell's axis values.
use std::time::Duration;

use minijinja::Environment;

use crate::plan::steps::draft::RuntimeDraft;
use crate::plan::templating::render::Renderer;
use crate::plan::templating::template::{self, Hints, Vars};
use crate::plan::{
    Cell, Collector, DEFAULT_LOAD_TIMEOUT, DEFAULT_OPEN_CONNECTIONS, LoadMode, LoadPlan, Measure,
    Order, RequestPlan, steps::inputs, steps::matrix,
};
use crate::spec::LoadedSpec;
use crate::spec::keys::scenarios;
use crate::spec::model::{LoadModeSpec, LoadSpec, RequestSpec};
use crate::spec::validate::request_name;
use crate::spec::values::{AxisValue, NumberOrTemplate};

/// Every cell of the plan, in execution order: each runtime at each of its
/// `kept` points (indices into `points`, one list per runtime), `repeats`
/// times, arranged for `order`.
pub fn render_cells<'s>(
    loaded: &'s LoadedSpec,
    env: &Environment<'s>,
    runtimes: &[RuntimeDraft],
    points: &[matrix::Point],
    kept: &[Vec<usize>],
    order: Order,
    problems: &mut Collector,
) -> Vec<Cell> {
    let spec = &loaded.spec;
    let warmup = crate::plan::contract::adaptive::cell_warmup(loaded);
    let repeats: Vec<u32> = runtimes.iter().map(|r| r.repeats().max()).collect();
    let measure = match (spec.measure.duration, spec.measure.requests) {
        (_, Some(n)) => Measure::Requests(n),
        (Some(d), None) => Measure::Duration(d.0),
        (None, None) => Measure::Duration(Duration::ZERO),
    };
    let mut cells = Vec::new();
    for (r, p, repeat) in matrix::order(kept, &repeats, order) {
        let rt = &runtimes[r];
        let point = &points[p];
        let hints = &rt.context.hints;
        let vars = cell_vars(&rt.context, point);
        let scenario = scenarios::scenario_of(point);
        let requests: Vec<crate::plan::RequestPlan> = scenarios::workload_of(spec, scenario)
            .iter()
            .map(|req| render_request(loaded, env, req, &vars, hints, problems))
            .collect();
        let (load_spec, load_at) = crate::plan::contract::scenarios::load_of(loaded, scenario);
        let load = load_plan(
            loaded, load_spec, &load_at, env, &vars, hints, point, problems,
        );
        let written = scenarios::workload_of(spec, scenario)
            .iter()
            .map(|r| scenarios::request_field(spec, r))
            .zip(&requests)
            .collect::<Vec<_>>();
        crate::plan::keys::protocol::check_requests(
            loaded,
            load.transport.protocol,
            &written,
            problems,
        );
        crate::plan::keys::protocol::check_offered(
            loaded,
            rt.name(),
            &rt.runtime().protocols,
            load.transport.protocol,
            problems,
        );
        let measure = crate::plan::contract::model::measure_of(&load.mode).unwrap_or(measure);
        let limits =
            crate::plan::keys::limits::cell_limits(loaded, env, rt.name(), &vars, hints, problems);
        let config_id = matrix::config_id(rt.name(), point);
        cells.push(Cell {
            id: format!("{config_id}/r{repeat}"),
            config_id,
            runtime: rt.name().to_string(),
            axes: point.clone(),
            repeat,
            requests,
            load,
            warmup,
            measure,
            limits,
            derived_rate: None,
            profiled: false,
            variant: None,
        });
    }
    cells
}

/// The runtime's variables plus the axis values of this point.
pub fn cell_vars(ctx: &inputs::RuntimeContext, point: &matrix::Point) -> Vars {
    let mut vars = ctx.vars.clone();
    set_axes(&mut vars, point);
    vars
}

/// The axis values of `point` added to `vars`.
pub fn set_axes(vars: &mut Vars, point: &matrix::Point) {
    for (name, value) in point {
        match value {
            AxisValue::Int(i) => vars.set(name, *i),
            AxisValue::Float(f) => vars.set(name, *f),
            AxisValue::Text(t) => vars.set(name, t.clone()),
        }
    }
}

pub fn render_request<'s>(
    loaded: &'s LoadedSpec,
    env: &Environment<'s>,
    request: &'s RequestSpec,
    vars: &Vars,
    hints: &Hints,
    problems: &mut Collector,
) -> RequestPlan {
    let base = scenarios::request_field(&loaded.spec, request);
    let at = |field: &str| format!("{base}.{field}");
    let mut r = Renderer {
        loaded,
        env,
        hints,
        problems,
    };
    // `seq` and `rand` vary per request: placeholders for the load generator.
    let dynamic = crate::plan::templating::dynamic::request_vars(vars);
    let path =
        crate::plan::templating::dynamic::canonical(&r.one(&at("path"), &request.path, &dynamic));
    let headers = r.map(&at("headers"), &request.headers, vars);
    let body = (request.body.as_deref())
        .map(|b| crate::plan::templating::dynamic::canonical(&r.one(&at("body"), b, &dynamic)));
    if !path.is_empty() && !path.starts_with('/') {
        r.problems.add(
            loaded,
            &at("path"),
            format!("request path `{path}` does not start with `/`"),
            "write the path from the root, e.g. `/api/{{ payload }}`",
        );
    }
    let expect =
        crate::plan::keys::expect::render_expect(&mut r, &at("expect"), &request.expect, vars);
    RequestPlan {
        name: request_name(request).to_owned(),
        method: request.method.clone(),
        path,
        headers,
        body,
        expect_status: request.expect.status,
        expect,
        weight: request.weight,
    }
}

/// The cell's `LoadPlan` from `load` (the spec's, or its scenario's merged
/// load); problems are named at `at` (`load`, `scenarios.<name>.load`).
#[allow(clippy::too_many_arguments)]
pub fn load_plan<'s>(
    loaded: &'s LoadedSpec,
    load: &'s LoadSpec,
    at: &str,
    env: &Environment<'s>,
    vars: &Vars,
    hints: &Hints,
    point: &matrix::Point,
    problems: &mut Collector,
) -> LoadPlan {
    // A positive number; `whole` also requires an integer (connections).
    let mut number = |name: &str, value: &'s NumberOrTemplate, whole: bool| -> Option<f64> {
        let field = &format!("{at}.{name}");
        let text = match value {
            NumberOrTemplate::Number(n) => n.to_string(),
            NumberOrTemplate::Template(t) => match template::render(env, t, vars, hints) {
                Ok(text) => text,
                Err(e) => {
                    problems.add(loaded, field, e.message, e.help);
                    return None;
                }
            },
        };
        let kind = if whole {
            "a whole number of 1 or more"
        } else {
            "a number above 0"
        };
        match text.trim().parse::<f64>() {
            Ok(n)
                if n.is_finite()
                    && n > 0.0
                    && (!whole || (n.fract() == 0.0 && n <= f64::from(u32::MAX))) =>
            {
                Some(n)
            }
            _ => {
                problems.add(
                    loaded,
                    field,
                    format!("`{field}` renders to `{text}`, not {kind}"),
                    format!(
                        "write {kind}, or a template giving one (e.g. an axis of such numbers)"
                    ),
                );
                None
            }
        }
    };
    let concurrency = point
        .iter()
        .find(|(k, _)| k == "concurrency")
        .and_then(|(_, v)| match v {
            AxisValue::Int(i) => u32::try_from(*i).ok(),
            _ => None,
        });
    let connections = load
        .connections
        .as_ref()
        .and_then(|c| number("connections", c, true))
        .map(|n| n as u32);
    let mode = match load.mode {
        LoadModeSpec::Closed => LoadMode::Closed {
            connections: connections.or(concurrency).unwrap_or(1),
        },
        LoadModeSpec::Open => LoadMode::Open {
            rate: load
                .rate
                .as_ref()
                .and_then(|r| number("rate", r, false))
                .unwrap_or(0.0),
            connections: connections
                .or(concurrency)
                .unwrap_or(DEFAULT_OPEN_CONNECTIONS),
        },
        LoadModeSpec::Search => LoadMode::Search(crate::plan::contract::search::search_plan(
            load,
            connections
                .or(concurrency)
                .unwrap_or(DEFAULT_OPEN_CONNECTIONS),
        )),
    };
    let threads = load
        .threads
        .or_else(|| {
            loaded
                .spec
                .affinity
                .as_ref()
                .and_then(|a| a.cpus())
                .map(|a| a.load.len().max(1) as u32)
        })
        .unwrap_or(1);
    let streams = load
        .streams
        .as_ref()
        .and_then(|s| number("streams", s, true))
        .map(|n| n as u32);
    let transport = crate::plan::keys::protocol::resolve(
        loaded, load, at, env, vars, hints, point, streams, problems,
    );
    LoadPlan {
        transport,
        mode,
        timeout: load.timeout.map_or(DEFAULT_LOAD_TIMEOUT, |t| t.0),
        threads,
        seed: load.seed.unwrap_or(crate::load::DEFAULT_MIX_SEED),
        connect_rate: load
            .connect_rate
            .map_or(crate::load::DEFAULT_CONNECT_RATE, |r| r.0),
        ramp: load.ramp.map_or(Duration::ZERO, |r| r.0),
    }
}
