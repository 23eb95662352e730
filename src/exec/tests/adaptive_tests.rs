//! Adaptive repeats through the orchestration, on the scripted [`Fake`]:
//! a configuration whose repeats agree stops at `min`, one whose repeats
//! do not goes to `max`, the plan's interleaving is kept for the cells
//! that do run, and `--resume` continues an adaptive run without measuring
//! any cell twice and ends where an uninterrupted run ends.
use std::path::Path;
use std::sync::mpsc::channel;

use crate::exec::Event;
use crate::exec::interrupt::Interrupt;
use crate::exec::tests::fake::{CellScript, Fake};
use crate::exec::walk::run::{RunOutcome, RunRequest, run};
use crate::plan::{Plan, PlanOptions};
use crate::results::{
    MEASUREMENTS_FILE, MeasurementRow, REPEATS_FILE, RepeatsRow, RepeatsStop, RunDir, RunState,
    read_csv,
};

/// `a`: adaptive 3 to 6 repeats within 3%; `b`: its own fixed 2 repeats.
/// Two payloads each, interleaved, a fresh start per repeat (the defaults).
fn plan_in(dir: &Path) -> (Plan, String) {
    let text = "experiment: { name: adaptive }\n\
         runtimes:\n  a: { dir: ., start: ./a }\n  b: { dir: ., start: ./b, repeats: 2 }\n\
         workload: { path: /x }\n\
         axes: { payload: [1, 2] }\n\
         repeats: { min: 3, max: 6, target_ci: 3% }\n\
         load: { connections: 2 }\n\
         measure: { duration: 1s }\n\
         results: ./results\n"
        .to_string();
    planned(dir, "adaptive.yaml", text)
}

/// The plan of spec `text`, as if it were the file `name` in `dir`.
fn planned(dir: &Path, name: &str, text: String) -> (Plan, String) {
    let loaded = crate::spec::from_text(text.clone(), &dir.join(name))
        .unwrap_or_else(|e| panic!("test spec: {e}"));
    let plan = crate::plan::build(&loaded, &PlanOptions::default())
        .unwrap_or_else(|e| panic!("test plan: {e}"));
    (plan, text)
}

/// `a/payload=1` measures 100 req/s every time (its repeats agree);
/// `a/payload=2` jumps between 80 and 130 (they never do).
fn fake() -> Fake {
    let mut fake = Fake::default();
    for (repeat, rps) in [100.0, 130.0, 80.0, 120.0, 85.0, 125.0].iter().enumerate() {
        fake.throughput
            .insert(format!("a/payload=2/r{}", repeat + 1), *rps);
    }
    fake
}

fn exec(
    plan: &Plan,
    text: &str,
    fake: &mut Fake,
    resume: Option<&Path>,
) -> (RunOutcome, Vec<Event>) {
    let (tx, rx) = channel();
    let request = RunRequest {
        plan,
        spec_text: text,
        resume,
        force: false,
        labels: &Default::default(),
    };
    let outcome =
        run(&request, fake, || Ok(Interrupt::default()), tx).unwrap_or_else(|e| panic!("run: {e}"));
    (outcome, rx.try_iter().collect())
}

fn rows<T: serde::de::DeserializeOwned>(outcome: &RunOutcome, file: &str) -> Vec<T> {
    read_csv(&RunDir::open(&outcome.run_dir).unwrap().file(file))
        .unwrap()
        .unwrap_or_default()
}

fn repeats_of(outcome: &RunOutcome) -> Vec<(String, u32, RepeatsStop)> {
    rows::<RepeatsRow>(outcome, REPEATS_FILE)
        .into_iter()
        .map(|r| (r.config_id, r.repeats, r.stop))
        .collect()
}

/// Every cell the uninterrupted run measures, in order.
const ALL: [&str; 13] = [
    "a/payload=1/r1",
    "a/payload=2/r1",
    "b/payload=1/r1",
    "b/payload=2/r1",
    "a/payload=1/r2",
    "a/payload=2/r2",
    "b/payload=1/r2",
    "b/payload=2/r2",
    "a/payload=1/r3",
    "a/payload=2/r3",
    "a/payload=2/r4",
    "a/payload=2/r5",
    "a/payload=2/r6",
];

