//! The orchestration's policy, driven by an in-memory Plan through the
//! scripted [`Fake`]: order of starts and cells, restarts after a death,
//! `max_restarts`, skips, SIGINT mid-cell and resume. The same behaviour
//! against real processes is covered (more slowly) by tests/exec_cli.rs.
use std::path::Path;
use std::sync::mpsc::channel;

use crate::exec::interrupt::Interrupt;
use crate::exec::tests::fake::{CellScript, Fake};
use crate::exec::walk::run::{RunOutcome, RunRequest, run};
use crate::exec::{Event, ExecError};
use crate::plan::{Plan, PlanOptions};
use crate::results::{
    CONFIGURATIONS_FILE, CellStatus, ConfigurationRow, ConfigurationStatus, LIFECYCLE_FILE,
    LifecycleRow, MEASUREMENTS_FILE, MeasurementRow, RunDir, RunState, read_csv,
};

/// Two runtimes, `a` and `b`, two payloads, two repeats: 8 cells; no cold
/// starts unless `extra` asks for them (a runtime's `startup`).
fn plan_in(dir: &Path, extra: &str) -> (Plan, String) {
    let text = format!(
        "experiment: {{ name: fake }}\n\
         runtimes:\n  a: {{ dir: ., build: [make a], start: ./a }}\n  b: {{ dir: ., build: [make b], start: ./b }}\n\
         workload: {{ path: /x }}\n\
         axes: {{ payload: [1, 2] }}\n\
         repeats: 2\n\
         warmup: {{ service: 0s, cell: 0s }}\n\
         load: {{ connections: 2 }}\n\
         measure: {{ duration: 1s }}\n\
         startup: {{ repeats: 0 }}\n\
         results: ./results\n{extra}"
    );
    let loaded = crate::spec::from_text(text.clone(), &dir.join("fake.yaml"))
        .unwrap_or_else(|e| panic!("test spec: {e}"));
    let plan = crate::plan::build(&loaded, &PlanOptions::default())
        .unwrap_or_else(|e| panic!("test plan: {e}"));
    (plan, text)
}

/// Runs `plan` through `fake`; returns the outcome and the events sent.
fn exec(
    plan: &Plan,
    text: &str,
    fake: &mut Fake,
    resume: Option<&Path>,
) -> (Result<RunOutcome, ExecError>, Vec<Event>) {
    let (tx, rx) = channel();
    let request = RunRequest {
        plan,
        spec_text: text,
        resume,
        force: false,
        labels: &Default::default(),
    };
    let outcome = run(&request, fake, || Ok(Interrupt::default()), tx);
    (outcome, rx.try_iter().collect())
}

fn rows<T: serde::de::DeserializeOwned>(outcome: &RunOutcome, file: &str) -> Vec<T> {
    read_csv(&RunDir::open(&outcome.run_dir).unwrap().file(file))
        .unwrap()
        .unwrap_or_default()
}

fn measured_ids(outcome: &RunOutcome) -> Vec<String> {
    rows::<MeasurementRow>(outcome, MEASUREMENTS_FILE)
        .into_iter()
        .map(|r| r.cell_id)
        .collect()
}

fn configuration(outcome: &RunOutcome, runtime: &str) -> ConfigurationRow {
    rows::<ConfigurationRow>(outcome, CONFIGURATIONS_FILE)
        .into_iter()
        .find(|r| r.runtime == runtime)
        .unwrap_or_else(|| panic!("no configuration row for {runtime}"))
}

fn measures(runtime: &str, ids: &[&str]) -> Vec<String> {
    ids.iter()
        .map(|id| format!("measure {runtime}/{id}"))
        .collect()
}

/// The order and lifecycle of the seed (before interleaving and a start per
/// repeat became the defaults): each runtime as one block on one start.
const ONE_START_PER_RUNTIME: &str = "order: sequential\nlifecycle: { restart: run }\n";

/// A runtime's cells in sequential order: repeat by repeat.
const SEQUENTIAL: [&str; 4] = [
    "payload=1/r1",
    "payload=2/r1",
    "payload=1/r2",
    "payload=2/r2",
];

