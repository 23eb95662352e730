//! `runner plan` output: a readable table, or JSON for scripts.
use crate::plan::contract::version_plan::VersionPlan;
use std::fmt::Write;

use serde::Serialize;

use crate::plan::analysis::design::{self, Design, Detectability};
use crate::plan::analysis::estimate::human;
use crate::plan::{CellWarmup, Estimate, LoadMode, Measure, Order, Plan, RepeatPolicy, Restart};

/// The JSON shape of `runner plan --format json`: the plan plus its
/// estimate, and what it can detect when a previous run says.
#[derive(Serialize)]
pub struct PlanJson<'a> {
    #[serde(flatten)]
    pub plan: &'a Plan,
    pub estimate: Estimate,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub design: Option<&'a Design>,
}

/// The plan as JSON (pretty).
pub fn json(plan: &Plan, detectability: &Detectability) -> String {
    serde_json::to_string_pretty(&crate::results::versioned(&PlanJson {
        plan,
        estimate: plan.estimate(),
        design: detectability.design(),
    }))
    .unwrap_or_default()
}

/// The plan as text: runtimes, cells, count, estimate, what it can detect.
pub fn table(plan: &Plan, detectability: &Detectability) -> String {
    let mut out = String::new();
    write_header(&mut out, plan);
    write_runtimes(&mut out, plan);
    write_cells(&mut out, plan);
    write_estimate(&mut out, plan);
    out.push_str(&design::text(detectability));
    out
}

/// The experiment, its spec and results, the smoke options, pinning and
/// dependencies.
fn write_header(out: &mut String, plan: &Plan) {
    let _ = writeln!(
        out,
        "experiment {}  ({})",
        plan.experiment.name,
        plan.spec_path.display()
    );
    if !plan.experiment.title.is_empty() {
        let _ = writeln!(out, "  {}", plan.experiment.title);
    }
    let _ = writeln!(out, "  spec sha256 {}", plan.spec_hash);
    let _ = writeln!(out, "  results in {}", plan.results_dir.display());
    for c in &plan.controls {
        let _ = writeln!(
            out,
            "  control: {} is judged against {}, measured in the same run",
            c.candidate, c.control
        );
    }
    if let Some(factor) = plan.quick_factor {
        let _ = writeln!(out, "  quick: every duration divided by {factor}");
    }
    if let Some(cap) = plan.repeats_cap {
        let _ = writeln!(out, "  repeats: at most {cap} (--repeats)");
    }
    match &plan.affinity {
        Some(a) => {
            let _ = writeln!(
                out,
                "  pinning: {}",
                crate::plan::keys::pinning::describe(a)
            );
        }
        None => {
            let _ = writeln!(
                out,
                "  pinning: none (service and load generator share every CPU)"
            );
        }
    }
    crate::plan::present::show_dependencies::write_dependencies(plan, out);
}

