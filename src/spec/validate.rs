//! Checks that need more than one field's type: names, axes, modes,
//! cross-references. Templates are checked by the plan stage, which renders
//! every one of them for every cell.
use std::collections::HashSet;

use indexmap::IndexMap;

use crate::spec::error::suggestion;
use crate::spec::model::{HealthSpec, LoadModeSpec, LoadSpec, RequestSpec, RuntimeSpec, Spec};
use crate::spec::values::AxisValue;

/// A problem found by a check: a field path, what is wrong, what to do.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub field: String,
    pub message: String,
    pub help: String,
}

fn finding(
    field: impl Into<String>,
    message: impl Into<String>,
    help: impl Into<String>,
) -> Finding {
    Finding {
        field: field.into(),
        message: message.into(),
        help: help.into(),
    }
}

/// HTTP methods a workload or verify request may use.
pub const METHODS: &[&str] = &["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"];

/// Template variable names an axis may not take.
pub const RESERVED_NAMES: &[&str] = &[
    "runtime",
    "host",
    "port",
    "java",
    "jvm_flags",
    "work_dir",
    "repeat",
    "deps",
    "scratch",
];

/// Stop signals accepted, with their numbers.
pub const SIGNALS: &[(&str, i32)] = &[
    ("TERM", libc::SIGTERM),
    ("INT", libc::SIGINT),
    ("HUP", libc::SIGHUP),
    ("QUIT", libc::SIGQUIT),
    ("KILL", libc::SIGKILL),
];

/// Why `name` cannot be used as a file name, if it cannot.
pub fn unsafe_name(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("is empty".into());
    }
    if name.contains('/') || name.contains('\\') {
        return Some("contains a path separator".into());
    }
    if name.contains("..") {
        return Some("contains `..`".into());
    }
    if name.starts_with('.') || name.starts_with('-') {
        return Some("starts with `.` or `-`".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Some(format!("contains `{c}`"));
    }
    None
}

/// Every check on the spec; `runtimes` are the runtimes after `extends`.
pub fn check(spec: &Spec, runtimes: &IndexMap<String, RuntimeSpec>) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(why) = unsafe_name(&spec.experiment.name) {
        out.push(finding(
            "experiment.name",
            format!("experiment name `{}` {why}", spec.experiment.name),
            "use letters, digits, `-`, `_` and `.` only: the name becomes a folder under the results dir",
        ));
    }
    if spec.runtimes.is_empty() {
        out.push(finding(
            "runtimes",
            "no runtimes are defined",
            "add at least one runtime under `runtimes:`",
        ));
    }
    check_env("env", spec.env.keys(), &mut out);
    for (name, runtime) in runtimes {
        check_runtime(name, runtime, spec, &mut out);
    }
    out.extend(crate::spec::keys::dependencies::check_dependencies(
        &spec.dependencies,
        runtimes,
    ));
    check_controls(spec, runtimes, &mut out);
    check_axes(spec, &mut out);
    match &spec.workload {
        Some(w) => check_workload_at("workload", &w.0, &mut out),
        None if spec.scenarios.is_empty() => out.push(finding(
            "workload",
            // The message serde gave when `workload` was required.
            "missing key `workload`",
            "add `workload:` to the top level (see docs/spec.md)",
        )),
        None => {}
    }
    // With scenarios, each scenario's merged load is checked instead
    // (`spec::scenarios::check_scenarios`).
    if spec.scenarios.is_empty() {
        out.extend(check_load_of(&spec.load, spec));
    }
    check_rules(spec, &mut out);
    if let Some(gates) = &spec.gates {
        crate::spec::keys::gates::check_gates(gates, &mut out);
    }
    if let Some(memory) = &spec.memory {
        crate::spec::keys::memory::check_memory(memory, &mut out);
    }
    if let Some(hosts) = &spec.hosts {
        crate::spec::keys::hosts::check_hosts(hosts, &mut out);
    }
    if let Some((message, help)) = spec.repeats.problem() {
        out.push(finding("repeats", message, help));
    }
    let decided = |r: &crate::spec::keys::adaptive::RepeatsSpec| r.until_decided();
    let any_decided = decided(&spec.repeats)
        || spec
            .runtimes
            .values()
            .any(|rt| rt.repeats.is_some_and(|r| decided(&r)));
    if any_decided && spec.order == crate::spec::model::OrderSpec::Sequential {
        out.push(finding(
            "order",
            "`repeats: { until: decided }` needs rounds, and `order: sequential` runs every repeat of a runtime before the next runtime",
            "remove `order: sequential` (interleaved is the default), or use `target_ci` or a fixed count",
        ));
    }
    if let Some((message, help)) = crate::spec::keys::adaptive::warmup_problem(&spec.warmup) {
        out.push(finding("warmup.max", message, help));
    }
    match (&spec.measure.duration, spec.measure.requests) {
        (Some(_), Some(_)) => out.push(finding(
            "measure",
            "measure has both `duration` and `requests`",
            "keep one: a measurement ends after a duration or after a number of requests",
        )),
        (None, None) => out.push(finding(
            "measure",
            "measure has neither `duration` nor `requests`",
            "add `duration: 5s` (or `requests: 10000`)",
        )),
        (Some(d), None) if d.0.is_zero() => out.push(finding(
            "measure.duration",
            "measure duration is zero",
            "measure for a while, e.g. `5s`",
        )),
        (None, Some(0)) => out.push(finding(
            "measure.requests",
            "measure requests is 0",
            "measure at least one request",
        )),
        _ => {}
    }
    crate::spec::keys::verify::check_verify(&spec.verify, &mut out);
    if let Some(a) = spec.affinity.as_ref().and_then(|a| a.cpus())
        && (a.service.is_empty() || a.load.is_empty())
    {
        out.push(finding(
            "affinity",
            "affinity needs CPUs for both `service` and `load`",
            "e.g. `affinity: {service: [1], load: [0]}`, or remove it",
        ));
    }
    if let Some(s) = &spec.sample
        && let Some(interval) = s.interval
        && interval.0.as_millis() < 10
    {
        out.push(finding(
            "sample.interval",
            "sample interval is under 10ms",
            "sampling that often disturbs the service: use 100ms or more",
        ));
    }
    out
}