/// The plan of [`plan_in`] with `startup.repeats` set for every runtime.
fn with_cold_starts(dir: &Path, repeats: u32) -> (Plan, String) {
    let (mut plan, text) = plan_in(dir, ONE_START_PER_RUNTIME);
    for rt in &mut plan.runtimes {
        rt.startup_repeats = repeats;
    }
    (plan, text)
}

#[test]
fn cold_starts_of_every_runtime_come_after_the_builds_and_before_any_cell() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = with_cold_starts(dir.path(), 2);
    let mut fake = Fake::default();
    let (outcome, events) = exec(&plan, &text, &mut fake, None);
    let outcome = outcome.unwrap();
    assert_eq!(
        fake.calls[..7],
        [
            "build a",
            "build b",
            "cold-start a #1",
            "cold-start a #2",
            "cold-start b #1",
            "cold-start b #2",
            "start a #1"
        ]
    );
    let lifecycle: Vec<LifecycleRow> = rows(&outcome, LIFECYCLE_FILE);
    let cold: Vec<(String, u32)> = lifecycle
        .iter()
        .filter(|r| r.phase == crate::results::Phase::Startup)
        .map(|r| (r.runtime.clone(), r.start_index))
        .collect();
    assert_eq!(
        cold,
        [
            ("a".into(), 1),
            ("a".into(), 2),
            ("b".into(), 1),
            ("b".into(), 2)
        ]
    );
    let announced = events
        .iter()
        .filter(|e| matches!(e, Event::ColdStart { of: 2, .. }))
        .count();
    assert_eq!(announced, 4);
}

#[test]
fn a_failed_cold_start_ends_that_runtimes_cold_starts_and_a_resume_does_not_repeat_them() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = with_cold_starts(dir.path(), 3);
    let mut fake = Fake {
        failing_starts: ["a".to_string()].into(),
        ..Default::default()
    };
    let (outcome, _) = exec(&plan, &text, &mut fake, None);
    let outcome = outcome.unwrap();
    assert_eq!(fake.calls_of("cold-start a"), ["cold-start a #1"]);
    assert_eq!(fake.calls_of("cold-start b").len(), 3);

    let mut again = Fake::default();
    let (_, _) = exec(&plan, &text, &mut again, Some(&outcome.run_dir));
    // The resume retries `a`'s cells, without cold starts.
    assert!(!again.calls_of("start a").is_empty(), "{:?}", again.calls);
    assert_eq!(again.calls_of("cold-start"), Vec::<&str>::new());
}

#[test]
fn sequential_order_starts_each_runtime_once_and_measures_every_cell() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path(), ONE_START_PER_RUNTIME);
    let mut fake = Fake::default();
    let (outcome, _) = exec(&plan, &text, &mut fake, None);
    let outcome = outcome.unwrap();

    let mut expected = vec!["build a".to_string(), "build b".into(), "start a #1".into()];
    expected.extend(measures("a", &SEQUENTIAL));
    expected.extend(["stop a #1".to_string(), "start b #1".into()]);
    expected.extend(measures("b", &SEQUENTIAL));
    expected.push("stop b #1".into());
    assert_eq!(fake.calls, expected);
    assert_eq!(outcome.state, RunState::Complete);
    assert_eq!(outcome.exit_code(), 0);
    assert_eq!(measured_ids(&outcome).len(), 8);
    assert_eq!(
        configuration(&outcome, "a").status,
        ConfigurationStatus::Ran
    );
    assert_eq!(
        configuration(&outcome, "b").status,
        ConfigurationStatus::Ran
    );
    assert_eq!(configuration(&outcome, "a").build_seconds, Some(0.5));
    assert_eq!(start_indexes(&outcome), ["a #1", "b #1"]);
    assert_eq!(
        plan.estimate().service_starts,
        2,
        "the estimate counts the same"
    );
}

