//! A runtime's `limits` rendered for one cell: `cpus: "{{ cpus }}"` with an
//! axis `cpus: [1, 2]` gives each cell its own limits. Cells whose limits
//! differ never share a service start ([`crate::plan::steps::restart`]): a runtime sizes
//! itself for the limit it starts under (Go's GOMAXPROCS, the JVM's
//! processor count and heap), so applying a new limit to a live service
//! would measure a service sized for another one.
use minijinja::Environment;

use crate::cgroup::Limits;
use crate::cgroup::size::{SIZE_HELP, parse_bytes};
use crate::plan::Collector;
use crate::plan::templating::render::Renderer;
use crate::plan::templating::template::{Hints, Vars};
use crate::spec::LoadedSpec;
use crate::spec::values::NumberOrTemplate;

/// The limits of runtime `name` for a cell with `vars`; problems (a value
/// that is not a positive number or a size) go to `problems` against
/// `runtimes.<name>.limits.<field>`.
pub fn cell_limits<'s>(
    loaded: &'s LoadedSpec,
    env: &Environment<'s>,
    name: &str,
    vars: &Vars,
    hints: &Hints,
    problems: &mut Collector,
) -> Limits {
    let Some(spec) = loaded.runtimes.get(name).and_then(|rt| rt.limits.as_ref()) else {
        return Limits::default();
    };
    let mut r = Renderer {
        loaded,
        env,
        hints,
        problems,
    };
    let at = |field: &str| format!("runtimes.{name}.limits.{field}");
    let mut text = |field: &str, value: &'s NumberOrTemplate| match value {
        NumberOrTemplate::Number(n) => Some(n.to_string()),
        NumberOrTemplate::Template(t) => {
            let out = r.one(&at(field), t, vars);
            (!out.is_empty()).then_some(out)
        }
    };
    let cpus_text = spec.cpus.as_ref().and_then(|v| text("cpus", v));
    let memory_text = spec.memory.as_ref().and_then(|v| text("memory", v));
    let cpus = cpus_text.and_then(|t| match t.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.01 => Some(n),
        _ => {
            problems.add(
                loaded,
                &at("cpus"),
                format!("`limits.cpus` is `{t}`, not a number of CPUs of 0.01 or more"),
                "write the CPU bandwidth in cores, e.g. `cpus: 1.5`, or a template naming an axis of such numbers",
            );
            None
        }
    });
    let memory_bytes = memory_text.and_then(|t| match parse_bytes(&t) {
        Some(b) if b >= 1 << 20 => Some(b),
        _ => {
            problems.add(
                loaded,
                &at("memory"),
                format!("`limits.memory` is `{t}`, not a memory size of 1MiB or more"),
                SIZE_HELP,
            );
            None
        }
    });
    Limits { cpus, memory_bytes }
}