/// `controls:` names runtimes, never a runtime as its own control or a
/// control that is itself judged against another, and needs the
/// interleaved order (what moves the host must move both); a `source.git`
/// revision is one word git reads as a revision, never as an option.
fn check_controls(spec: &Spec, runtimes: &IndexMap<String, RuntimeSpec>, out: &mut Vec<Finding>) {
    let names: Vec<&str> = runtimes.keys().map(String::as_str).collect();
    for (candidate, control) in &spec.controls {
        let at = format!("controls.{candidate}");
        for name in [candidate, control] {
            if !runtimes.contains_key(name) {
                out.push(finding(
                    at.clone(),
                    format!("`controls` names `{name}`, which is not a runtime"),
                    suggestion(name, &names, "runtimes"),
                ));
            }
        }
        if candidate == control {
            out.push(finding(
                at.clone(),
                format!("runtime `{candidate}` is named as its own control"),
                "name the runtime it is judged against, e.g. one built from an earlier revision with `source: { git: v1.4.0 }`",
            ));
        } else if spec.controls.contains_key(control) {
            out.push(finding(
                at.clone(),
                format!("the control `{control}` is itself judged against a control"),
                "judge each candidate against a runtime that is only a control",
            ));
        }
    }
    if !spec.controls.is_empty() && spec.order == crate::spec::model::OrderSpec::Sequential {
        out.push(finding(
            "order",
            "`controls` needs the interleaved order: `order: sequential` measures the candidate and its control at different times, so what moves the host between them reads as a change",
            "remove `order: sequential` (interleaved is the default)",
        ));
    }
    for (name, rt) in runtimes {
        let Some(source) = &rt.source else { continue };
        let rev = source.git.as_str();
        if rev.is_empty() || rev.starts_with('-') || rev.contains(char::is_whitespace) {
            out.push(finding(
                format!("runtimes.{name}.source.git"),
                format!("`{rev}` is not a git revision"),
                "give a tag, a branch, a commit id or e.g. `HEAD~1`: one word, not starting with `-`",
            ));
        }
    }
}

