//! `runner plan`'s table of the dependencies: every command the run will
//! execute for each one, its port, readiness, reset and what runtimes see.
use crate::plan::contract::version_plan::VersionPlan;
use std::fmt::Write;

use crate::plan::{DependencyPlan, HealthCheck, Plan};

/// Appends the dependencies section to `out` (nothing without dependencies).
pub fn write_dependencies(plan: &Plan, out: &mut String) {
    if plan.dependencies.is_empty() {
        return;
    }
    let _ = writeln!(out, "\ndependencies ({}):", plan.dependencies.len());
    for dep in &plan.dependencies {
        write_one(plan, dep, out);
    }
}

fn write_one(plan: &Plan, dep: &DependencyPlan, out: &mut String) {
    let users: Vec<&str> = plan
        .runtimes
        .iter()
        .filter(|r| r.needs.contains(&dep.name))
        .map(|r| r.name.as_str())
        .collect();
    let kind = match dep.kind {
        crate::plan::DependencyKindPlan::Command => "started by its `start`",
        crate::plan::DependencyKindPlan::Postgres => "kind postgres: the built-in recipe",
    };
    let _ = writeln!(out, "  {}: {kind}", dep.name);
    let _ = writeln!(out, "    dir     {}", dep.dir.display());
    for b in &dep.build {
        let _ = writeln!(out, "    build   {b}");
    }
    for s in &dep.setup {
        let _ = writeln!(out, "    setup   {s}");
    }
    let _ = writeln!(out, "    start   {}", dep.start);
    let subject = format!("dependency {}", dep.name);
    if let Some(version) = VersionPlan::of(&plan.versions, &subject) {
        let _ = writeln!(out, "    version {version} (recorded before the builds)");
    }
    let _ = writeln!(out, "    port    {}", dep.port);
    let ready = match &dep.health.check {
        HealthCheck::Http(path) => format!("GET {path}"),
        HealthCheck::Tcp => "TCP connect".to_owned(),
        HealthCheck::Command(c) => format!("`{c}` exits 0"),
    };
    let _ = writeln!(
        out,
        "    health  {ready} (timeout {:?}), stop SIG{} (grace {:?})",
        dep.health.timeout, dep.stop.signal_name, dep.stop.grace
    );
    for s in &dep.seed {
        let _ = writeln!(out, "    seed    {s}");
    }
    if let Some(reset) = &dep.reset {
        let when = match reset.when {
            crate::plan::ResetWhen::Runtime => "between runtimes",
            crate::plan::ResetWhen::Repeat => "between runtimes and repeats",
        };
        let _ = writeln!(out, "    reset   {when}: {}", reset.command);
    }
    if let Some(stats) = &dep.stats {
        let _ = writeln!(
            out,
            "    stats   GET {stats} after each window (POST {stats}/reset before)"
        );
    }
    if let Some(user) = &dep.run_as {
        let _ = writeln!(
            out,
            "    user    {user} (the server refuses to run as root)"
        );
    }
    if let Some(cpus) = &dep.cpus {
        let _ = writeln!(out, "    cpus    {cpus:?}");
    }
    let vars: Vec<String> = dep
        .vars
        .iter()
        .map(|(k, v)| format!("deps.{}.{k}={v}", dep.name))
        .collect();
    let _ = writeln!(out, "    gives   {}", vars.join(" "));
    let _ = writeln!(
        out,
        "    needed  by {}",
        if users.is_empty() {
            "no runtime (it is not started)".to_owned()
        } else {
            users.join(", ")
        }
    );
    if !plan.scenarios.is_empty() {
        let scenarios = crate::plan::contract::scenarios::scenarios_using(plan, &dep.name);
        let _ = writeln!(out, "    only in scenarios {}", scenarios.join(", "));
    }
}
