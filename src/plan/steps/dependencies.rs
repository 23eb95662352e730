//! `dependencies:` -> [`DependencyPlan`]s: each rendered with its own port
//! (`{{ port }}`, `{{ host.cpus }}`), the `postgres` kind expanded into its
//! commands ([`crate::plan::keys::postgres`]); and what a runtime sees of the
//! dependencies it `needs` (`{{ deps.<name>.port }}`, ...).
use std::collections::BTreeMap;

use minijinja::{Environment, Value};

use crate::cgroup::Limits;
use crate::plan::HealthCheck;
use crate::plan::contract::dependency_plan::{DependencyKindPlan, DependencyPlan, ResetPlan};
use crate::plan::keys::health::plan_health;
use crate::plan::steps::inputs::DEFAULT_STOP_GRACE;
use crate::plan::templating::render::Renderer;
use crate::plan::templating::template::{Hints, Vars};
use crate::plan::{Collector, StopPlan};
use crate::spec::keys::dependencies::{DependencyKind, DependencySpec};
use crate::spec::model::RuntimeSpec;
use crate::spec::validate::signal_number;
use crate::spec::{LoadedSpec, absolute};

/// The dependencies runtime `rt` needs, in spec order: its `needs`, or all.
pub fn needs_of(loaded: &LoadedSpec, rt: &RuntimeSpec) -> Vec<String> {
    match &rt.needs {
        Some(needs) => loaded
            .spec
            .dependencies
            .keys()
            .filter(|d| needs.contains(d))
            .cloned()
            .collect(),
        None => loaded.spec.dependencies.keys().cloned().collect(),
    }
}

/// `deps` for a runtime's templates: `deps.<name>.<key>` for each needed one.
pub fn deps_value(dependencies: &[DependencyPlan], needs: &[String]) -> Value {
    let map: BTreeMap<String, Value> = dependencies
        .iter()
        .filter(|d| needs.contains(&d.name))
        .map(|d| {
            let vars: BTreeMap<String, Value> = d
                .vars
                .iter()
                .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
                .collect();
            (d.name.clone(), Value::from_pairs(vars))
        })
        .collect();
    Value::from_pairs(map)
}

/// Plans every dependency; `ports` in spec order.
pub fn plan_dependencies<'s>(
    loaded: &'s LoadedSpec,
    ports: &[u16],
    host: &crate::plan::steps::inputs::Host,
    env: &Environment<'s>,
    problems: &mut Collector,
) -> Vec<DependencyPlan> {
    loaded
        .spec
        .dependencies
        .iter()
        .zip(ports)
        .map(|((name, dep), port)| plan_one(loaded, name, dep, *port, host, env, problems))
        .collect()
}

fn plan_one<'s>(
    loaded: &'s LoadedSpec,
    name: &str,
    dep: &'s DependencySpec,
    port: u16,
    host: &crate::plan::steps::inputs::Host,
    env: &Environment<'s>,
    problems: &mut Collector,
) -> DependencyPlan {
    let at = |field: &str| format!("dependencies.{name}.{field}");
    let dir = absolute(&loaded.base_dir.join(dep.dir.as_deref().unwrap_or(".")));
    let mut vars = Vars::default();
    host.set_vars(&mut vars);
    vars.set("port", port);
    let scratch_path = crate::plan::templating::files::scratch_path(
        &loaded.spec.experiment.name,
        &format!("dep-{name}"),
        port,
    );
    vars.set(
        crate::plan::templating::files::SCRATCH_VAR,
        scratch_path.display().to_string(),
    );
    let hints = Hints::default();
    let mut r = Renderer {
        loaded,
        env,
        hints: &hints,
        problems,
    };
    let build = r.list(&at("build"), dep.build.as_ref(), &vars);
    let mut env_out: BTreeMap<String, String> = r
        .map(&at("env"), dep.env.iter().flatten(), &vars)
        .into_iter()
        .collect();
    env_out.insert("PORT".into(), port.to_string());
    let health = plan_health(&mut r, dep.health.as_ref(), HealthCheck::Tcp, &vars, &at);
    let scratch = crate::plan::templating::files::render_files(
        &mut r,
        &at("files"),
        &dir,
        dep.files.as_ref(),
        scratch_path,
        &vars,
    );
    let stop_spec = dep.stop.clone().unwrap_or_default();
    // PostgreSQL's TERM is a "smart" shutdown that waits for every client;
    // INT is its fast one (clients cut, a clean checkpoint).
    let default_signal = match dep.kind {
        Some(DependencyKind::Postgres) => "INT",
        None => "TERM",
    };
    let signal_name = stop_spec.signal.as_deref().unwrap_or(default_signal);
    let stop = StopPlan {
        signal: signal_number(signal_name).unwrap_or(libc::SIGTERM),
        signal_name: signal_name
            .strip_prefix("SIG")
            .unwrap_or(signal_name)
            .to_owned(),
        grace: stop_spec.grace.map_or(DEFAULT_STOP_GRACE, |d| d.0),
    };
    let when = dep.reset.as_ref().and_then(|r| r.when).unwrap_or_default();
    let limits = Limits {
        cpus: dep.limits.and_then(|l| l.cpus),
        memory_bytes: dep.limits.and_then(|l| l.memory).map(|m| m.0),
    };
    let base = DependencyPlan {
        name: name.to_owned(),
        kind: DependencyKindPlan::Command,
        dir,
        build,
        setup: Vec::new(),
        start: String::new(),
        seed: Vec::new(),
        env: env_out,
        port,
        health,
        scratch,
        stop,
        stats: dep.stats.clone(),
        reset: None,
        cpus: dep.affinity.clone(),
        limits,
        vars: BTreeMap::new(),
        run_as: None,
        log_cap_bytes: crate::plan::contract::gates::log_cap(&loaded.spec),
    };
    match dep.kind {
        Some(DependencyKind::Postgres) => {
            let pg = dep.postgres.clone().unwrap_or_default();
            let schema: Vec<std::path::PathBuf> = pg
                .schema
                .iter()
                .map(|f| absolute(&loaded.base_dir.join(f)))
                .collect();
            let refs: Vec<&std::path::Path> = schema.iter().map(|p| p.as_path()).collect();
            // SAFETY: geteuid has no preconditions and cannot fail.
            let as_root = unsafe { libc::geteuid() } == 0;
            let recipe = crate::plan::keys::postgres::recipe(&pg, port, &refs, as_root);
            DependencyPlan {
                kind: DependencyKindPlan::Postgres,
                setup: recipe.setup,
                start: recipe.start,
                seed: recipe.seed,
                health: crate::plan::HealthPlan {
                    check: HealthCheck::Command(recipe.health),
                    ..base.health
                },
                reset: Some(ResetPlan {
                    command: recipe.reset,
                    when,
                }),
                vars: recipe.vars,
                run_as: recipe.run_as,
                ..base
            }
        }
        None => {
            let start = dep
                .start
                .as_deref()
                .map(|s| r.one(&at("start"), s, &vars))
                .unwrap_or_default();
            let reset = dep.reset.as_ref().and_then(|spec| {
                let command = spec.command.as_deref()?;
                Some(ResetPlan {
                    command: r.one(&at("reset.command"), command, &vars),
                    when,
                })
            });
            let mut vars_out = BTreeMap::new();
            vars_out.insert("host".to_owned(), "127.0.0.1".to_owned());
            vars_out.insert("port".to_owned(), port.to_string());
            DependencyPlan {
                start,
                reset,
                vars: vars_out,
                ..base
            }
        }
    }
}
