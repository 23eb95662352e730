//! A run the store could not take (it was down, or refused the write) is
//! never lost: its directory is written first, and a marker file in it
//! says it is not yet indexed. The next call that opens the store indexes
//! every marked run under the results root it is given and says so.
use std::path::{Path, PathBuf};

use crate::store::Store;
use crate::store::error::StoreError;
use crate::store::import::find_run_dirs;

/// In a run directory: this run is not in the store yet. It holds the
/// reason (with the store's masked URL), for whoever looks.
pub const PENDING_FILE: &str = "store-pending.txt";

/// Marks `run_dir` as not yet indexed; `why` must already be masked (a
/// `StoreError`'s text is).
pub fn mark(run_dir: &Path, why: &str) -> std::io::Result<()> {
    std::fs::write(
        run_dir.join(PENDING_FILE),
        format!(
            "This run is not in the results store yet: {why}\n\
             The next runner command that opens the store indexes it \
             (or `runner store import URL {}`).\n",
            run_dir.display()
        ),
    )
}

/// The run is in the store: the marker goes.
pub fn clear(run_dir: &Path) {
    // Absent is the normal case.
    let _ = std::fs::remove_file(run_dir.join(PENDING_FILE));
}

/// The marked runs under `root` (a results root, an experiment or a run).
pub fn marked_under(root: &Path) -> Vec<PathBuf> {
    find_run_dirs(root)
        .unwrap_or_default()
        .into_iter()
        .filter(|d| d.join(PENDING_FILE).is_file())
        .collect()
}

/// What catching up did: the runs now indexed, and the ones still failing.
#[derive(Debug, Default)]
pub struct CatchUp {
    pub indexed: Vec<PathBuf>,
    pub failed: Vec<(PathBuf, StoreError)>,
}

impl CatchUp {
    /// Lines for stderr: the user is told the index caught up, or did not.
    pub fn messages(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .indexed
            .iter()
            .map(|d| {
                format!(
                    "store: indexed {} (it was not yet in the store)",
                    d.display()
                )
            })
            .collect();
        out.extend(
            self.failed
                .iter()
                .map(|(d, e)| format!("warning: store: {} still not indexed: {e}", d.display())),
        );
        out
    }
}

impl Store {
    /// Indexes every marked run under `roots` and clears their markers.
    pub fn catch_up(&mut self, roots: &[PathBuf]) -> CatchUp {
        let mut done = CatchUp::default();
        for root in roots.iter().filter(|r| r.is_dir()) {
            for run in marked_under(root) {
                match self.index_run(&run) {
                    Ok(_) => {
                        clear(&run);
                        done.indexed.push(run);
                    }
                    Err(e) => done.failed.push((run, e)),
                }
            }
        }
        done
    }
}
