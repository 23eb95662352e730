//! Training provenance in a run: after a training, training/<runtime>.json
//! records the driver's figures and the sha256 of the inputs and produced
//! files; before every measured start of a trained runtime the files are
//! hashed again and the `train.probe` command, if any, is run. Any
//! difference is the reason its cells are `suspect` (through the training
//! evidence of the start, which the verdict already reads).
use std::time::Instant;

use crate::build::{BuildError, run_logged};
use crate::exec::measure::context::CellContext;
use crate::plan::{RuntimePlan, TrainPlan};
use crate::process::runtime_env;
use crate::results::rfc3339_now;
use crate::results::rows::training::{
    DriverFigures, FileHash, TRAINING_DIR, TrainingRecord, training_file,
};
use crate::train::provenance::{differences, hash_paths};

/// Writes training/<runtime>.json for a training that just succeeded.
pub fn record_training(
    ctx: &CellContext,
    rt: &RuntimePlan,
    tp: &TrainPlan,
    driver: DriverFigures,
) -> Result<(), String> {
    let hash = |what: &str, paths| {
        hash_paths(paths).map_err(|e| {
            format!(
                "runtime {}: cannot hash the training {what} ({e}); check train.{what} in the spec",
                rt.name
            )
        })
    };
    let hashes = (hash("inputs", &tp.inputs)?, hash("produces", &tp.produces)?);
    write_record(ctx, rt, tp, driver, hashes)
}

/// Writes training/<runtime>.json with the `(inputs, produced)` hashes
/// taken where the training ran (here, or on the service host).
pub fn write_record(
    ctx: &CellContext,
    rt: &RuntimePlan,
    tp: &TrainPlan,
    driver: DriverFigures,
    (inputs, produced): (Vec<FileHash>, Vec<FileHash>),
) -> Result<(), String> {
    let record = TrainingRecord {
        runtime: rt.name.clone(),
        trained_at: rfc3339_now(),
        driver,
        inputs,
        produced,
        probe: tp.probe.clone(),
    };
    let dir = ctx.run.file(TRAINING_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    ctx.run
        .write_json(&training_file(&rt.name), &record)
        .map_err(|e| e.to_string())
}

/// Before a measured start of a trained runtime: `Some(why)` when the
/// artifact in use is not provably the one trained from the recorded
/// inputs (a file changed, is gone or new, no record, or the probe failed).
pub fn check_before_start(ctx: &CellContext, rt: &RuntimePlan) -> Option<String> {
    let tp = rt.train.as_ref()?;
    let now = |paths| hash_paths(paths).map_err(|e| e.to_string());
    let probe = || {
        tp.probe
            .as_deref()
            .and_then(|p| run_probe(ctx, rt, p).err())
    };
    judge(ctx, rt, (now(&tp.inputs), now(&tp.produces)), probe)
}

/// Hashes taken now (here or on the service host): `(inputs, produced)`.
pub type HashesNow = (Result<Vec<FileHash>, String>, Result<Vec<FileHash>, String>);

/// [`check_before_start`]'s verdict from the hashes `now` against the
/// training record, then (only when they agree) `probe()`'s problem.
pub fn judge(
    ctx: &CellContext,
    rt: &RuntimePlan,
    (inputs, produced): HashesNow,
    probe: impl FnOnce() -> Option<String>,
) -> Option<String> {
    let problem = |why: String| Some(format!("the artifact in use is not the one trained: {why}"));
    let record: TrainingRecord = match ctx.run.read_json(&training_file(&rt.name)) {
        Ok(record) => record,
        Err(e) => {
            return problem(format!(
                "no readable training record ({e}); run the training again (a fresh `runner exec`)"
            ));
        }
    };
    let changes: Vec<String> = [
        ("input", &record.inputs, inputs),
        ("trained file", &record.produced, produced),
    ]
    .into_iter()
    .filter_map(|(what, recorded, current)| match current {
        Ok(current) => differences(what, recorded, &current),
        Err(e) => Some(format!("cannot hash the {what}s: {e}")),
    })
    .collect();
    if !changes.is_empty() {
        return problem(changes.join("; "));
    }
    probe().and_then(problem)
}

/// Runs `probe` in the runtime's dir with its env, output to
/// logs/probe-<runtime>.log, bounded by the runtime's health timeout.
fn run_probe(ctx: &CellContext, rt: &RuntimePlan, probe: &str) -> Result<(), String> {
    let log = ctx.run.log(&format!("probe-{}", rt.name));
    let started = Instant::now();
    let limit = rt.health.timeout;
    let interrupt = ctx.interrupt;
    let over = || interrupt.is_set() || started.elapsed() > limit;
    match run_logged(&rt.name, &rt.dir, probe, &runtime_env(rt), &log, &over) {
        Ok(()) => Ok(()),
        Err(BuildError::Cancelled { .. }) if !interrupt.is_set() => Err(format!(
            "train.probe `{probe}` did not finish within {} s; see {}",
            limit.as_secs(),
            log.display()
        )),
        Err(e) => Err(format!("train.probe failed: {e}")),
    }
}
