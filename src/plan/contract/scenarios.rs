//! The spec's `scenarios:` in the plan: each cell's load from its
//! scenario's merged `load`, the cells laid out scenario by scenario, and
//! the dependencies a cell uses ([`Plan::needs_of`]).
//!
//! Why scenario by scenario: a scenario's dependencies (a database, the
//! downstream stubs) then run only while its cells do, and are stopped
//! before the next scenario's cells start, so an order-API cell never
//! measures beside an idle PostgreSQL; within a scenario the spec's `order`
//! (interleaved repeats by default) still spreads host drift over the
//! runtimes.
use serde::Serialize;

use crate::plan::{Cell, Plan, RuntimePlan};
use crate::spec::LoadedSpec;
use crate::spec::keys::scenarios::scenario_of;
use crate::spec::model::LoadSpec;

/// One scenario, as the plan (and plan.json, for the report) keeps it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScenarioPlan {
    pub name: String,
    /// What it measures (the spec's `description`), shown in the report.
    pub description: String,
    /// The dependencies its cells use (`None`: all their runtime needs).
    pub needs: Option<Vec<String>>,
}

/// The plan's scenarios, in spec order.
pub fn scenario_plans(loaded: &LoadedSpec) -> Vec<ScenarioPlan> {
    loaded
        .spec
        .scenarios
        .iter()
        .map(|(name, s)| ScenarioPlan {
            name: name.clone(),
            description: s.description.clone(),
            needs: s.needs.clone(),
        })
        .collect()
}

/// The load a cell of `scenario` gets, and where its problems are named.
pub fn load_of<'s>(loaded: &'s LoadedSpec, scenario: Option<&str>) -> (&'s LoadSpec, String) {
    match scenario.and_then(|s| loaded.scenario_loads.get_key_value(s)) {
        Some((name, load)) => (load, format!("scenarios.{name}.load")),
        None => (&loaded.spec.load, "load".into()),
    }
}

/// Reorders `cells` (stably) so that every cell of the first scenario comes
/// first, then the second's, ...; the order inside a scenario is kept.
pub fn scenario_by_scenario(loaded: &LoadedSpec, cells: &mut [Cell]) {
    let scenarios = &loaded.spec.scenarios;
    if scenarios.is_empty() {
        return;
    }
    cells.sort_by_key(|c| scenario_of(&c.axes).and_then(|s| scenarios.get_index_of(s)));
}

/// The scenarios whose cells may use the dependency `dep` (those whose
/// `needs` name it, or that leave `needs` out), for `runner plan`.
pub fn scenarios_using<'p>(plan: &'p Plan, dep: &str) -> Vec<&'p str> {
    plan.scenarios
        .iter()
        .filter(|s| s.needs.as_ref().is_none_or(|n| n.iter().any(|d| d == dep)))
        .map(|s| s.name.as_str())
        .collect()
}

