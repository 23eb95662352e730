//! `runner store import URL DIR...`: index existing run directories. A DIR
//! may be a run, an experiment folder or a results root; the runs inside
//! are found by their status.json (at most three levels down).
use std::path::{Path, PathBuf};

use crate::results::model::{RunState, RunStatus, STATUS_FILE};
use crate::store::error::StoreError;
use crate::store::index::Indexed;
use crate::store::{Store, pending};

/// How deep below a DIR a run directory is looked for
/// (results root / experiment / run).
const MAX_DEPTH: usize = 3;

/// What an import did, for the CLI to print.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ImportReport {
    pub added: Vec<PathBuf>,
    pub replaced: Vec<PathBuf>,
    /// Runs not complete (running, interrupted, failed): not indexed.
    pub not_complete: Vec<(PathBuf, String)>,
}

/// The run directories at or under `dir`, sorted.
pub fn find_run_dirs(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let mut found = Vec::new();
    walk(dir, 0, &mut found)?;
    found.sort();
    Ok(found)
}

fn walk(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) -> Result<(), StoreError> {
    if dir.join(STATUS_FILE).is_file() {
        found.push(dir.to_path_buf());
        return Ok(());
    }
    if depth >= MAX_DEPTH {
        return Ok(());
    }
    let list_error = |source| StoreError::List {
        path: dir.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(list_error)? {
        let path = entry.map_err(list_error)?.path();
        // `.sources` holds exported trees, which may hold committed runs of
        // their own; `.build-cache` and the like are runner's, not runs.
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if path.is_dir() && !hidden {
            walk(&path, depth + 1, found)?;
        }
    }
    Ok(())
}

/// The run's state from status.json; `None` when it cannot be read.
fn state_of(dir: &Path) -> Option<RunState> {
    let text = std::fs::read_to_string(dir.join(STATUS_FILE)).ok()?;
    serde_json::from_str::<RunStatus>(&text)
        .ok()
        .map(|s| s.state)
}

impl Store {
    /// Indexes every complete run under `dirs`; a run indexed before is
    /// replaced, so importing twice gives the same store. A run's
    /// not-yet-indexed marker is removed once it is in.
    pub fn import(&mut self, dirs: &[PathBuf]) -> Result<ImportReport, StoreError> {
        let mut report = ImportReport::default();
        for dir in dirs {
            for run in find_run_dirs(dir)? {
                match state_of(&run) {
                    Some(RunState::Complete) => {}
                    other => {
                        let why = other.map_or_else(
                            || "status.json unreadable".to_string(),
                            |s| {
                                serde_json::to_value(s)
                                    .ok()
                                    .and_then(|v| v.as_str().map(str::to_string))
                                    .unwrap_or_default()
                            },
                        );
                        report.not_complete.push((run, why));
                        continue;
                    }
                }
                match self.index_run(&run)? {
                    Indexed::Added => report.added.push(run.clone()),
                    Indexed::Replaced => report.replaced.push(run.clone()),
                }
                pending::clear(&run);
            }
        }
        Ok(report)
    }
}