/// A C-style identifier: a letter or `_`, then letters, digits and `_`.
/// What a shell and `execve` accept as an environment variable name, and what
/// a minijinja template can name as a variable (axes).
fn is_identifier(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn check_env<'a>(
    prefix: &str,
    names: impl IntoIterator<Item = &'a String>,
    out: &mut Vec<Finding>,
) {
    for name in names {
        if !is_identifier(name) {
            out.push(finding(
                format!("{prefix}.{name}"),
                format!("`{name}` is not a valid environment variable name"),
                "use letters, digits and `_`, not starting with a digit",
            ));
        }
    }
}

/// HTTP header names are tokens (RFC 9110): no spaces, colons or quotes.
pub(crate) fn valid_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

pub(super) fn bad_method(field: &str, method: &str) -> Finding {
    let upper = method.to_ascii_uppercase();
    let help = if METHODS.contains(&upper.as_str()) {
        format!("write it in upper case: `{upper}`")
    } else {
        suggestion(method, METHODS, "valid methods")
    };
    finding(field, format!("invalid HTTP method `{method}`"), help)
}

fn check_runtime(name: &str, rt: &RuntimeSpec, spec: &Spec, out: &mut Vec<Finding>) {
    let at = |field: &str| format!("runtimes.{name}.{field}");
    if let Some(why) =
        unsafe_name(name).or_else(|| name.contains('=').then(|| "contains `=`".to_owned()))
    {
        out.push(finding(
            format!("runtimes.{name}"),
            format!("runtime name `{name}` {why}"),
            "use letters, digits, `-`, `_` and `.` only: the name is part of cell ids and file names",
        ));
    }
    check_env(&at("env"), rt.env.iter().flat_map(|e| e.keys()), out);
    for (i, name) in rt.pass_env.iter().flatten().enumerate() {
        if !is_identifier(name) {
            out.push(finding(
                at(&format!("pass_env.{i}")),
                format!("`{name}` is not a valid environment variable name"),
                "name a variable of the caller's environment: letters, digits and `_`, not starting with a digit",
            ));
        }
    }
    check_env(
        &at("train.env"),
        rt.train
            .iter()
            .flat_map(|t| t.env.iter().flat_map(|e| e.keys())),
        out,
    );
    if let Some((message, help)) = rt.repeats.and_then(|r| r.problem()) {
        out.push(finding(at("repeats"), message, help));
    }
    if rt.start.is_none() {
        out.push(finding(
            format!("runtimes.{name}"),
            format!("runtime `{name}` has no `start` command"),
            "add `start: <command that runs the service in the foreground>`, or `extends:` a runtime that has one",
        ));
    }
    if let Some(java) = &rt.java {
        match (&java.version, &java.home) {
            (None, None) | (Some(_), Some(_)) => out.push(finding(
                at("java"),
                "java needs exactly one of `version` or `home`",
                "e.g. `java: { version: \"25\" }` or `java: { home: /usr/lib/jvm/temurin-25-jdk-amd64 }`",
            )),
            (Some(v), None)
                if !v.contains("{{") && (v.is_empty() || !v.chars().all(|c| c.is_ascii_digit())) =>
            {
                out.push(finding(
                    at("java.version"),
                    format!("java version `{v}` is not a major version number"),
                    "write the feature release only, e.g. \"25\" or \"21\", or a template naming an axis, e.g. \"{{ jdk }}\"",
                ))
            }
            _ => {}
        }
        if let Some(b) = &java.build
            && (b.is_empty() || !b.chars().all(|c| c.is_ascii_digit()))
        {
            out.push(finding(
                at("java.build"),
                format!("java build version `{b}` is not a major version number"),
                "write the feature release the build runs with, e.g. \"25\"",
            ));
        }
    }
    if let Some(signal) = rt.stop.as_ref().and_then(|s| s.signal.as_ref())
        && signal_number(signal).is_none()
    {
        let names: Vec<&str> = SIGNALS.iter().map(|(n, _)| *n).collect();
        out.push(finding(
            at("stop.signal"),
            format!("unknown stop signal `{signal}`"),
            suggestion(signal, &names, "valid signals"),
        ));
    }
    if let Some(health) = &rt.health {
        check_health(health, &at, out);
    }
    for (file, template) in rt.files.iter().flatten() {
        check_file(file, template, &at, out);
    }
    if let Some(train) = &rt.train {
        for (i, wanted) in train.workload.iter().flatten().enumerate() {
            let names: Vec<&str> = crate::spec::keys::scenarios::base_workload(spec)
                .iter()
                .map(request_name)
                .collect();
            if !names.contains(&wanted.as_str()) {
                out.push(finding(
                    at(&format!("train.workload.{i}")),
                    format!("training workload `{wanted}` is not a workload request"),
                    suggestion(wanted, &names, "workload requests"),
                ));
            }
        }
        if train.connections == Some(0) {
            out.push(finding(
                at("train.connections"),
                "training connections is 0",
                "use at least 1",
            ));
        }
    }
}

