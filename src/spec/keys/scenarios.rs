//! `scenarios:`: named workloads, each with the `load` keys and the
//! dependencies of its own, selected per cell by the `scenario` axis they
//! add. A study of several scenarios (an order API at a constant rate, a
//! CRUD mix on a database, a fan-out at saturation) is one spec: every
//! runtime runs every scenario, and the report puts each scenario's table
//! of runtimes side by side (docs/spec.md, "Scenarios").
//!
//! ```yaml
//! load: { timeout: 5s, connections: 64 }
//! scenarios:
//!   orders: { workload: { method: POST, path: /api/orders/calculate, body: "..." },
//!             load: { mode: open, rate: 2000 }, needs: [] }
//!   crud:   { workload: [ ... ], load: { mode: open, rate: 1000 }, needs: [db] }
//! ```
//!
//! A scenario's load is the spec's `load` with the scenario's keys written
//! over it key by key: the merge is done on the YAML tree, so every key of
//! `load` (today's and tomorrow's) can be set per scenario without this
//! module naming it.
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::spec::error::suggestion;
use crate::spec::model::{LoadSpec, RequestSpec, Spec};
use crate::spec::tree::{Key, Kind, Node, Pos};
use crate::spec::validate::{Finding, unsafe_name};
use crate::spec::values::{AxisValue, Workload};

/// The axis `scenarios:` adds: its values are the scenarios' names, in
/// spec order; include/exclude rules, `--only` and templates name it so.
pub const SCENARIO_AXIS: &str = "scenario";

/// One scenario.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with description, workload, load, needs"
)]
pub struct ScenarioSpec {
    /// What the scenario measures, shown above its table in the report.
    #[serde(default)]
    pub description: String,
    /// Its request, or list of requests (default: the spec's `workload`).
    pub workload: Option<Workload>,
    /// The `load` keys this scenario sets (`mode`, `rate`, `connections`,
    /// `slo`, `from`, `to`, `step`, ...), written over the spec's `load`.
    pub load: Option<LoadSpec>,
    /// The dependencies its cells use (default: all its runtime needs). A
    /// runtime's `needs` still bounds them: a cell uses the dependencies
    /// both name. `[]`: none is started for these cells.
    pub needs: Option<Vec<String>>,
}

/// Adds the `scenario` axis, first, when the spec has scenarios; a
/// finding when an axis of that name is already declared.
pub fn add_axis(spec: &mut Spec) -> Option<Finding> {
    if spec.scenarios.is_empty() {
        return None;
    }
    if spec.axes.contains_key(SCENARIO_AXIS) {
        return Some(Finding {
            field: format!("axes.{SCENARIO_AXIS}"),
            message: format!(
                "the axis `{SCENARIO_AXIS}` clashes with `scenarios:`, which adds an axis of that name"
            ),
            help: "rename the axis, or declare each of its values as a scenario".into(),
        });
    }
    let values = spec
        .scenarios
        .keys()
        .map(|n| AxisValue::Text(n.clone()))
        .collect();
    spec.axes.shift_insert(0, SCENARIO_AXIS.to_owned(), values);
    None
}

/// Each scenario's effective load: the spec's `load` map with the
/// scenario's `load` entries written over it, read as a [`LoadSpec`]. Both
/// maps were already read on their own (so their errors are reported
/// there); a merge that cannot be read falls back to the spec's `load`.
pub fn merged_loads(tree: &Node, spec: &Spec) -> IndexMap<String, LoadSpec> {
    let base = entries(tree.get("load").map(|(_, n)| n));
    let scenarios = tree.get("scenarios").map(|(_, n)| n);
    spec.scenarios
        .keys()
        .map(|name| {
            let own = scenarios
                .and_then(|s| s.get(name))
                .and_then(|(_, s)| s.get("load"))
                .map(|(_, n)| n);
            let mut merged: Vec<(Key, Node)> = base
                .iter()
                .filter(|(k, _)| entries(own).iter().all(|(o, _)| o.text != k.text))
                .cloned()
                .collect();
            merged.extend(entries(own));
            let node = Node {
                pos: own.map_or(Pos::default(), |n| n.pos),
                kind: Kind::Map(merged),
            };
            let load = crate::spec::de::read_all::<LoadSpec>(&node)
                .0
                .unwrap_or_else(|| spec.load.clone());
            (name.clone(), load)
        })
        .collect()
}

