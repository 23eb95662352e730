//! One runtime of the spec -> a [`RuntimeDraft`]: templates rendered,
//! defaults applied, JDK found, port chosen, tools listed. The draft
//! becomes a [`crate::plan::RuntimePlan`] once its training requests are known.
use std::collections::BTreeMap;
use std::path::PathBuf;

use minijinja::{Environment, Value};

use crate::plan::contract::protocol_plan::Protocol;
use crate::plan::steps::draft::{RuntimeDraft, TrainDraft};
use crate::plan::steps::inputs::{
    DEFAULT_HEALTH_PATH, DEFAULT_RESTART, DEFAULT_STOP_GRACE, DEFAULT_TRAIN_CONNECTIONS,
    DEFAULT_TRAIN_DURATION, Host, RuntimeContext,
};
use crate::plan::templating::render::Renderer;
use crate::plan::templating::template::{Hints, Vars};
use crate::plan::{
    Collector, HealthCheck, JavaPlan, Restart, RuntimePlan, StopPlan, toolchains::tools,
};
use crate::spec::LoadedSpec;
use crate::spec::model::{RestartSpec, RuntimeSpec};
use crate::spec::validate::signal_number;

/// The runtime's `lifecycle.restart`, else the spec's, else [`DEFAULT_RESTART`].
fn restart_policy(rt: &RuntimeSpec, loaded: &LoadedSpec) -> Restart {
    let own = rt.lifecycle.and_then(|l| l.restart);
    let written = own.or(loaded.spec.lifecycle.and_then(|l| l.restart));
    match written {
        Some(RestartSpec::Run) => Restart::Run,
        Some(RestartSpec::Repeat) => Restart::Repeat,
        Some(RestartSpec::Cell) => Restart::Cell,
        None => DEFAULT_RESTART,
    }
}

/// What the plan chose before rendering a runtime: its port (fixed or
/// free), and the dependencies, planned first so that `deps.*` is known.
pub struct Placed<'a> {
    pub port: u16,
    pub dependencies: &'a [crate::plan::DependencyPlan],
    /// The axis points its cells are planned at (after the filters): a
    /// templated `java.version` builds with the highest JDK they resolve to.
    pub points: Vec<&'a crate::plan::steps::matrix::Point>,
}

