//! The walk's dependency policy through the scripted [`Fake`]: a dependency
//! starts before the first start of a runtime that needs it, is reset when
//! the slot changes (between repeats only with `when: repeat`), stops after
//! the last cell that needs it (after that cell's service), and one that
//! fails to start or dies skips exactly the runtimes that need it.
use std::path::Path;
use std::sync::mpsc::channel;

use crate::exec::interrupt::Interrupt;
use crate::exec::tests::fake::Fake;
use crate::exec::walk::run::{RunOutcome, RunRequest, run};
use crate::plan::{Plan, PlanOptions};
use crate::results::{
    CellStatus, ConfigurationStatus, MEASUREMENTS_FILE, MeasurementRow, RunDir, read_csv,
};

/// Runtimes `a` (needs `db`) and `b` (needs nothing), sequential, a start
/// per repeat, two repeats; `db`'s reset as `reset` says.
fn plan_in(dir: &Path, reset: &str) -> (Plan, String) {
    let text = format!(
        "experiment: {{ name: fake }}\n\
         dependencies:\n  db: {{ start: ./db, reset: {reset} }}\n\
         runtimes:\n  a: {{ dir: ., start: ./a, needs: [db] }}\n  b: {{ dir: ., start: ./b, needs: [] }}\n\
         workload: {{ path: /x }}\n\
         repeats: 2\n\
         order: sequential\n\
         warmup: {{ service: 0s, cell: 0s }}\n\
         load: {{ connections: 2 }}\n\
         measure: {{ duration: 1s }}\n\
         startup: {{ repeats: 0 }}\n\
         results: ./results\n"
    );
    let loaded = crate::spec::from_text(text.clone(), &dir.join("fake.yaml"))
        .unwrap_or_else(|e| panic!("test spec: {e}"));
    let plan = crate::plan::build(&loaded, &PlanOptions::default())
        .unwrap_or_else(|e| panic!("test plan: {e}"));
    (plan, text)
}

fn exec(plan: &Plan, text: &str, fake: &mut Fake) -> RunOutcome {
    let (tx, _rx) = channel();
    let request = RunRequest {
        plan,
        spec_text: text,
        resume: None,
        force: false,
        labels: &Default::default(),
    };
    run(&request, fake, || Ok(Interrupt::default()), tx).unwrap()
}

/// The calls that touch a service or a dependency, in order.
fn lifecycle_calls(fake: &Fake) -> Vec<&str> {
    fake.calls
        .iter()
        .map(String::as_str)
        .filter(|c| c.starts_with("dep-") || c.starts_with("start ") || c.starts_with("stop "))
        .collect()
}

#[test]
fn started_before_its_runtime_reset_between_repeats_stopped_after_its_last_cell() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path(), "{ command: ./reset, when: repeat }");
    let mut fake = Fake::default();
    exec(&plan, &text, &mut fake);
    assert_eq!(
        lifecycle_calls(&fake),
        [
            "dep-start db",
            "start a #1",
            "stop a #1",
            "dep-reset db",
            "start a #2",
            "stop a #2",
            "dep-stop db",
            "start b #1",
            "stop b #1",
            "start b #2",
            "stop b #2",
        ]
    );
}

#[test]
fn without_when_repeat_it_is_not_reset_between_the_repeats_of_one_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path(), "{ command: ./reset }");
    let mut fake = Fake::default();
    exec(&plan, &text, &mut fake);
    assert!(fake.calls_of("dep-reset").is_empty(), "{:?}", fake.calls);
    assert_eq!(fake.calls_of("dep-start"), ["dep-start db"]);
    assert_eq!(fake.calls_of("dep-stop"), ["dep-stop db"]);
}

#[test]
fn a_dependency_that_fails_to_start_skips_only_the_runtimes_that_need_it() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path(), "{ command: ./reset }");
    let mut fake = Fake {
        failing_dependencies: ["db".to_owned()].into(),
        ..Fake::default()
    };
    let outcome = exec(&plan, &text, &mut fake);
    assert!(fake.calls_of("start a").is_empty(), "{:?}", fake.calls);
    let reason = &outcome.skipped["a"];
    assert!(
        reason.starts_with("dependency `db` failed to start, so the runtimes that need it (a) are skipped: dependency `db`: not ready (scripted); fix it, then continue with: runner exec <spec> --resume "),
        "{reason}"
    );
    assert!(!outcome.skipped.contains_key("b"));
    assert_eq!(fake.calls_of("start b").len(), 2);
    assert_eq!(outcome.exit_code(), 1);
}

#[test]
fn a_dependency_that_dies_during_a_cell_fails_that_cell_and_skips_its_runtimes() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path(), "{ command: ./reset }");
    // Found dead at its first check: the one after the first cell.
    let mut fake = Fake {
        dying_dependencies: [("db".to_owned(), 0)].into(),
        ..Fake::default()
    };
    let outcome = exec(&plan, &text, &mut fake);
    let rows: Vec<MeasurementRow> = read_csv(
        &RunDir::open(&outcome.run_dir)
            .unwrap()
            .file(MEASUREMENTS_FILE),
    )
    .unwrap()
    .unwrap();
    let a: Vec<&MeasurementRow> = rows.iter().filter(|r| r.runtime == "a").collect();
    assert_eq!(a.len(), 1, "{rows:?}");
    assert_eq!(a[0].status, CellStatus::Failed);
    assert_eq!(
        a[0].reason,
        "dependency `db` died during the cell: dependency `db`: died (scripted)"
    );
    assert!(outcome.skipped["a"].contains("dependency `db` stopped working"));
    assert_eq!(rows.iter().filter(|r| r.runtime == "b").count(), 2);
    assert_eq!(fake.calls_of("dep-stop"), ["dep-stop db"]);
    let conf: Vec<crate::results::ConfigurationRow> = read_csv(
        &RunDir::open(&outcome.run_dir)
            .unwrap()
            .file(crate::results::CONFIGURATIONS_FILE),
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        conf.iter().find(|c| c.runtime == "a").unwrap().status,
        ConfigurationStatus::Skipped
    );
}
