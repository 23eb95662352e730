//! `runner plan`'s view of per-cell start fields: at every cell that gets
//! a fresh service start of a runtime whose start varies per cell, the
//! values it resolved (JDK, JVM flags, the env values that differ between
//! its cells); the cells below it share that start. And the cells the plan
//! skips, with why.
use std::collections::BTreeSet;
use std::fmt::Write;

use crate::plan::contract::start_variant::StartVariant;
use crate::plan::steps::restart::{Slot, needs_fresh_start};
use crate::plan::{Cell, Plan};

/// For each cell of `plan`, whether it starts its service anew (the rule
/// exec applies, deaths aside).
pub fn fresh_starts(plan: &Plan) -> Vec<bool> {
    let mut up: Option<&Cell> = None;
    plan.cells
        .iter()
        .map(|cell| {
            let policy = plan
                .runtimes
                .iter()
                .find(|r| r.name == cell.runtime)
                .map_or(crate::plan::steps::inputs::DEFAULT_RESTART, |r| r.restart);
            let fresh = needs_fresh_start(policy, up.map(Slot::of), Slot::of(cell));
            up = Some(cell);
            fresh
        })
        .collect()
}

/// The line under cell `index` when it starts a varying runtime anew.
pub fn start_line(plan: &Plan, index: usize, fresh: bool) -> Option<String> {
    let cell = &plan.cells[index];
    let variant = cell.variant.as_ref().filter(|_| fresh)?;
    let mut parts = Vec::new();
    if let Some(java) = &variant.java {
        parts.push(match &java.home {
            Some(home) => format!(
                "java {} ({})",
                java.version.as_deref().unwrap_or("?"),
                home.display()
            ),
            None => format!("java {} NOT FOUND", java.requested),
        });
    }
    if !variant.jvm_flags.is_empty() {
        parts.push(format!("jvm_flags {}", variant.jvm_flags.join(" ")));
    }
    let serves_tls = plan
        .runtimes
        .iter()
        .any(|r| r.name == cell.runtime && r.protocols.iter().any(|p| p.uses_tls()));
    match variant.scratch.as_ref().is_some_and(|s| s.tls) {
        true => parts.push("TLS with the run's certificate".to_owned()),
        false if serves_tls => parts.push("no TLS".to_owned()),
        false => {}
    }
    let varying = varying_env(plan, &cell.runtime);
    let env: Vec<String> = variant
        .env
        .iter()
        // The TLS files are said above; their paths are the same in every start.
        .filter(|(k, _)| varying.contains(k.as_str()) && !k.starts_with("TLS_"))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if !env.is_empty() {
        parts.push(format!("env {}", env.join(" ")));
    }
    Some(format!("          -> fresh start: {}", parts.join(", ")))
}

/// The env keys whose values differ between the cells of `runtime`.
fn varying_env<'p>(plan: &'p Plan, runtime: &str) -> BTreeSet<&'p str> {
    let variants: Vec<&StartVariant> = plan
        .cells
        .iter()
        .filter(|c| c.runtime == runtime)
        .filter_map(|c| c.variant.as_ref())
        .collect();
    let Some(first) = variants.first() else {
        return BTreeSet::new();
    };
    first
        .env
        .iter()
        .filter(|(k, v)| variants.iter().any(|o| o.env.get(*k) != Some(v)))
        .map(|(k, _)| k.as_str())
        .collect()
}

/// The skipped cells, one per line.
pub fn write_skipped(plan: &Plan, out: &mut String) {
    if plan.skipped_cells.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nskipped cells ({}, not run):",
        plan.skipped_cells.len()
    );
    for s in &plan.skipped_cells {
        let _ = writeln!(out, "  {}  {}", s.cell_id, s.reason);
    }
}

/// The note under a runtime whose start fields vary per cell.
pub fn runtime_note(plan: &Plan, runtime: &crate::plan::RuntimePlan) -> Option<String> {
    plan.cells
        .iter()
        .any(|c| c.runtime == runtime.name && c.variant.is_some())
        .then(|| {
            let why = match runtime.protocols.iter().any(|p| p.uses_tls()) {
                true => "its start fields use axes or its cells differ in TLS",
                false => "its start fields use axes",
            };
            format!(
                "    per cell: {why}, so each cell resolves its own start, env, jvm_flags and JDK \
                 (shown at each fresh start below); start and env above are its first cell's, a java above is the one it builds with"
            )
        })
}