fn entries(node: Option<&Node>) -> Vec<(Key, Node)> {
    match node.map(|n| &n.kind) {
        Some(Kind::Map(entries)) => entries.clone(),
        _ => Vec::new(),
    }
}

/// The scenario a point of the axes belongs to (`None`: the spec has none).
pub fn scenario_of(point: &[(String, AxisValue)]) -> Option<&str> {
    point.iter().find_map(|(k, v)| match v {
        AxisValue::Text(t) if k == SCENARIO_AXIS => Some(t.as_str()),
        _ => None,
    })
}

/// The requests of `scenario`'s cells: its own workload, else the spec's.
pub fn workload_of<'s>(spec: &'s Spec, scenario: Option<&str>) -> &'s [RequestSpec] {
    scenario
        .and_then(|s| spec.scenarios.get(s))
        .and_then(|s| s.workload.as_ref())
        .or(spec.workload.as_ref())
        .map_or(&[], |w| w.0.as_slice())
}

/// The workload outside any scenario (training, `train.workload`'s names):
/// the spec's `workload`, else the first scenario's.
pub fn base_workload(spec: &Spec) -> &[RequestSpec] {
    match &spec.workload {
        Some(w) => &w.0,
        None => workload_of(spec, spec.scenarios.keys().next().map(String::as_str)),
    }
}

/// The field path of `request` (`workload`, `workload.2`,
/// `scenarios.crud.workload.1`), found by identity among the workloads.
pub fn request_field(spec: &Spec, request: &RequestSpec) -> String {
    let at = |base: String, list: &[RequestSpec]| {
        let i = list.iter().position(|r| std::ptr::eq(r, request))?;
        Some(if list.len() > 1 {
            format!("{base}.{i}")
        } else {
            base
        })
    };
    let top = spec
        .workload
        .as_ref()
        .and_then(|w| at("workload".into(), &w.0));
    top.or_else(|| {
        spec.scenarios.iter().find_map(|(name, s)| {
            at(
                format!("scenarios.{name}.workload"),
                &s.workload.as_ref()?.0,
            )
        })
    })
    .unwrap_or_else(|| "workload".into())
}