#[test]
fn interleaved_order_runs_repeat_one_of_every_runtime_before_repeat_two() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path(), "order: interleaved\n");
    let mut fake = Fake::default();
    let (outcome, _) = exec(&plan, &text, &mut fake, None);
    assert_eq!(outcome.unwrap().exit_code(), 0);

    let starts_and_stops: Vec<&str> = fake
        .calls
        .iter()
        .map(String::as_str)
        .filter(|c| c.starts_with("start") || c.starts_with("stop"))
        .collect();
    assert_eq!(
        starts_and_stops,
        [
            "start a #1",
            "stop a #1",
            "start b #1",
            "stop b #1",
            "start a #2",
            "stop a #2",
            "start b #2",
            "stop b #2"
        ]
    );
    let first_a: Vec<&str> = fake.calls_of("measure a/").into_iter().take(2).collect();
    assert_eq!(
        first_a,
        ["measure a/payload=1/r1", "measure a/payload=2/r1"]
    );
}

#[test]
fn a_death_mid_cell_records_it_failed_and_restarts_the_service_for_the_next_cell() {
    let dir = tempfile::tempdir().unwrap();
    // One start per runtime otherwise: the second start of `a` is the death's.
    let extra = format!("{ONE_START_PER_RUNTIME}faults: {{ max_restarts: 1 }}\n");
    let (plan, text) = plan_in(dir.path(), &extra);
    let mut fake = Fake::default();
    fake.cells.insert("a/payload=2/r1".into(), CellScript::Dies);
    let (outcome, _) = exec(&plan, &text, &mut fake, None);
    let outcome = outcome.unwrap();

    let a_calls: Vec<&str> = fake
        .calls
        .iter()
        .map(String::as_str)
        .filter(|c| c.contains(" a"))
        .collect();
    assert_eq!(
        a_calls,
        [
            "build a",
            "start a #1",
            "measure a/payload=1/r1",
            "measure a/payload=2/r1",
            "stop a #1",
            "start a #2",
            "measure a/payload=1/r2",
            "measure a/payload=2/r2",
            "stop a #2"
        ]
    );
    assert_eq!(outcome.cells_failed, 1);
    assert_eq!(outcome.exit_code(), 1, "a failed cell makes the run exit 1");
    let failed: Vec<MeasurementRow> = rows::<MeasurementRow>(&outcome, MEASUREMENTS_FILE)
        .into_iter()
        .filter(|r| r.status == CellStatus::Failed)
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].cell_id, "a/payload=2/r1");
    let starts = rows::<LifecycleRow>(&outcome, LIFECYCLE_FILE)
        .into_iter()
        .filter(|r| r.runtime == "a")
        .count();
    assert_eq!(starts, 2, "one lifecycle row per start of a");
    assert_eq!(
        configuration(&outcome, "a").status,
        ConfigurationStatus::Ran
    );
}

#[test]
fn more_deaths_than_max_restarts_skip_the_runtime_and_the_others_still_run() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path(), "faults: { max_restarts: 1 }\n");
    let mut fake = Fake::default();
    for id in ["a/payload=1/r1", "a/payload=2/r1"] {
        fake.cells.insert(id.into(), CellScript::Dies);
    }
    let (outcome, events) = exec(&plan, &text, &mut fake, None);
    let outcome = outcome.unwrap();

    assert_eq!(
        fake.calls_of("measure a/"),
        ["measure a/payload=1/r1", "measure a/payload=2/r1"],
        "no cell of a is measured after its second death"
    );
    assert_eq!(fake.calls_of("start a"), ["start a #1", "start a #2"]);
    assert_eq!(fake.calls_of("measure b/").len(), 4);
    let reason = outcome.skipped.get("a").expect("a is skipped");
    assert!(reason.contains("2 time(s) (max_restarts: 1)"), "{reason}");
    let row = configuration(&outcome, "a");
    assert_eq!(row.status, ConfigurationStatus::Skipped);
    assert_eq!(&row.reason, reason);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::RuntimeSkipped { runtime, .. } if runtime == "a"))
    );
    assert_eq!(outcome.exit_code(), 1);
}