fn expected_repeats() -> Vec<(String, u32, RepeatsStop)> {
    vec![
        ("a/payload=1".into(), 3, RepeatsStop::Target),
        ("a/payload=2".into(), 6, RepeatsStop::Max),
        ("b/payload=1".into(), 2, RepeatsStop::Fixed),
        ("b/payload=2".into(), 2, RepeatsStop::Fixed),
    ]
}

#[test]
fn agreeing_repeats_stop_at_min_and_disagreeing_ones_go_to_max_in_plan_order() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path());
    assert_eq!(
        plan.cells.len(),
        6 + 6 + 2 + 2,
        "a cell for every repeat up to max"
    );
    let mut fake = fake();
    let (outcome, events) = exec(&plan, &text, &mut fake, None);
    assert_eq!(outcome.state, RunState::Complete);
    let measured: Vec<&str> = fake.calls_of("measure ").iter().map(|c| &c[8..]).collect();
    assert_eq!(
        measured, ALL,
        "interleaved, a stopped configuration's cells left out"
    );
    let starts = fake.calls_of("start a");
    assert_eq!(
        starts.len(),
        6,
        "a fresh start per repeat of a, also for one cell: {starts:?}"
    );
    assert_eq!(repeats_of(&outcome), expected_repeats());

    let rows = rows::<RepeatsRow>(&outcome, REPEATS_FILE);
    let agreeing = &rows[0];
    assert_eq!(
        (agreeing.half_width, agreeing.target_ci),
        (Some(0.0), Some(0.03))
    );
    let noisy = rows[1].half_width.expect("6 usable repeats");
    assert!(noisy > 0.03, "{noisy}");
    assert_eq!((rows[2].min, rows[2].max, rows[2].target_ci), (2, 2, None));

    let stops: Vec<(String, RepeatsStop, u64)> = events
        .iter()
        .filter_map(|e| match e {
            Event::RepeatsStopped {
                config_id,
                stop,
                dropped,
                ..
            } => Some((config_id.clone(), *stop, *dropped)),
            _ => None,
        })
        .collect();
    assert_eq!(
        stops,
        [
            ("a/payload=1".into(), RepeatsStop::Target, 3),
            ("a/payload=2".into(), RepeatsStop::Max, 0)
        ],
        "adaptive stops only, with the planned cells they drop"
    );
}

#[test]
fn resume_counts_the_recorded_repeats_and_measures_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = plan_in(dir.path());
    let mut first = fake();
    first
        .cells
        .insert("a/payload=2/r5".into(), CellScript::Interrupted);
    let (interrupted, _) = exec(&plan, &text, &mut first, None);
    assert_eq!(interrupted.state, RunState::Interrupted);
    let mut so_far = expected_repeats();
    so_far[1] = ("a/payload=2".into(), 4, RepeatsStop::Interrupted);
    assert_eq!(
        repeats_of(&interrupted),
        so_far,
        "a/payload=1 had already stopped"
    );

    let mut second = fake();
    let (resumed, _) = exec(&plan, &text, &mut second, Some(&interrupted.run_dir));
    assert_eq!(resumed.state, RunState::Complete);
    let measured: Vec<&str> = second
        .calls_of("measure ")
        .iter()
        .map(|c| &c[8..])
        .collect();
    assert_eq!(
        measured,
        ["a/payload=2/r5", "a/payload=2/r6"],
        "only what the interrupted run had left"
    );
    assert_eq!(repeats_of(&resumed), expected_repeats());
    let ids: Vec<String> = rows::<MeasurementRow>(&resumed, MEASUREMENTS_FILE)
        .into_iter()
        .map(|r| r.cell_id)
        .collect();
    assert_eq!(
        ids, ALL,
        "every cell once, in the order of one uninterrupted run"
    );
}