/// Every runtime as it will be built, started, trained and checked.
fn write_runtimes(out: &mut String, plan: &Plan) {
    let _ = writeln!(out, "\nruntimes ({}):", plan.runtimes.len());
    for rt in &plan.runtimes {
        let _ = writeln!(out, "  {}", rt.name);
        let _ = writeln!(out, "    dir     {}", rt.dir.display());
        if let Some(source) = &rt.source {
            let _ = writeln!(
                out,
                "    source  git {} = {} ({}), exported from {}",
                source.git,
                source.commit.describe,
                source.commit.subject,
                source.repository.display()
            );
        }
        for b in &rt.build {
            let _ = writeln!(out, "    build   {b}");
        }
        let _ = writeln!(out, "    start   {}", rt.start);
        let _ = writeln!(out, "    port    {}", rt.port);
        let _ = writeln!(out, "    restart {}", restart_words(rt.restart));
        match rt.repeats {
            RepeatPolicy::Adaptive {
                min,
                max,
                target_ci,
            } => {
                let _ = writeln!(
                    out,
                    "    repeats {min} to {max} per configuration, until the 95% interval of its throughput is within +-{:.1}%",
                    target_ci * 100.0
                );
            }
            RepeatPolicy::Decided { min, max } => {
                let _ = writeln!(
                    out,
                    "    repeats {min} to {max} per configuration, round after round while this runtime's findings are open"
                );
            }
            RepeatPolicy::Fixed { .. } => {}
        }
        if !plan.dependencies.is_empty() {
            let _ = writeln!(out, "    needs   {}", rt.needs.join(", "));
        }
        if !crate::plan::contract::protocol_plan::only_http1(&rt.protocols) {
            let names: Vec<&str> = rt.protocols.iter().map(|p| p.key()).collect();
            let _ = writeln!(
                out,
                "    offers  {} (TLS starts get the run's certificate in their scratch folder)",
                names.join(", ")
            );
        }
        // Secret-looking values masked (`command_env::shown`); the caller's
        // documented variables (docs/spec.md) are passed beside these.
        let env: Vec<String> = (rt.env.iter())
            .map(|(k, v)| crate::plan::keys::command_env::shown(k, v))
            .collect();
        let _ = writeln!(out, "    env     {}", env.join(" "));
        if !rt.pass_env.is_empty() {
            let _ = writeln!(
                out,
                "    passes  {} from the caller's environment, beside the documented few",
                rt.pass_env.join(" ")
            );
        }
        if let Some(scratch) = &rt.scratch {
            let files: Vec<String> = scratch
                .files
                .iter()
                .map(|f| format!("{} ({} bytes)", f.name, f.content.len()))
                .chain(
                    scratch
                        .tls
                        .then(|| "the run's TLS certificate, key and CA".to_owned()),
                )
                .collect();
            let _ = writeln!(
                out,
                "    files   {} {} into {} before each start",
                if files.is_empty() {
                    "none".to_owned()
                } else {
                    files.join(", ")
                },
                if scratch.files.is_empty() && scratch.tls {
                    "written"
                } else {
                    "rendered"
                },
                scratch.path.display()
            );
        }
        if let Some(java) = &rt.java {
            write_java(out, java);
        }
        if let Some(note) = crate::plan::present::show_variants::runtime_note(plan, rt) {
            let _ = writeln!(out, "{note}");
        }
        if let Some(t) = &rt.train {
            write_training(out, t);
        }
        let _ = writeln!(
            out,
            "    health  {} (timeout {}), stop SIG{} (grace {})",
            rt.health.check.words(),
            human(rt.health.timeout),
            rt.stop.signal_name,
            human(rt.stop.grace)
        );
        if !rt.tools.is_empty() {
            let _ = writeln!(out, "    tools   {}", rt.tools.join(" "));
        }
        let subject = format!("runtime {}", rt.name);
        if let Some(version) = VersionPlan::of(&plan.versions, &subject) {
            let _ = writeln!(out, "    version {version} (recorded before the builds)");
        }
    }
}

/// Every cell in run order with its load, warmup and measure, and the
/// cells the plan skips.
fn write_cells(out: &mut String, plan: &Plan) {
    let order = match plan.order {
        Order::Sequential => "sequential",
        Order::Interleaved => "interleaved",
        Order::Alternating => "interleaved, every other round in reverse runtime order",
    };
    let _ = writeln!(
        out,
        "\ncells ({}, {order}, {} repeats):",
        plan.cells.len(),
        plan.repeats
    );
    let width = plan.cells.iter().map(|c| c.id.len()).max().unwrap_or(0);
    let fresh = crate::plan::present::show_variants::fresh_starts(plan);
    for (i, cell) in plan.cells.iter().enumerate() {
        let load = match (&cell.load.mode, &cell.derived_rate) {
            (LoadMode::Closed { connections }, _) if !cell.load.ramp.is_zero() => format!(
                "closed {connections} conn (ramp 1 -> {connections} over {})",
                human(cell.load.ramp)
            ),
            (LoadMode::Closed { connections }, _) => format!("closed {connections} conn"),
            (LoadMode::Open { connections, .. }, Some(derived)) => format!(
                "open {:.0}% of the slowest closed-loop peak (derived at run time) over {connections} conn",
                derived.of_peak * 100.0
            ),
            (LoadMode::Open { rate, connections }, None) => {
                format!("open {rate} req/s over {connections} conn")
            }
            (LoadMode::Search(s), _) => format!(
                "search {}..{} req/s over {} conn ({} steps at most, {} each)",
                s.from,
                s.to,
                s.connections,
                s.max_steps,
                human(s.step_warmup + s.step_window)
            ),
        };
        let load = match cell.load.transport.is_plain() {
            true => load,
            false => format!("{load}, {}", cell.load.transport.words()),
        };
        let measure = match cell.measure {
            Measure::Duration(d) => human(d),
            Measure::Requests(n) => format!("{n} requests"),
        };
        let optional = if cell.repeat > plan.repeats_of(&cell.runtime).min() {
            " (if needed)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  {:>4}  {:<width$}  {load}, warmup {}, measure {measure}{optional}",
            i + 1,
            cell.id,
            warmup_words(cell.warmup)
        );
        if let Some(line) = crate::plan::present::show_variants::start_line(plan, i, fresh[i]) {
            let _ = writeln!(out, "{line}");
        }
    }
    crate::plan::present::show_variants::write_skipped(plan, out);
}