/// The signal number for `TERM`, `SIGTERM`, ...
/// A `health:` (a runtime's or a dependency's): at most one check, each
/// one usable; `at` turns a key into its field path.
pub fn check_health(h: &HealthSpec, at: &dyn Fn(&str) -> String, out: &mut Vec<Finding>) {
    let given = [h.path.is_some(), h.tcp.is_some(), h.command.is_some()];
    if given.iter().filter(|g| **g).count() > 1 {
        out.push(finding(
            at("health"),
            "health names more than one check: `path`, `tcp` and `command` exclude each other",
            "keep one, e.g. `health: { path: /health }`, `health: { tcp: true }` or \
             `health: { command: \"pg_isready ...\" }`",
        ));
    }
    if h.tcp == Some(false) {
        out.push(finding(
            at("health.tcp"),
            "`tcp: false` checks nothing",
            "write `tcp: true`, or use `path` or `command`",
        ));
    }
    if let Some(path) = h.path.as_ref().filter(|p| !p.starts_with('/')) {
        out.push(finding(
            at("health.path"),
            format!("health path `{path}` does not start with `/`"),
            "e.g. `/health`",
        ));
    }
    if h.command.as_ref().is_some_and(|c| c.trim().is_empty()) {
        out.push(finding(
            at("health.command"),
            "the health command is empty",
            "e.g. `command: \"curl -sf http://127.0.0.1:$PORT/\"`, or use `path` or `tcp`",
        ));
    }
}

/// One entry of `files:`: a plain file name (it lands in the start's
/// scratch folder) and a template path relative to `dir`.
pub fn check_file(name: &str, template: &str, at: &dyn Fn(&str) -> String, out: &mut Vec<Finding>) {
    if let Some(why) = unsafe_name(name) {
        out.push(finding(
            at(&format!("files.{name}")),
            format!("file name `{name}` {why}"),
            "name the file itself, e.g. `nginx.conf`: it is written into the start's scratch folder",
        ));
    }
    if template.trim().is_empty() {
        out.push(finding(
            at(&format!("files.{name}")),
            format!("file `{name}` names no template"),
            "give the template's path relative to the runtime's `dir`, e.g. `conf/nginx.conf.j2`",
        ));
    }
}

pub fn signal_number(name: &str) -> Option<i32> {
    let bare = name.strip_prefix("SIG").unwrap_or(name);
    SIGNALS.iter().find(|(n, _)| *n == bare).map(|(_, v)| *v)
}

/// The name a workload request goes by (`request` when unnamed).
pub fn request_name(r: &RequestSpec) -> &str {
    r.name.as_deref().unwrap_or("request")
}

