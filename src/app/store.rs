//! What `runner exec` and `runner store import` do with the results store:
//! a complete run is indexed after its report is written (the directory
//! first: a store that is down loses nothing, the run is marked and indexed
//! by the next call that opens the store), and existing run directories are
//! imported. Every message names the store by its masked URL.
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::exec::RunOutcome;
use crate::results::model::RunState;
use crate::store::{Store, StoreUrl, pending};

/// The results root of a run directory (results/<experiment>/<run-id> -> results/).
fn results_root(run_dir: &Path) -> Option<PathBuf> {
    run_dir.parent()?.parent().map(Path::to_path_buf)
}

/// Indexes a complete run; when the store cannot take it, marks the run
/// directory and says so. Earlier marked runs under the same results root
/// are indexed first (the catch-up).
pub fn index_after_run(url: &StoreUrl, outcome: &RunOutcome, err: &mut dyn Write) {
    if outcome.state != RunState::Complete {
        return;
    }
    let run_dir = &outcome.run_dir;
    let result = Store::open(url).and_then(|mut store| {
        let roots: Vec<PathBuf> = results_root(run_dir).into_iter().collect();
        let caught_up = store.catch_up(&roots);
        store.index_run(run_dir).map(|_| caught_up)
    });
    match result {
        Ok(caught_up) => {
            pending::clear(run_dir);
            for line in caught_up.messages() {
                let _ = writeln!(err, "{line}");
            }
            let _ = writeln!(err, "store: indexed {} in {url}", run_dir.display());
        }
        Err(e) => {
            let marked = pending::mark(run_dir, &e.to_string());
            let _ = writeln!(
                err,
                "warning: the run is not in the results store yet: {e}\n  the run directory \
                 {} is complete{}; the next runner command that opens the store indexes it",
                run_dir.display(),
                match marked {
                    Ok(()) => format!(" and marked ({})", pending::PENDING_FILE),
                    Err(m) => format!(" (but marking it failed: {m})"),
                }
            );
        }
    }
}

/// `runner store import URL DIR...`: exit 0 when every run was indexed, 2 otherwise.
pub fn import_command(
    url: &StoreUrl,
    dirs: &[PathBuf],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let report = Store::open(url).and_then(|mut store| store.import(dirs));
    match report {
        Ok(report) => {
            for dir in &report.added {
                let _ = writeln!(out, "added {}", dir.display());
            }
            for dir in &report.replaced {
                let _ = writeln!(
                    out,
                    "replaced {} (it was in the store already)",
                    dir.display()
                );
            }
            for (dir, state) in &report.not_complete {
                let _ = writeln!(
                    err,
                    "note: {} left out: not complete ({state})",
                    dir.display()
                );
            }
            let _ = writeln!(
                out,
                "{} run(s) added, {} replaced, {} left out, into {url}",
                report.added.len(),
                report.replaced.len(),
                report.not_complete.len()
            );
            0
        }
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            2
        }
    }
}