#[test]
fn a_failed_build_or_start_skips_only_its_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path(), "");
    let mut fake = Fake::default();
    fake.failing_builds.insert("a".into());
    let (outcome, _) = exec(&plan, &text, &mut fake, None);
    let outcome = outcome.unwrap();
    assert!(fake.calls_of("start a").is_empty(), "{:?}", fake.calls);
    assert_eq!(fake.calls_of("measure b/").len(), 4);
    assert!(outcome.skipped["a"].starts_with("build failed: exit status 1"));

    // Another results directory: two runs started in one second would share a run id.
    let other = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(other.path(), "");
    let mut fake = Fake::default();
    fake.failing_starts.insert("b".into());
    let (outcome, _) = exec(&plan, &text, &mut fake, None);
    let outcome = outcome.unwrap();
    assert_eq!(fake.calls_of("start b"), ["start b #1"], "never retried");
    assert!(fake.calls_of("measure b/").is_empty());
    assert_eq!(fake.calls_of("measure a/").len(), 4);
    assert!(outcome.skipped["b"].contains("no 200 from GET /health"));
    assert_eq!(
        configuration(&outcome, "b").status,
        ConfigurationStatus::Skipped
    );
}

#[test]
fn sigint_mid_cell_records_nothing_for_it_stops_the_service_and_resume_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path(), ONE_START_PER_RUNTIME);
    let mut fake = Fake::default();
    fake.cells
        .insert("a/payload=1/r2".into(), CellScript::Interrupted);
    let (outcome, events) = exec(&plan, &text, &mut fake, None);
    let outcome = outcome.unwrap();

    assert_eq!(outcome.state, RunState::Interrupted);
    assert_eq!(outcome.exit_code(), 130);
    assert_eq!(
        fake.calls.last().map(String::as_str),
        Some("stop a #1"),
        "the service is stopped and nothing else starts: {:?}",
        fake.calls
    );
    assert_eq!(
        measured_ids(&outcome),
        ["a/payload=1/r1", "a/payload=2/r1"],
        "the interrupted cell leaves no row"
    );
    let status = RunDir::open(&outcome.run_dir)
        .unwrap()
        .read_status()
        .unwrap();
    assert_eq!(status.state, RunState::Interrupted);
    assert!(events.iter().any(|e| matches!(
        e,
        Event::RunFinished {
            state: RunState::Interrupted,
            ..
        }
    )));

    let mut again = Fake::default();
    let (resumed, _) = exec(&plan, &text, &mut again, Some(&outcome.run_dir));
    let resumed = resumed.unwrap();
    assert_eq!(resumed.state, RunState::Complete);
    assert_eq!(
        again.calls_of("measure a/"),
        ["measure a/payload=1/r2", "measure a/payload=2/r2"],
        "recorded cells are not measured again"
    );
    let mut ids = measured_ids(&resumed);
    assert_eq!(ids.len(), 8);
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 8, "no cell is recorded twice");
}

#[test]
fn resume_of_a_complete_run_starts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path(), "");
    let (outcome, _) = exec(&plan, &text, &mut Fake::default(), None);
    let outcome = outcome.unwrap();
    let mut again = Fake::default();
    let (resumed, _) = exec(&plan, &text, &mut again, Some(&outcome.run_dir));
    assert_eq!(resumed.unwrap().exit_code(), 0);
    assert!(again.calls.is_empty(), "{:?}", again.calls);
    assert_eq!(measured_ids(&outcome).len(), 8);
}

/// The starts and stops of `fake`, in call order.
fn starts_and_stops(fake: &Fake) -> Vec<&str> {
    fake.calls
        .iter()
        .map(String::as_str)
        .filter(|c| c.starts_with("start") || c.starts_with("stop"))
        .collect()
}

/// The `start_index` of every measured start in lifecycle.csv, per runtime in row order.
fn start_indexes(outcome: &RunOutcome) -> Vec<String> {
    rows::<LifecycleRow>(outcome, LIFECYCLE_FILE)
        .into_iter()
        .map(|r| format!("{} #{}", r.runtime, r.start_index))
        .collect()
}