/// The estimated wall time, with what it counts and what it does not.
fn write_estimate(out: &mut String, plan: &Plan) {
    let e = plan.estimate();
    match &e.least {
        None => {
            let _ = writeln!(out, "\n{} cells", plan.cells.len());
            let _ = writeln!(out, "estimated wall time: {}", human(e.total));
        }
        Some(least) => {
            let decided =
                (plan.runtimes.iter()).any(|rt| matches!(rt.repeats, RepeatPolicy::Decided { .. }));
            let why = if decided {
                "until decided: a runtime stops when its findings are settled"
            } else {
                "adaptive: each configuration stops when its interval is narrow enough"
            };
            let _ = writeln!(
                out,
                "\n{} to {} cells ({why})",
                least.cells,
                plan.cells.len()
            );
            let _ = writeln!(
                out,
                "estimated wall time: {} to {}",
                human(least.total),
                human(e.total)
            );
            let _ = writeln!(
                out,
                "  at least: {}, every configuration at its min repeats, every auto warmup at its shortest",
                plural(least.service_starts, "service start"),
            );
            let _ = writeln!(out, "  at most:");
        }
    }
    let _ = writeln!(
        out,
        "  = {} x {} (warmup {} + {} start/stop allowance) + {} of cell warmups and measurements",
        plural(e.service_starts, "service start"),
        human(e.per_start),
        human(plan.service_warmup),
        human(crate::plan::analysis::estimate::START_ALLOWANCE),
        human(e.cells_time)
    );
    if e.cold_starts > 0 {
        let _ = writeln!(
            out,
            "  + {} x {} (startup.repeats)",
            plural(e.cold_starts, "cold start"),
            human(crate::plan::analysis::estimate::START_ALLOWANCE)
        );
    }
    if e.memory_processes > 0 {
        let _ = writeln!(
            out,
            "  + {} x {} (memory phases, one fresh process each: start allowance + settle + load)",
            plural(e.memory_processes, "memory start"),
            human(e.per_memory_process)
        );
    }
    if e.cells_by_requests > 0 {
        let _ = writeln!(
            out,
            "  not counted: {} measured by request count",
            plural(e.cells_by_requests, "cell")
        );
    }
    let training: Vec<String> = e
        .training
        .iter()
        .map(|(n, d)| format!("{n} trains for {}", human(*d)))
        .collect();
    let mut uncounted = Vec::new();
    if e.builds > 0 {
        uncounted.push(format!("builds ({})", plural(e.builds, "runtime")));
    }
    if !training.is_empty() {
        uncounted.push(format!("training ({})", training.join(", ")));
    }
    if !uncounted.is_empty() {
        let _ = writeln!(out, "  not counted: {}", uncounted.join(", "));
    }
}

/// A runtime's JDK as resolved (or why it will be skipped).
fn write_java(out: &mut String, java: &crate::plan::JavaPlan) {
    match &java.home {
        Some(home) => {
            let version = java.version.as_deref().unwrap_or("?");
            let _ = writeln!(
                out,
                "    java    {} -> {} ({version})",
                java.requested,
                home.display()
            );
        }
        None => {
            let _ = writeln!(
                out,
                "    java    {} -> NOT FOUND: this runtime will be skipped (install the JDK or set JAVA_HOME)",
                java.requested
            );
        }
    }
}

/// A runtime's training run: its start, length, load, env, after and products.
fn write_training(out: &mut String, t: &crate::plan::TrainPlan) {
    let _ = writeln!(
        out,
        "    train   {} for {} ({} requests, {} connections)",
        t.start,
        human(t.duration),
        t.requests.len(),
        t.connections
    );
    for (k, v) in &t.env {
        let _ = writeln!(out, "      env   {k}={v}");
    }
    for a in &t.after {
        let _ = writeln!(out, "      after {a}");
    }
    for p in &t.produces {
        let _ = writeln!(out, "      makes {}", p.display());
    }
}

/// A cell's warmup in words: `3s`, `auto (5 x 1s windows, max 30s)`.
fn warmup_words(warmup: CellWarmup) -> String {
    match warmup {
        CellWarmup::Fixed { duration } => human(duration),
        CellWarmup::Auto(a) => format!(
            "auto ({} x {} windows, max {})",
            a.windows,
            human(a.window),
            human(a.max)
        ),
        CellWarmup::Requests { count } => format!("{count} requests"),
    }
}

/// A runtime's `lifecycle.restart`, and what it means for its starts.
fn restart_words(restart: Restart) -> &'static str {
    match restart {
        Restart::Run => "run: one service start for its consecutive cells",
        Restart::Repeat => "repeat: a fresh service start for every repeat",
        Restart::Cell => "cell: a fresh service start for every cell",
    }
}

/// `1 service start`, `3 service starts`.
fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
