//! The `equal_load` cells through the scripted [`Fake`]: their rates are
//! derived from the closed-loop pass of every runtime, recorded in
//! derived-rates.json, and a resumed run keeps them.
use std::path::Path;
use std::sync::mpsc::channel;

use crate::exec::interrupt::Interrupt;
use crate::exec::tests::fake::{CellScript, Fake};
use crate::exec::walk::run::{RunOutcome, RunRequest, run};
use crate::plan::{Plan, PlanOptions};
use crate::results::rows::derived_rates::{DERIVED_RATES_FILE, DerivedRates};
use crate::results::{CellStatus, MEASUREMENTS_FILE, MeasurementRow, RunDir, RunState, read_csv};

/// Runtimes `a` and `b`, payloads 1 and 2 at concurrency 2 and 8, one
/// repeat, then equal_load at half and 90% of the slowest peak.
fn plan_in(dir: &Path) -> (Plan, String) {
    let text = "experiment: { name: fake }\n\
         runtimes:\n  a: { dir: ., start: ./a }\n  b: { dir: ., start: ./b }\n\
         workload: { path: /x }\n\
         axes: { payload: [1, 2], concurrency: [2, 8] }\n\
         warmup: { service: 0s, cell: 0s }\n\
         measure: { duration: 1s }\n\
         equal_load: { of_peak: [0.5, 0.9] }\n\
         results: ./results\n"
        .to_string();
    let loaded = crate::spec::from_text(text.clone(), &dir.join("fake.yaml"))
        .unwrap_or_else(|e| panic!("test spec: {e}"));
    let plan = crate::plan::build(&loaded, &PlanOptions::default())
        .unwrap_or_else(|e| panic!("test plan: {e}"));
    (plan, text)
}

fn exec(plan: &Plan, text: &str, fake: &mut Fake, resume: Option<&Path>) -> RunOutcome {
    let (tx, _rx) = channel();
    let request = RunRequest {
        plan,
        spec_text: text,
        resume,
        force: false,
        labels: &Default::default(),
    };
    run(&request, fake, || Ok(Interrupt::default()), tx).unwrap()
}

fn fake(a: f64, b: f64) -> Fake {
    let mut fake = Fake::default();
    fake.rps.insert("a".into(), a);
    fake.rps.insert("b".into(), b);
    fake
}

fn open_measures(fake: &Fake) -> Vec<&str> {
    fake.calls
        .iter()
        .filter(|c| c.contains("of_peak"))
        .map(String::as_str)
        .collect()
}

#[test]
fn equal_load_cells_run_last_at_fractions_of_the_slowest_peak() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path());
    let mut fake = fake(1000.0, 400.0);
    let outcome = exec(&plan, &text, &mut fake, None);
    assert_eq!(outcome.state, RunState::Complete);
    let measures = fake.calls_of("measure");
    assert_eq!(measures.len(), 8 + 8);
    assert!(
        measures[..8].iter().all(|m| !m.contains("of_peak")),
        "every closed-loop cell first: {measures:?}"
    );
    // b is the slowest (400 req/s): 200 and 360 req/s for both runtimes.
    assert_eq!(
        open_measures(&fake),
        [
            "measure a/payload=1/of_peak=0.5/r1 @200",
            "measure a/payload=1/of_peak=0.9/r1 @360",
            "measure a/payload=2/of_peak=0.5/r1 @200",
            "measure a/payload=2/of_peak=0.9/r1 @360",
            "measure b/payload=1/of_peak=0.5/r1 @200",
            "measure b/payload=1/of_peak=0.9/r1 @360",
            "measure b/payload=2/of_peak=0.5/r1 @200",
            "measure b/payload=2/of_peak=0.9/r1 @360",
        ]
    );
    let run = RunDir::open(&outcome.run_dir).unwrap();
    let rates: DerivedRates = run.read_json(DERIVED_RATES_FILE).unwrap();
    let g = rates.group("payload=1").unwrap();
    assert_eq!((g.slowest.as_str(), g.base_rps), ("b", 400.0));
    assert_eq!(g.peaks.len(), 2, "the closed-loop peaks are kept beside");
    let rows: Vec<MeasurementRow> = read_csv(&run.file(MEASUREMENTS_FILE)).unwrap().unwrap();
    let open = rows
        .iter()
        .find(|r| r.cell_id == "b/payload=2/of_peak=0.9/r1")
        .unwrap();
    assert_eq!(
        open.target_rps,
        Some(360.0),
        "the row records the rate offered"
    );
}

#[test]
fn a_resumed_run_keeps_the_rates_it_derived() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path());
    let mut first = fake(1000.0, 400.0);
    first
        .cells
        .insert("b/payload=1/of_peak=0.5/r1".into(), CellScript::Interrupted);
    let outcome = exec(&plan, &text, &mut first, None);
    assert_eq!(outcome.state, RunState::Interrupted);
    // The services are faster now; the rates stay those the run derived.
    let mut again = fake(5000.0, 5000.0);
    let resumed = exec(&plan, &text, &mut again, Some(&outcome.run_dir));
    assert_eq!(resumed.state, RunState::Complete);
    assert_eq!(
        open_measures(&again),
        [
            "measure b/payload=1/of_peak=0.5/r1 @200",
            "measure b/payload=1/of_peak=0.9/r1 @360",
            "measure b/payload=2/of_peak=0.5/r1 @200",
            "measure b/payload=2/of_peak=0.9/r1 @360",
        ]
    );
}

#[test]
fn a_group_without_a_closed_loop_peak_fails_its_equal_load_cells_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path());
    let mut fake = fake(1000.0, 400.0);
    for rt in ["a", "b"] {
        for c in [2, 8] {
            fake.cells.insert(
                format!("{rt}/payload=2/concurrency={c}/r1"),
                CellScript::Dies,
            );
        }
    }
    let mut plan = plan;
    plan.max_restarts = 10;
    let outcome = exec(&plan, &text, &mut fake, None);
    let rows: Vec<MeasurementRow> = read_csv(
        &RunDir::open(&outcome.run_dir)
            .unwrap()
            .file(MEASUREMENTS_FILE),
    )
    .unwrap()
    .unwrap();
    let failed = rows
        .iter()
        .find(|r| r.cell_id == "a/payload=2/of_peak=0.5/r1")
        .unwrap();
    assert_eq!(failed.status, CellStatus::Failed);
    assert!(
        failed
            .reason
            .contains("no closed-loop peak was measured for payload=2"),
        "{}",
        failed.reason
    );
    assert!(
        open_measures(&fake).iter().all(|m| m.contains("payload=1")),
        "{:?}",
        open_measures(&fake)
    );
}
