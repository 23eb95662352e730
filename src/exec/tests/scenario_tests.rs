//! `scenarios:` through the walk with the scripted [`Fake`]: the cells run
//! scenario by scenario, a service is started anew when the scenario
//! changes, and a dependency runs only around the cells (and the starts
//! outside cells) whose scenario needs it: the order-API scenario's cold
//! starts, cells and memory phases never start the database.
use std::sync::mpsc::channel;

use crate::exec::interrupt::Interrupt;
use crate::exec::tests::fake::Fake;
use crate::exec::walk::run::{RunRequest, run};
use crate::plan::PlanOptions;

/// Runtimes `a` and `b`, one repeat, one cold start each, memory phases;
/// scenario `json` needs nothing, `crud` the database, `fan` the stub.
const SPEC: &str = "experiment: { name: fake }\n\
    dependencies:\n  db: { start: ./db, reset: { command: ./reset } }\n  stub: { start: ./stub }\n\
    runtimes:\n  a: { dir: ., start: ./a }\n  b: { dir: ., start: ./b }\n\
    scenarios:\n\
    \x20 json: { workload: { path: /json }, load: { mode: open, rate: 100 }, needs: [] }\n\
    \x20 crud: { workload: { path: /crud }, needs: [db] }\n\
    \x20 fan: { workload: { path: /fan }, needs: [stub] }\n\
    warmup: { service: 0s, cell: 0s }\n\
    load: { connections: 2 }\n\
    measure: { duration: 1s }\n\
    startup: { repeats: 1 }\n\
    memory: { repeats: 1, settle: 0s, connections: 2, duration: 1s }\n\
    results: ./results\n";

#[test]
fn dependencies_run_only_around_the_scenarios_that_need_them() {
    let dir = tempfile::tempdir().unwrap();
    let loaded = crate::spec::from_text(SPEC.into(), &dir.path().join("fake.yaml"))
        .unwrap_or_else(|e| panic!("test spec: {e}"));
    let plan = crate::plan::build(&loaded, &PlanOptions::default())
        .unwrap_or_else(|e| panic!("test plan: {e}"));
    let mut fake = Fake::default();
    let (tx, _rx) = channel();
    let request = RunRequest {
        plan: &plan,
        spec_text: SPEC,
        resume: None,
        force: false,
        labels: &Default::default(),
    };
    run(&request, &mut fake, || Ok(Interrupt::default()), tx).unwrap();
    let calls: Vec<&str> = fake
        .calls
        .iter()
        .map(String::as_str)
        .filter(|c| !c.starts_with("build ") && !c.starts_with("dep-check"))
        .collect();
    assert_eq!(
        calls,
        [
            "cold-start a #1",
            "cold-start b #1",
            "start a #1",
            "measure a/scenario=json/r1 @100",
            "stop a #1",
            "start b #1",
            "measure b/scenario=json/r1 @100",
            "stop b #1",
            "dep-start db",
            "start a #2",
            "measure a/scenario=crud/r1",
            "stop a #2",
            "dep-reset db",
            "start b #2",
            "measure b/scenario=crud/r1",
            "stop b #2",
            "dep-stop db",
            "dep-start stub",
            "start a #3",
            "measure a/scenario=fan/r1",
            "stop a #3",
            "start b #3",
            "measure b/scenario=fan/r1",
            "stop b #3",
            "dep-stop stub",
            "memory a #1",
            "memory b #1",
        ],
        "{:#?}",
        fake.calls
    );
}
