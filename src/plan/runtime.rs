//! One runtime of the spec -> a [`RuntimePlan`]: templates rendered,
//! defaults applied, JDK found, port chosen, tools listed.
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use minijinja::{Environment, Value};

use super::template::{self, Hints, Vars};
use super::{Collector, tools};
use crate::plan::{HealthPlan, JavaPlan, RequestPlan, RuntimePlan, StopPlan, TrainPlan};
use crate::spec::model::RuntimeSpec;
use crate::spec::validate::signal_number;
use crate::spec::{LoadedSpec, absolute};

/// Defaults of the runtime settings (documented in docs/spec.md).
pub const DEFAULT_HEALTH_PATH: &str = "/health";
pub const DEFAULT_HEALTH_TIMEOUT: Duration = Duration::from_secs(60);
pub const DEFAULT_HEALTH_INTERVAL: Duration = Duration::from_millis(100);
pub const DEFAULT_STOP_GRACE: Duration = Duration::from_secs(10);
pub const DEFAULT_TRAIN_CONNECTIONS: u32 = 4;
pub const DEFAULT_TRAIN_DURATION: Duration = Duration::from_secs(30);

/// What a runtime's templates are rendered with; cells add the axes to it.
pub struct RuntimeContext {
    pub vars: Vars,
    pub hints: Hints,
}

/// Everything the runtime stage needs from outside the spec.
pub struct Host<'a> {
    pub cpus: usize,
    pub java_home: Option<&'a Path>,
    pub jvm_root: &'a Path,
}

/// Plans runtime `name`. `port` was chosen by the caller (fixed or free).
/// Template problems go to `problems`; the returned plan is then partial.
pub fn plan_runtime<'s>(
    loaded: &'s LoadedSpec,
    name: &str,
    rt: &'s RuntimeSpec,
    port: u16,
    host: &Host,
    env: &Environment<'s>,
    problems: &mut Collector,
) -> (RuntimePlan, RuntimeContext) {
    let at = |field: &str| format!("runtimes.{name}.{field}");
    let dir = absolute(&loaded.base_dir.join(rt.dir.as_deref().unwrap_or(".")));
    let java: Option<JavaPlan> = rt
        .java
        .as_ref()
        .map(|j| super::java::resolve(j, &loaded.base_dir, host.java_home, host.jvm_root));
    let java_bin = java.as_ref().map(|j| match &j.home {
        Some(home) => home.join("bin/java").display().to_string(),
        None => format!(
            "<jdk-{}-not-found>",
            j.requested.replace(char::is_whitespace, "_")
        ),
    });

    let mut vars = Vars::default();
    vars.set_map("host", &[("cpus", Value::from(host.cpus))]);
    vars.set_map("runtime", &[("name", Value::from(name))]);
    vars.set("port", port);
    vars.set("work_dir", dir.display().to_string());
    if let Some(bin) = &java_bin {
        vars.set("java", bin.clone());
    }
    let hints = Hints {
        axes: loaded.spec.axes.keys().cloned().collect(),
        has_java: java.is_some(),
    };
    let mut render = |field: String, source: &'s str, vars: &Vars| -> String {
        match template::render(env, source, vars, &hints) {
            Ok(text) => text,
            Err(e) => {
                problems.add(loaded, &field, e.message, e.help);
                String::new()
            }
        }
    };

    let jvm_flags: Vec<String> = rt
        .jvm_flags
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, f)| render(at(&format!("jvm_flags.{i}")), f, &vars))
        .collect();
    vars.set("jvm_flags", jvm_flags.join(" "));

    let build: Vec<String> = rt
        .build
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, c)| render(at(&format!("build.{i}")), c, &vars))
        .collect();
    let start = rt
        .start
        .as_deref()
        .map(|s| render(at("start"), s, &vars))
        .unwrap_or_default();

    let mut env_out: BTreeMap<String, String> = BTreeMap::new();
    for (key, value) in &loaded.spec.env {
        env_out.insert(key.clone(), render(format!("env.{key}"), value, &vars));
    }
    for (key, value) in rt.env.iter().flatten() {
        env_out.insert(key.clone(), render(at(&format!("env.{key}")), value, &vars));
    }
    env_out.insert("PORT".into(), port.to_string());

    let health_spec = rt.health.as_ref();
    let health = HealthPlan {
        path: health_spec
            .and_then(|h| h.path.as_deref())
            .map_or(DEFAULT_HEALTH_PATH.to_owned(), |p| {
                render(at("health.path"), p, &vars)
            }),
        timeout: health_spec
            .and_then(|h| h.timeout)
            .map_or(DEFAULT_HEALTH_TIMEOUT, |d| d.0),
        interval: health_spec
            .and_then(|h| h.interval)
            .map_or(DEFAULT_HEALTH_INTERVAL, |d| d.0),
    };
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

    let train = rt.train.as_ref().map(|t| {
        let train_start = t
            .start
            .as_deref()
            .map_or_else(|| start.clone(), |s| render(at("train.start"), s, &vars));
        let train_env = t
            .env
            .iter()
            .flatten()
            .map(|(k, v)| (k.clone(), render(at(&format!("train.env.{k}")), v, &vars)))
            .collect();
        let after: Vec<String> = t
            .after
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, c)| render(at(&format!("train.after.{i}")), c, &vars))
            .collect();
        let produces = t
            .produces
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, p)| dir.join(render(at(&format!("train.produces.{i}")), p, &vars)))
            .collect();
        TrainPlan {
            start: train_start,
            env: train_env,
            requests: Vec::<RequestPlan>::new(),
            connections: t.connections.unwrap_or(DEFAULT_TRAIN_CONNECTIONS),
            duration: t.duration.map_or(DEFAULT_TRAIN_DURATION, |d| d.0),
            after,
            produces,
            evidence: t.evidence.clone(),
        }
    });

    let mut commands: Vec<&str> = build.iter().map(String::as_str).collect();
    commands.push(&start);
    if let Some(t) = &train {
        commands.push(&t.start);
        commands.extend(t.after.iter().map(String::as_str));
    }
    let unresolved_java = java_bin
        .as_deref()
        .filter(|_| java.as_ref().is_some_and(|j| j.home.is_none()));
    let tools = tools::programs(commands)
        .into_iter()
        .filter(|t| unresolved_java != Some(t.as_str()))
        .collect();

    let tags = rt.tags.clone().unwrap_or_default();
    let artifact = rt
        .artifact
        .as_deref()
        .map(|a| dir.join(render(at("artifact"), a, &vars)));
    let plan = RuntimePlan {
        name: name.to_owned(),
        dir,
        build,
        start,
        env: env_out,
        jvm_flags,
        java,
        port,
        health,
        stop,
        train,
        tags,
        artifact,
        tools,
    };
    (plan, RuntimeContext { vars, hints })
}
