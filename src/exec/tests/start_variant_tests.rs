//! The orchestration with per-cell start fields, through the scripted
//! fake: a runtime whose env uses an axis is started once per resolved
//! start (even under `restart: run`), handed the cell's own start fields,
//! and the plan's skipped cells end up in status.json and its message.
use std::sync::mpsc::channel;

use crate::exec::interrupt::Interrupt;
use crate::exec::tests::fake::Fake;
use crate::exec::walk::run::{RunRequest, run};
use crate::plan::PlanOptions;
use crate::results::RunDir;

#[test]
fn each_resolved_start_gets_its_own_start_with_the_cells_env() {
    let dir = tempfile::tempdir().unwrap();
    let text = "experiment: { name: fake }
runtimes:
  a: { dir: ., start: \"./a --log {{ log }}\", env: { LOG_REQUESTS: \"{{ log }}\" } }
  j: { dir: ., java: { version: \"17\", min: 99 }, start: \"{{ java }} -jar j.jar\" }
workload: { path: /x }
axes: { log: [\"true\", \"false\"], concurrency: [1, 2] }
lifecycle: { restart: run }
warmup: { service: 0s, cell: 0s }
measure: { duration: 1s }
startup: { repeats: 0 }
results: ./results
";
    let loaded = crate::spec::from_text(text.to_owned(), &dir.path().join("fake.yaml")).unwrap();
    let plan = crate::plan::build(&loaded, &PlanOptions::default()).unwrap();
    let mut fake = Fake::default();
    let (tx, _rx) = channel();
    let request = RunRequest {
        plan: &plan,
        spec_text: text,
        resume: None,
        force: false,
        labels: &Default::default(),
    };
    let outcome = run(&request, &mut fake, || Ok(Interrupt::default()), tx).unwrap();
    assert_eq!(
        fake.calls_of("start"),
        ["start a #1", "start a #2"],
        "{:?}",
        fake.calls
    );
    assert_eq!(fake.calls_of("measure").len(), 4);
    let (start, env) = &fake.started_as[1];
    assert_eq!(start, "./a --log false");
    assert_eq!(env["LOG_REQUESTS"], "false");

    let status = RunDir::open(&outcome.run_dir)
        .unwrap()
        .read_status()
        .unwrap();
    if plan.runtimes[1]
        .java
        .as_ref()
        .is_some_and(|j| j.home.is_some())
    {
        // A JDK 17 is installed: its cells are below min 99, skipped by the plan.
        assert_eq!(status.skipped_cells.len(), 4, "{status:?}");
        assert!(
            status.skipped_cells[0]
                .reason
                .starts_with("j needs JDK 99 or newer")
        );
        let message = status.message.unwrap_or_default();
        assert!(
            message.contains("4 cell(s) skipped by the plan"),
            "{message}"
        );
    }
}