/// Checks of `scenarios:` serde cannot make: names, workloads, `needs`, and
/// each scenario's merged load with the checks the spec's `load` gets.
pub fn check_scenarios(spec: &Spec, loads: &IndexMap<String, LoadSpec>) -> Vec<Finding> {
    let mut out = Vec::new();
    let deps: Vec<&str> = spec.dependencies.keys().map(String::as_str).collect();
    for (name, scenario) in &spec.scenarios {
        let at = format!("scenarios.{name}");
        if let Some(why) =
            unsafe_name(name).or_else(|| name.contains('=').then(|| "contains `=`".into()))
        {
            out.push(Finding {
                field: at.clone(),
                message: format!("scenario name `{name}` {why}"),
                help: "use letters, digits, `-`, `_` and `.`: the name is part of cell ids and file names".into(),
            });
        }
        match &scenario.workload {
            Some(w) => crate::spec::validate::check_workload_at(&format!("{at}.workload"), &w.0, &mut out),
            None if spec.workload.is_none() => out.push(Finding {
                field: at.clone(),
                message: format!("scenario `{name}` has no `workload`, and the spec has none to inherit"),
                help: format!("give it one: `{name}: {{ workload: {{ path: / }} }}`, or write a spec-wide `workload`"),
            }),
            None => {}
        }
        for (i, need) in scenario.needs.iter().flatten().enumerate() {
            if !deps.contains(&need.as_str()) {
                out.push(Finding {
                    field: format!("{at}.needs.{i}"),
                    message: format!("scenario `{name}` needs `{need}`, which is not a dependency"),
                    help: suggestion(need, &deps, "dependencies"),
                });
            }
        }
        if let Some(load) = loads.get(name) {
            for f in crate::spec::validate::check_load_of(load, spec) {
                out.push(Finding {
                    field: format!("{at}.{}", f.field),
                    message: format!(
                        "scenario `{name}` (its `load` written over the spec's): {}",
                        f.message
                    ),
                    help: f.help,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::model::LoadModeSpec;
    use crate::spec::values::NumberOrTemplate;

    const HEAD: &str = "experiment: { name: t }\nruntimes: { a: { start: x } }\nmeasure: { duration: 1s }\n\
                        dependencies: { db: { start: y } }\n";

    fn load(text: &str) -> Result<crate::spec::LoadedSpec, String> {
        crate::spec::from_text(
            format!("{HEAD}{text}"),
            std::path::Path::new("/t/spec.yaml"),
        )
        .map_err(|e| e.to_string())
    }

    #[test]
    fn a_scenario_writes_its_load_keys_over_the_specs_and_keeps_the_rest() {
        let loaded = load(
            "load: { mode: closed, connections: 8, timeout: 3s }\n\
             scenarios:\n  a: { workload: { path: /a }, load: { mode: open, rate: 500 } }\n  b: { workload: { path: /b } }\n",
        )
        .unwrap();
        let a = &loaded.scenario_loads["a"];
        assert_eq!(a.mode, LoadModeSpec::Open);
        assert!(matches!(a.rate, Some(NumberOrTemplate::Number(r)) if r == 500.0));
        assert!(matches!(a.connections, Some(NumberOrTemplate::Number(c)) if c == 8.0));
        assert_eq!(a.timeout.unwrap().0, std::time::Duration::from_secs(3));
        let b = &loaded.scenario_loads["b"];
        assert_eq!(b.mode, LoadModeSpec::Closed);
        assert!(b.rate.is_none());
    }

    #[test]
    fn scenarios_become_the_first_axis() {
        let loaded = load(
            "axes: { concurrency: [1, 2] }\nload: { mode: closed }\n\
             scenarios: { x: { workload: { path: /x } }, y: { workload: { path: /y } } }\n",
        )
        .unwrap();
        let axes: Vec<&str> = loaded.spec.axes.keys().map(String::as_str).collect();
        assert_eq!(axes, [SCENARIO_AXIS, "concurrency"]);
        assert_eq!(loaded.spec.axes[SCENARIO_AXIS].len(), 2);
    }

    #[test]
    fn each_problem_names_the_scenario_and_its_field() {
        let e = load(
            "axes: { scenario: [p] }\nload: { connections: 1 }\n\
             scenarios:\n  bad=name: { workload: { path: /x } }\n  open: { workload: { path: /x }, load: { mode: open } }\n  \
             none: { needs: [dbb] }\n",
        )
        .unwrap_err();
        for wanted in [
            "the axis `scenario` clashes with `scenarios:`",
            "scenario name `bad=name` contains `=`",
            "scenario `open` (its `load` written over the spec's): open mode needs a `rate`",
            "scenario `none` has no `workload`",
            "scenario `none` needs `dbb`, which is not a dependency",
            "did you mean `db`",
        ] {
            assert!(e.contains(wanted), "{wanted}\n{e}");
        }
    }

    #[test]
    fn a_request_field_names_its_scenario() {
        let loaded = load(
            "load: { connections: 1 }\nworkload: { path: /top }\n\
             scenarios: { s: { workload: [{ name: r1, path: /1 }, { name: r2, path: /2 }] }, t: {} }\n",
        )
        .unwrap();
        let spec = &loaded.spec;
        let s = workload_of(spec, Some("s"));
        assert_eq!(request_field(spec, &s[1]), "scenarios.s.workload.1");
        let t = workload_of(spec, Some("t"));
        assert_eq!(t[0].path, "/top");
        assert_eq!(request_field(spec, &t[0]), "workload");
        assert_eq!(base_workload(spec)[0].path, "/top");
    }
}