#[test]
fn restart_repeat_starts_each_runtime_anew_for_each_of_its_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(
        dir.path(),
        "order: sequential\nlifecycle: { restart: repeat }\n",
    );
    let mut fake = Fake::default();
    let (outcome, _) = exec(&plan, &text, &mut fake, None);
    let outcome = outcome.unwrap();
    assert_eq!(outcome.exit_code(), 0);

    let mut expected = vec!["build a".to_string(), "build b".into()];
    for rt in ["a", "b"] {
        for (start, cells) in [(1, &SEQUENTIAL[..2]), (2, &SEQUENTIAL[2..])] {
            expected.push(format!("start {rt} #{start}"));
            expected.extend(measures(rt, cells));
            expected.push(format!("stop {rt} #{start}"));
        }
    }
    assert_eq!(
        fake.calls, expected,
        "the cells of one repeat share a start"
    );
    assert_eq!(
        start_indexes(&outcome),
        ["a #1", "a #2", "b #1", "b #2"],
        "one lifecycle row per start"
    );
}

#[test]
fn restart_cell_starts_the_service_anew_for_every_cell() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path(), "lifecycle: { restart: cell }\n");
    let mut fake = Fake::default();
    let (outcome, _) = exec(&plan, &text, &mut fake, None);
    let outcome = outcome.unwrap();

    let after_builds = &fake.calls[2..];
    assert_eq!(after_builds.len(), 8 * 3, "{after_builds:?}");
    for triple in after_builds.chunks(3) {
        let rt = &triple[1]["measure ".len()..1 + "measure ".len()];
        assert!(
            triple[0].starts_with(&format!("start {rt} #")),
            "{triple:?}"
        );
        assert!(triple[2].starts_with(&format!("stop {rt} #")), "{triple:?}");
    }
    assert_eq!(fake.calls_of("start a").len(), 4);
    assert_eq!(fake.calls_of("start b").len(), 4);
    assert_eq!(start_indexes(&outcome).len(), 8);
    assert_eq!(
        plan.estimate().service_starts,
        8,
        "the estimate counts the same"
    );
}

#[test]
fn a_death_at_the_end_of_a_repeat_gives_one_start_for_the_next_not_two() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(
        dir.path(),
        "order: sequential\nlifecycle: { restart: repeat }\nfaults: { max_restarts: 1 }\n",
    );
    let mut fake = Fake::default();
    // The last cell of repeat 1: the death and the new repeat both ask for a start.
    fake.cells.insert("a/payload=2/r1".into(), CellScript::Dies);
    let (outcome, _) = exec(&plan, &text, &mut fake, None);
    let outcome = outcome.unwrap();
    let a: Vec<&str> = starts_and_stops(&fake)
        .into_iter()
        .filter(|c| c.contains(" a "))
        .collect();
    assert_eq!(a, ["start a #1", "stop a #1", "start a #2", "stop a #2"]);
    assert_eq!(fake.calls_of("measure a/").len(), 4);
    assert_eq!(
        configuration(&outcome, "a").status,
        ConfigurationStatus::Ran
    );
}

#[test]
fn a_death_mid_repeat_restarts_once_for_the_rest_of_that_repeat() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(
        dir.path(),
        "order: sequential\nlifecycle: { restart: repeat }\nfaults: { max_restarts: 1 }\n",
    );
    let mut fake = Fake::default();
    fake.cells.insert("a/payload=1/r1".into(), CellScript::Dies);
    let (outcome, _) = exec(&plan, &text, &mut fake, None);
    outcome.unwrap();
    let a: Vec<&str> = fake
        .calls
        .iter()
        .map(String::as_str)
        .filter(|c| c.contains(" a"))
        .skip(1) // the build
        .collect();
    assert_eq!(
        a,
        [
            "start a #1",
            "measure a/payload=1/r1",
            "stop a #1",
            "start a #2",
            "measure a/payload=2/r1",
            "stop a #2",
            "start a #3",
            "measure a/payload=1/r2",
            "measure a/payload=2/r2",
            "stop a #3"
        ]
    );
}