/// Plans runtime `name` at `placed`.
/// Template problems go to `problems`; the returned draft is then partial.
pub fn plan_runtime<'s>(
    loaded: &'s LoadedSpec,
    name: &str,
    rt: &'s RuntimeSpec,
    placed: Placed,
    host: &Host,
    env: &Environment<'s>,
    problems: &mut Collector,
) -> RuntimeDraft {
    let at = |field: &str| format!("runtimes.{name}.{field}");
    let Placed {
        port,
        dependencies,
        points,
    } = placed;
    let (dir, source) = crate::plan::keys::source::resolve(loaded, name, rt, problems);
    // Start fields that use an axis are rendered per cell (crate::plan::steps::variant),
    // and so are the starts of a runtime serving TLS in some cells only.
    let own_points: Vec<&[(String, crate::spec::values::AxisValue)]> =
        points.iter().map(|p| p.as_slice()).collect();
    let protocol = crate::plan::keys::protocol::constant(loaded, &own_points);
    let serves_tls = crate::plan::keys::protocol::offers_tls(rt);
    let start_varies = crate::plan::steps::variant::varies(loaded, rt, &dir, env);
    let tls_varies = serves_tls && protocol.is_none();
    crate::plan::steps::variant::check_training(loaded, name, rt, start_varies, problems);
    if tls_varies && !start_varies {
        crate::plan::keys::protocol::check_training(loaded, name, rt, problems);
    }
    crate::plan::keys::protocol::check_remote_training(loaded, name, rt, problems);
    let per_cell = start_varies || tls_varies;

    let mut vars = Vars::default();
    host.set_vars(&mut vars);
    vars.set_map("runtime", &[("name", Value::from(name))]);
    vars.set("port", port);
    vars.set("work_dir", dir.display().to_string());
    vars.set(
        crate::plan::templating::files::SCRATCH_VAR,
        crate::plan::templating::files::scratch_path(&loaded.spec.experiment.name, name, port)
            .display()
            .to_string(),
    );
    if serves_tls {
        let scratch =
            crate::plan::templating::files::scratch_path(&loaded.spec.experiment.name, name, port);
        crate::plan::keys::protocol::set_tls_vars(&mut vars, &scratch);
    }
    let needs = crate::plan::steps::dependencies::needs_of(loaded, rt);
    if !dependencies.is_empty() {
        vars.set(
            "deps",
            crate::plan::steps::dependencies::deps_value(dependencies, &needs),
        );
    }
    let hints = Hints {
        axes: loaded.spec.axes.keys().cloned().collect(),
        has_java: rt.java.is_some(),
        dependencies: loaded.spec.dependencies.keys().cloned().collect(),
        per_cell_start: per_cell,
    };
    let mut r = Renderer {
        loaded,
        env,
        hints: &hints,
        problems,
    };
    let mut jdks = crate::plan::steps::variant::JdkFinder::new(
        &loaded.base_dir,
        host.java_home,
        host.jvm_root,
    );
    // With a templated version, the runtime's JDK is the one it builds with.
    let java: Option<JavaPlan> = rt.java.as_ref().map(|j| {
        if crate::plan::steps::variant::templated_version(rt) {
            crate::plan::steps::variant::build_jdk(
                &mut r,
                &at("java.version"),
                j,
                &vars,
                &points,
                &mut jdks,
            )
        } else {
            crate::plan::toolchains::java::resolve(
                j,
                &loaded.base_dir,
                host.java_home,
                host.jvm_root,
            )
        }
    });
    let java_bin = java.as_ref().map(crate::plan::steps::variant::java_bin);
    if let Some(bin) = &java_bin {
        vars.set("java", bin.clone());
    }

    // Per cell: rendered by crate::plan::steps::variant, the first cell's copied here.
    let fields = if per_cell {
        crate::plan::steps::variant::StartFields {
            jvm_flags: Vec::new(),
            start: String::new(),
            env: BTreeMap::new(),
            scratch: None,
        }
    } else {
        let tls = serves_tls && protocol.is_some_and(Protocol::uses_tls);
        crate::plan::steps::variant::render_start(&mut r, name, rt, &mut vars, port, tls)
    };
    let crate::plan::steps::variant::StartFields {
        jvm_flags,
        start,
        env: env_out,
        scratch,
    } = fields;
    let build = r.list(&at("build"), rt.build.as_ref(), &vars);

    let health = crate::plan::keys::health::plan_health(
        &mut r,
        rt.health.as_ref(),
        HealthCheck::Http(DEFAULT_HEALTH_PATH.to_owned()),
        &vars,
        &at,
    );
    let stop_spec = rt.stop.clone().unwrap_or_default();
    let signal_name = stop_spec.signal.as_deref().unwrap_or("TERM");
    let stop = StopPlan {
        signal: signal_number(signal_name).unwrap_or(libc::SIGTERM),
        signal_name: signal_name
            .strip_prefix("SIG")
            .unwrap_or(signal_name)
            .to_owned(),
        grace: stop_spec.grace.map_or(DEFAULT_STOP_GRACE, |d| d.0),
    };

    let train = rt.train.as_ref().map(|t| TrainDraft {
        workload: t.workload.clone(),
        start: t
            .start
            .as_deref()
            .map_or_else(|| start.clone(), |s| r.one(&at("train.start"), s, &vars)),
        env: r
            .map(&at("train.env"), t.env.iter().flatten(), &vars)
            .into_iter()
            .collect(),
        connections: t.connections.unwrap_or(DEFAULT_TRAIN_CONNECTIONS),
        duration: t.duration.map_or(DEFAULT_TRAIN_DURATION, |d| d.0),
        after: r.list(&at("train.after"), t.after.as_ref(), &vars),
        produces: r
            .list(&at("train.produces"), t.produces.as_ref(), &vars)
            .into_iter()
            .map(|p| dir.join(p))
            .collect(),
        evidence: t.evidence.clone(),
        inputs: Vec::new(),
        probe: t
            .probe
            .as_deref()
            .map(|p| r.one(&at("train.probe"), p, &vars)),
    });
    let artifact = rt
        .artifact
        .as_deref()
        .map(|a| dir.join(r.one(&at("artifact"), a, &vars)));
    let deployable: Vec<PathBuf> = match rt.deployable.as_ref() {
        Some(list) => r
            .list(&at("deployable"), Some(list), &vars)
            .into_iter()
            .map(|p| dir.join(p))
            .collect(),
        None => artifact.iter().cloned().collect(),
    };
    // Training inputs: as declared, else the build's artifact.
    let train = train.map(|mut t| {
        t.inputs = match rt.train.as_ref().and_then(|s| s.inputs.as_ref()) {
            Some(inputs) => r
                .list(&at("train.inputs"), Some(inputs), &vars)
                .into_iter()
                .map(|p| dir.join(p))
                .collect(),
            None => artifact.iter().cloned().collect(),
        };
        t
    });

    let mut commands: Vec<&str> = build.iter().map(String::as_str).collect();
    commands.push(&start);
    if let Some(t) = &train {
        commands.push(&t.start);
        commands.extend(t.after.iter().map(String::as_str));
        commands.extend(t.probe.as_deref());
    }
    let unresolved_java = java_bin
        .as_deref()
        .filter(|_| java.as_ref().is_some_and(|j| j.home.is_none()));
    let tools = tools::programs(commands)
        .into_iter()
        .filter(|t| unresolved_java != Some(t.as_str()))
        .collect();

    let runtime = RuntimePlan {
        name: name.to_owned(),
        dir,
        build,
        start,
        env: env_out,
        pass_env: rt.pass_env.clone().unwrap_or_default(),
        jvm_flags,
        java,
        port,
        scratch,
        restart: restart_policy(rt, loaded),
        repeats: crate::plan::contract::adaptive::repeat_policy(rt, loaded),
        health,
        stop,
        train: None,
        tags: rt.tags.clone().unwrap_or_default(),
        artifact,
        deployable,
        tools,
        startup_repeats: crate::plan::contract::gates::startup_repeats(&loaded.spec, rt),
        log_cap_bytes: crate::plan::contract::gates::log_cap(&loaded.spec),
        needs,
        protocols: rt.protocols.as_ref().map_or_else(
            || vec![Protocol::Http1],
            |p| p.iter().map(|&name| Protocol::from(name)).collect(),
        ),
        profile: None,
        first_requests: crate::plan::contract::gates::first_requests(&loaded.spec, rt),
        source,
    };
    RuntimeDraft::new(runtime, RuntimeContext { vars, hints }, train)
}
