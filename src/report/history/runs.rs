//! Reading every run of an experiment and keeping the comparable ones.
//!
//! A subdirectory with a status.json is a run. Runs that are not complete
//! (running, interrupted, failed) or cannot be read are left out and listed;
//! the newest complete run is the one judged, and a run whose host
//! fingerprint, toolchains, spec or `--quick` factor differ from it
//! (`compare::differences`) is a break: listed, never mixed into a series.
use std::path::{Path, PathBuf};

use serde::Serialize;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::report::analysis::comparable::differences;
use crate::report::error::HistoryError;
use crate::results::RunData;
use crate::results::model::{RunState, RunStatus, STATUS_FILE};

/// A run as the history names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRef {
    pub run_id: String,
    pub dir: String,
    /// RFC 3339, from status.json.
    pub started_at: String,
}

impl RunRef {
    pub fn of(run: &RunData) -> Self {
        RunRef {
            run_id: run.status.run_id.clone(),
            dir: run.dir.display().to_string(),
            started_at: run.status.started_at.clone(),
        }
    }
}

/// Why a run directory is not in the history.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "why", rename_all = "kebab-case")]
pub enum LeftOutReason {
    /// Running, interrupted or failed: its measurements are partial.
    NotComplete { state: RunState },
    /// A file is missing or damaged; the error says which.
    Unreadable { error: String },
}

impl std::fmt::Display for LeftOutReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LeftOutReason::NotComplete { state } => {
                let state = serde_json::to_value(state).expect("a unit enum serializes");
                write!(f, "not complete ({})", state.as_str().unwrap_or("?"))
            }
            LeftOutReason::Unreadable { error } => write!(f, "unreadable: {error}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeftOut {
    /// The run directory's name (its run id, normally).
    pub run: String,
    pub reason: LeftOutReason,
}

/// A complete run that is not comparable with the newest run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Break {
    pub run: RunRef,
    pub differences: Vec<String>,
}

/// The runs of one experiment as the history uses them.
#[derive(Debug, Clone)]
pub struct ExperimentRuns {
    pub experiment: String,
    /// Comparable complete runs, oldest first; the last is the newest, the one judged.
    pub runs: Vec<RunData>,
    pub left_out: Vec<LeftOut>,
    pub breaks: Vec<Break>,
}

/// Where the history's runs come from: one experiment folder on this host,
/// or a results store (every host and workspace that indexed into it).
#[derive(Debug, Clone)]
pub enum RunSource {
    /// `results/<experiment>/`, one directory per run.
    Folder(PathBuf),
    /// The complete runs of one experiment on one host, as the store
    /// returned them (`store::Store::runs_of`), oldest first.
    Stored {
        experiment: String,
        /// The store's masked URL and the host, for the output.
        origin: String,
        runs: Vec<RunData>,
    },
}

impl RunSource {
    /// Where the history was read from, as the output names it.
    pub fn describe(&self) -> String {
        match self {
            RunSource::Folder(dir) => dir.display().to_string(),
            RunSource::Stored { origin, .. } => origin.clone(),
        }
    }
}

/// Every run of the source, in time order, split into the comparable ones,
/// the breaks and the runs left out. Folder and store share everything
/// after reading: the same ordering, the same comparability rule.
pub fn load_from(source: &RunSource) -> Result<ExperimentRuns, HistoryError> {
    match source {
        RunSource::Folder(dir) => load(dir),
        RunSource::Stored {
            experiment,
            origin,
            runs,
        } => select(
            runs.clone(),
            Vec::new(),
            runs.len(),
            &PathBuf::from(format!("{origin}, experiment `{experiment}`")),
        ),
    }
}

/// Reads `dir` (results/<experiment>/): every run, in time order.
pub fn load(dir: &Path) -> Result<ExperimentRuns, HistoryError> {
    if dir.join(STATUS_FILE).is_file() {
        return Err(HistoryError::RunDirGiven {
            path: dir.to_path_buf(),
            parent: dir
                .parent()
                .map_or_else(|| PathBuf::from(".."), Path::to_path_buf),
        });
    }
    let mut complete = Vec::new();
    let mut left_out = Vec::new();
    let candidates = run_dirs(dir)?;
    let found = candidates.len();
    for run_dir in candidates {
        let name = run_dir
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        match read_run(&run_dir) {
            Ok(run) => complete.push(run),
            Err(reason) => left_out.push(LeftOut { run: name, reason }),
        }
    }
    select(complete, left_out, found, dir)
}

/// The complete runs in time order, the newest judged, the runs not
/// comparable with it set apart as breaks.
fn select(
    mut complete: Vec<RunData>,
    left_out: Vec<LeftOut>,
    found: usize,
    origin: &Path,
) -> Result<ExperimentRuns, HistoryError> {
    complete.sort_by_key(time_order);
    let Some(newest) = complete.last().cloned() else {
        return Err(HistoryError::NoCompleteRun {
            path: origin.to_path_buf(),
            found,
            left_out: left_out
                .iter()
                .map(|l| format!("{}: {}", l.run, l.reason))
                .collect(),
        });
    };
    let mut runs = Vec::new();
    let mut breaks = Vec::new();
    for run in complete {
        let differences = differences(&newest, &run);
        if differences.is_empty() {
            runs.push(run);
        } else {
            breaks.push(Break {
                run: RunRef::of(&run),
                differences,
            });
        }
    }
    Ok(ExperimentRuns {
        experiment: newest.status.experiment.clone(),
        runs,
        left_out,
        breaks,
    })
}

/// Subdirectories holding a status.json, sorted by name.
fn run_dirs(dir: &Path) -> Result<Vec<PathBuf>, HistoryError> {
    let list_error = |source| HistoryError::ExperimentDir {
        path: dir.to_path_buf(),
        source,
    };
    let mut dirs = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(list_error)? {
        let path = entry.map_err(list_error)?.path();
        if path.join(STATUS_FILE).is_file() {
            dirs.push(path);
        }
    }
    dirs.sort();
    Ok(dirs)
}

/// A complete, readable run, or why not. status.json is read first so that
/// a run still being written is "running", not "unreadable".
fn read_run(dir: &Path) -> Result<RunData, LeftOutReason> {
    let unreadable = |error: String| LeftOutReason::Unreadable { error };
    let path = dir.join(STATUS_FILE);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| unreadable(format!("{}: {e}", path.display())))?;
    let status: RunStatus =
        serde_json::from_str(&text).map_err(|e| unreadable(format!("{}: {e}", path.display())))?;
    if status.state != RunState::Complete {
        return Err(LeftOutReason::NotComplete {
            state: status.state,
        });
    }
    RunData::load(dir).map_err(|e| unreadable(e.to_string()))
}

/// Start time (status.json), then run id: run ids are UTC start times, and
/// the start time also orders runs whose directory was renamed.
fn time_order(run: &RunData) -> (Option<OffsetDateTime>, String) {
    (
        OffsetDateTime::parse(&run.status.started_at, &Rfc3339).ok(),
        run.status.run_id.clone(),
    )
}