fn check_axes(spec: &Spec, out: &mut Vec<Finding>) {
    for (axis, values) in &spec.axes {
        if !is_identifier(axis) {
            out.push(finding(
                format!("axes.{axis}"),
                format!("axis name `{axis}` is not usable in templates"),
                "use letters, digits and `_`, starting with a letter",
            ));
        } else if RESERVED_NAMES.contains(&axis.as_str()) {
            out.push(finding(
                format!("axes.{axis}"),
                format!("axis name `{axis}` is reserved"),
                format!(
                    "rename it: {} are template variables",
                    RESERVED_NAMES.join(", ")
                ),
            ));
        }
        if values.is_empty() {
            out.push(finding(
                format!("axes.{axis}"),
                format!("axis `{axis}` is empty"),
                "list at least one value, or remove the axis",
            ));
        }
        let mut seen = HashSet::new();
        for (i, value) in values.iter().enumerate() {
            let field = format!("axes.{axis}.{i}");
            if !seen.insert(value.to_string()) {
                out.push(finding(
                    &field,
                    format!("axis `{axis}` lists `{value}` twice"),
                    "remove the repeated value",
                ));
            }
            match (axis.as_str(), value) {
                ("payload", AxisValue::Int(n)) if *n < 0 => out.push(finding(
                    field,
                    format!("payload `{n}` is negative"),
                    "payload is a size in bytes: 0 or more",
                )),
                ("payload", AxisValue::Float(_) | AxisValue::Text(_)) => out.push(finding(
                    field,
                    format!("payload `{value}` is not a whole number"),
                    "payload is a size in bytes: write whole numbers such as 128",
                )),
                ("concurrency", AxisValue::Int(n)) if *n < 1 => out.push(finding(
                    field,
                    format!("concurrency `{n}` is not positive"),
                    "concurrency is a number of connections: 1 or more",
                )),
                ("concurrency", AxisValue::Float(_) | AxisValue::Text(_)) => out.push(finding(
                    field,
                    format!("concurrency `{value}` is not a whole number"),
                    "concurrency is a number of connections: write whole numbers such as 12",
                )),
                _ => {}
            }
        }
    }
}

/// Checks the requests of the workload written at `base` (`workload`, or
/// a scenario's `scenarios.<name>.workload`).
pub(super) fn check_workload_at(base: &str, requests: &[RequestSpec], out: &mut Vec<Finding>) {
    let prefix = |i: usize| {
        if requests.len() == 1 {
            base.to_owned()
        } else {
            format!("{base}.{i}")
        }
    };
    if requests.is_empty() {
        out.push(finding(
            base,
            "the workload has no requests",
            "add a request: `workload: { method: GET, path: / }`",
        ));
    }
    let mut names = HashSet::new();
    for (i, r) in requests.iter().enumerate() {
        if !METHODS.contains(&r.method.as_str()) {
            out.push(bad_method(&format!("{}.method", prefix(i)), &r.method));
        }
        for name in r.headers.keys() {
            if !valid_header_name(name) {
                out.push(finding(
                    format!("{}.headers.{name}", prefix(i)),
                    format!("`{name}` is not a valid HTTP header name"),
                    "use letters, digits and `-` (e.g. `content-type`)",
                ));
            }
        }
        if !(100..=599).contains(&r.expect.status) {
            out.push(finding(
                format!("{}.expect.status", prefix(i)),
                format!("status {} is not an HTTP status", r.expect.status),
                "use a status from 100 to 599",
            ));
        }
        crate::spec::keys::expect::check_expect(
            &format!("{}.expect", prefix(i)),
            &r.expect,
            &r.method,
            out,
        );
        if let Some(w) = r.weight
            && !(w.is_finite() && w > 0.0)
        {
            out.push(finding(
                format!("{}.weight", prefix(i)),
                format!("weight {w} is not a positive number"),
                "give a positive share, e.g. `weight: 60` beside `weight: 20` (only ratios count)",
            ));
        }
        if requests.len() > 1 && r.name.is_none() {
            out.push(finding(
                prefix(i),
                "a request of a multi-request workload has no `name`",
                "name every request: the names appear in results and `train.workload`",
            ));
        } else if !names.insert(request_name(r)) {
            out.push(finding(
                format!("{}.name", prefix(i)),
                format!("request name `{}` is used twice", request_name(r)),
                "give every request its own name",
            ));
        }
    }
}