/// `until: decided` (3 to 8 repeats): `fast` serves twice what `a` and
/// `twin` serve, so its findings are settled at the first look (round 3);
/// `a` and `twin` differ by 2-4% in noise of a few percent, which 8
/// repeats can decide, so they go on, round after round, until that pair
/// is settled too or `max` is reached.
fn decided_plan_in(dir: &Path) -> (Plan, String) {
    let text = "experiment: { name: decided }\n\
         runtimes:\n  a: { dir: ., start: ./a }\n  fast: { dir: ., start: ./fast }\n  twin: { dir: ., start: ./twin }\n\
         workload: { path: /x }\n\
         axes: { payload: [1, 2] }\n\
         repeats: { min: 3, max: 8, until: decided }\n\
         load: { connections: 2 }\n\
         measure: { duration: 1s }\n\
         results: ./results\n"
        .to_string();
    planned(dir, "decided.yaml", text)
}

fn decided_fake() -> Fake {
    let mut fake = Fake::default();
    let a = [100.0, 104.0, 97.0, 102.0, 99.0, 103.0, 98.0, 101.0];
    let twin = [103.0, 99.0, 106.0, 102.0, 105.0, 100.0, 104.0, 103.0];
    for payload in [1, 2] {
        for (i, (x, y)) in a.iter().zip(twin).enumerate() {
            let r = i + 1;
            fake.throughput
                .insert(format!("a/payload={payload}/r{r}"), *x);
            fake.throughput
                .insert(format!("twin/payload={payload}/r{r}"), y);
            let fast = 200.0 + 3.0 * (r % 3) as f64;
            fake.throughput
                .insert(format!("fast/payload={payload}/r{r}"), fast);
        }
    }
    fake
}

#[test]
fn until_decided_stops_a_settled_runtime_at_the_first_look_and_goes_on_for_open_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = decided_plan_in(dir.path());
    let mut fake = decided_fake();
    let (outcome, events) = exec(&plan, &text, &mut fake, None);
    assert_eq!(outcome.state, RunState::Complete);
    let repeats = repeats_of(&outcome);
    let of = |id: &str| repeats.iter().find(|r| r.0 == id).unwrap().clone();
    assert_eq!(
        of("fast/payload=1"),
        ("fast/payload=1".into(), 3, RepeatsStop::Decided)
    );
    assert_eq!(of("fast/payload=2").1, 3);
    let (a, twin) = (of("a/payload=1"), of("twin/payload=1"));
    assert!(
        a.1 > 3 && a.1 == twin.1,
        "the open pair went on together: {repeats:?}"
    );
    let rows = rows::<RepeatsRow>(&outcome, REPEATS_FILE);
    assert!(
        rows.iter()
            .all(|r| r.until == Some(crate::results::RepeatsUntil::Decided))
    );
    let stops = events
        .iter()
        .filter(|e| {
            matches!(
                e,
                Event::RepeatsStopped {
                    stop: RepeatsStop::Decided,
                    ..
                }
            )
        })
        .count();
    assert!(stops >= 2, "fast's two configurations stop at the look");
    // Every cell measured is one the plan had, and none after its runtime stopped.
    let measured = fake.calls_of("measure fast");
    assert_eq!(measured.len(), 6, "{measured:?}");

    // A resumed run replays the rows round by round and decides alike (in
    // a directory of its own: two runs in one second would share a run id).
    let dir = tempfile::tempdir().unwrap();
    let (plan, text) = decided_plan_in(dir.path());
    let mut first = decided_fake();
    first
        .cells
        .insert("a/payload=1/r5".into(), CellScript::Interrupted);
    let (interrupted, _) = exec(&plan, &text, &mut first, None);
    let mut second = decided_fake();
    let (resumed, _) = exec(&plan, &text, &mut second, Some(&interrupted.run_dir));
    assert_eq!(
        repeats_of(&resumed),
        repeats,
        "a resumed run ends where an uninterrupted one does"
    );
    assert!(
        second.calls_of("measure fast").is_empty(),
        "fast had stopped before the interruption"
    );
}