impl Plan {
    /// The dependencies `rt` needs for `cell`: the runtime's `needs` that
    /// the cell's scenario also names (all of them without a scenario or
    /// its `needs`). For a start outside any cell (`None`: a cold start, a
    /// training, a memory phase) those of the runtime's first cell, whose
    /// workload it sends; the runtime's own without cells.
    pub fn needs_of<'p>(&'p self, rt: &'p RuntimePlan, cell: Option<&Cell>) -> Vec<&'p str> {
        let cell = cell.or_else(|| self.cells.iter().find(|c| c.runtime == rt.name));
        let scenario = cell
            .and_then(|c| scenario_of(&c.axes))
            .and_then(|s| self.scenarios.iter().find(|p| p.name == s))
            .and_then(|p| p.needs.as_ref());
        rt.needs
            .iter()
            .filter(|n| scenario.is_none_or(|wanted| wanted.contains(n)))
            .map(String::as_str)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::LoadMode;

    fn plan(text: &str) -> crate::plan::Plan {
        let head = "experiment: { name: t }\nmeasure: { duration: 1s }\n\
                    dependencies: { db: { start: y }, stub: { start: z } }\n";
        let loaded = crate::spec::from_text(
            format!("{head}{text}"),
            std::path::Path::new("/t/spec.yaml"),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        crate::plan::build(&loaded, &Default::default()).unwrap_or_else(|e| panic!("{e}"))
    }

    const STUDY: &str = "runtimes: { a: { start: x }, b: { start: x, needs: [stub] } }\n\
        repeats: 2\nload: { connections: 4, timeout: 2s }\n\
        scenarios:\n\
        \x20 json: { workload: { method: POST, path: /json, body: '{}' }, load: { mode: open, rate: 300 }, needs: [] }\n\
        \x20 crud: { workload: [{ name: r, path: /r, weight: 3 }, { name: w, method: PUT, path: /w, weight: 1 }], needs: [db] }\n\
        \x20 fan: { workload: { path: /fan }, load: { connections: 16 } }\n";

    #[test]
    fn each_cell_sends_its_scenarios_requests_under_its_load() {
        let plan = plan(STUDY);
        let json = plan
            .cells
            .iter()
            .find(|c| c.id == "a/scenario=json/r1")
            .unwrap();
        assert_eq!(json.requests[0].path, "/json");
        assert!(matches!(json.load.mode, LoadMode::Open { rate, connections: 4 } if rate == 300.0));
        let crud = plan
            .cells
            .iter()
            .find(|c| c.id == "b/scenario=crud/r2")
            .unwrap();
        assert_eq!(crud.requests.len(), 2);
        assert!(matches!(
            crud.load.mode,
            LoadMode::Closed { connections: 4 }
        ));
        assert_eq!(crud.load.timeout, std::time::Duration::from_secs(2));
        let fan = plan
            .cells
            .iter()
            .find(|c| c.id == "a/scenario=fan/r1")
            .unwrap();
        assert!(matches!(
            fan.load.mode,
            LoadMode::Closed { connections: 16 }
        ));
    }

    #[test]
    fn the_cells_run_scenario_by_scenario_with_repeats_interleaved_inside() {
        let plan = plan(STUDY);
        let ids: Vec<&str> = plan.cells.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "a/scenario=json/r1",
                "b/scenario=json/r1",
                "a/scenario=json/r2",
                "b/scenario=json/r2",
                "a/scenario=crud/r1",
                "b/scenario=crud/r1",
                "a/scenario=crud/r2",
                "b/scenario=crud/r2",
                "a/scenario=fan/r1",
                "b/scenario=fan/r1",
                "a/scenario=fan/r2",
                "b/scenario=fan/r2",
            ]
        );
    }

    #[test]
    fn a_cell_needs_what_its_scenario_and_its_runtime_both_name() {
        let plan = plan(STUDY);
        let (a, b) = (&plan.runtimes[0], &plan.runtimes[1]);
        let cell = |id: &str| plan.cells.iter().find(|c| c.id == id).unwrap();
        assert!(
            plan.needs_of(a, Some(cell("a/scenario=json/r1")))
                .is_empty()
        );
        assert_eq!(plan.needs_of(a, Some(cell("a/scenario=crud/r1"))), ["db"]);
        assert!(
            plan.needs_of(b, Some(cell("b/scenario=crud/r1")))
                .is_empty()
        );
        assert_eq!(
            plan.needs_of(a, Some(cell("a/scenario=fan/r1"))),
            ["db", "stub"]
        );
        assert_eq!(plan.needs_of(b, Some(cell("b/scenario=fan/r1"))), ["stub"]);
        // A cold start sends the first cell's request: the json scenario's.
        assert!(plan.needs_of(a, None).is_empty());
        assert_eq!(super::scenarios_using(&plan, "db"), ["crud", "fan"]);
        assert_eq!(super::scenarios_using(&plan, "stub"), ["fan"]);
    }

    #[test]
    fn without_scenarios_a_cell_needs_its_runtimes_dependencies() {
        let plan = plan(
            "runtimes: { a: { start: x } }\nworkload: { path: / }\nload: { connections: 1 }\n",
        );
        assert!(plan.scenarios.is_empty());
        assert_eq!(
            plan.needs_of(&plan.runtimes[0], Some(&plan.cells[0])),
            ["db", "stub"]
        );
        assert_eq!(plan.needs_of(&plan.runtimes[0], None), ["db", "stub"]);
    }
}