/// Checks `load` (the spec's, or a scenario's merged one); the fields
/// found are named from `load`.
pub(super) fn check_load_of(load: &LoadSpec, spec: &Spec) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(crate::spec::keys::search::check_search(load));
    match load.mode {
        LoadModeSpec::Open if load.rate.is_none() => out.push(finding(
            "load.rate",
            "open mode needs a `rate`",
            "add `rate: 5000` (requests per second) or `rate: \"{{ rate }}\"` with a `rate` axis",
        )),
        LoadModeSpec::Closed if load.rate.is_some() => out.push(finding(
            "load.rate",
            "`rate` is only used in open mode",
            "remove `rate`, or set `mode: open`",
        )),
        LoadModeSpec::Closed if load.connections.is_none() && !spec.axes.contains_key("concurrency") => out.push(finding(
            "load",
            "closed mode needs a number of connections: there is no `concurrency` axis and no `load.connections`",
            "add a `concurrency` axis (e.g. `concurrency: [1, 12]`) or `load.connections: 8`",
        )),
        _ => {}
    }
    if load.ramp.is_some() && load.mode != LoadModeSpec::Closed {
        out.push(finding(
            "load.ramp",
            "`ramp` (the connections joining one by one) is only used in closed mode",
            "remove `ramp`, or set `mode: closed`",
        ));
    }
    if load.threads == Some(0) {
        out.push(finding(
            "load.threads",
            "load threads is 0",
            "use at least 1 thread",
        ));
    }
    if load.timeout.is_some_and(|t| t.0.is_zero()) {
        out.push(finding(
            "load.timeout",
            "request timeout is zero",
            "e.g. `timeout: 10s`",
        ));
    }
    out
}

fn check_rules(spec: &Spec, out: &mut Vec<Finding>) {
    for (kind, rules) in [("include", &spec.include), ("exclude", &spec.exclude)] {
        for (i, rule) in rules.iter().enumerate() {
            if rule.is_empty() {
                out.push(finding(
                    format!("{kind}.{i}"),
                    format!("{kind} rule {i} is empty"),
                    "name a runtime and/or axis values, e.g. `{runtime: go-stdlib, payload: 8192}`",
                ));
            }
            for (key, value) in rule {
                let field = format!("{kind}.{i}.{key}");
                if key == "runtime" {
                    if !spec.runtimes.contains_key(&value.to_string()) {
                        let names: Vec<&str> = spec.runtimes.keys().map(String::as_str).collect();
                        out.push(finding(
                            field,
                            format!("{kind} rule names unknown runtime `{value}`"),
                            suggestion(&value.to_string(), &names, "runtimes"),
                        ));
                    }
                } else if let Some(values) = spec.axes.get(key) {
                    if !values.iter().any(|v| v.to_string() == value.to_string()) {
                        let list: Vec<String> = values.iter().map(ToString::to_string).collect();
                        out.push(finding(
                            field,
                            format!("{kind} rule value `{value}` is not a value of axis `{key}`"),
                            format!("the axis has: {}", list.join(", ")),
                        ));
                    }
                } else {
                    let mut keys: Vec<&str> = vec!["runtime"];
                    keys.extend(spec.axes.keys().map(String::as_str));
                    out.push(finding(
                        field,
                        format!("{kind} rule key `{key}` is neither `runtime` nor an axis"),
                        suggestion(key, &keys, "valid keys"),
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_identifier;

    fn spec(load: &str) -> Result<crate::spec::LoadedSpec, crate::spec::SpecErrors> {
        let yaml = format!(
            "experiment: {{ name: t }}\nruntimes: {{ a: {{ start: ./a }} }}\n\
             workload: {{ path: / }}\nload: {load}\nmeasure: {{ requests: 100 }}\n"
        );
        crate::spec::from_text(yaml, std::path::Path::new("t.yaml"))
    }

    #[test]
    fn the_connection_ramp_is_for_closed_mode_only() {
        let closed = spec("{ connections: 100, ramp: 10s }").unwrap_or_else(|e| panic!("{e}"));
        assert!(closed.spec.load.ramp.is_some());
        let open = spec("{ mode: open, rate: 100, connections: 4, ramp: 10s }").unwrap_err();
        let text = open.to_string();
        assert!(
            text.contains("load.ramp") && text.contains("closed mode"),
            "{text}"
        );
    }

    #[test]
    fn identifiers_start_with_a_letter_or_underscore() {
        for ok in ["rate", "_x", "GOMAXPROCS", "a1_b2"] {
            assert!(is_identifier(ok), "{ok}");
        }
        for bad in ["", "1x", "a-b", "a.b", "a b", "é"] {
            assert!(!is_identifier(bad), "{bad}");
        }
    }
}