#[test]
fn a_service_that_cannot_be_stopped_cleanly_is_not_started_again_for_its_next_repeat() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(
        dir.path(),
        "order: sequential\nlifecycle: { restart: repeat }\n",
    );
    let mut fake = Fake::default();
    fake.failing_stops.insert("a".into());
    let (outcome, _) = exec(&plan, &text, &mut fake, None);
    let outcome = outcome.unwrap();
    assert_eq!(fake.calls_of("start a"), ["start a #1"], "{:?}", fake.calls);
    assert_eq!(
        fake.calls_of("measure a/"),
        ["measure a/payload=1/r1", "measure a/payload=2/r1"]
    );
    assert!(outcome.skipped["a"].contains("ignored SIGTERM"));
    assert_eq!(fake.calls_of("measure b/").len(), 4, "b still runs");
}

#[test]
fn memory_phases_come_after_every_cell_interleaved_and_skip_skipped_runtimes() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(
        dir.path(),
        "memory: { repeats: 2, settle: 0s, connections: 3, duration: 1s }\n",
    );
    let mut fake = Fake::default();
    let (outcome, events) = exec(&plan, &text, &mut fake, None);
    let outcome = outcome.unwrap();
    let last_measure = fake
        .calls
        .iter()
        .rposition(|c| c.starts_with("measure "))
        .unwrap();
    let memory: Vec<_> = fake.calls_of("memory");
    assert_eq!(
        memory,
        ["memory a #1", "memory b #1", "memory a #2", "memory b #2"]
    );
    let first_memory = fake
        .calls
        .iter()
        .position(|c| c.starts_with("memory"))
        .unwrap();
    assert!(first_memory > last_measure, "{:?}", fake.calls);
    let rows: Vec<crate::results::MemoryPhaseRow> =
        rows(&outcome, crate::results::MEMORY_PHASES_FILE);
    assert_eq!(rows.len(), 4);
    assert_eq!((rows[1].runtime.as_str(), rows[1].process), ("b", 1));
    assert_eq!(rows[0].connections, 3);
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, Event::MemoryPhase { .. }))
            .count(),
        4
    );

    // A runtime whose build failed gets no memory process.
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(
        dir.path(),
        "memory: { repeats: 1, connections: 3, duration: 1s }\n",
    );
    let mut fake = Fake {
        failing_builds: ["a".to_string()].into(),
        ..Default::default()
    };
    let (outcome, _) = exec(&plan, &text, &mut fake, None);
    outcome.unwrap();
    assert_eq!(fake.calls_of("memory"), ["memory b #1"]);
}

#[test]
fn a_resume_measures_only_the_memory_processes_not_yet_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(
        dir.path(),
        "memory: { repeats: 2, settle: 0s, connections: 3, duration: 1s }\n",
    );
    let mut fake = Fake::default();
    let (outcome, _) = exec(&plan, &text, &mut fake, None);
    let outcome = outcome.unwrap();
    // As if the first session had died after two of the four processes.
    let path = outcome.run_dir.join(crate::results::MEMORY_PHASES_FILE);
    let text_rows = std::fs::read_to_string(&path).unwrap();
    let kept: Vec<&str> = text_rows.lines().take(3).collect(); // header + 2 rows
    std::fs::write(&path, kept.join("\n") + "\n").unwrap();

    let mut again = Fake::default();
    let (resumed, _) = exec(&plan, &text, &mut again, Some(&outcome.run_dir));
    let resumed = resumed.unwrap();
    assert_eq!(again.calls_of("memory"), ["memory a #2", "memory b #2"]);
    let rows: Vec<crate::results::MemoryPhaseRow> =
        rows(&resumed, crate::results::MEMORY_PHASES_FILE);
    let ids: Vec<(&str, u32)> = rows
        .iter()
        .map(|r| (r.runtime.as_str(), r.process))
        .collect();
    assert_eq!(ids, [("a", 1), ("b", 1), ("a", 2), ("b", 2)]);
}
