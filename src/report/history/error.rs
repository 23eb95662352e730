//! Why `runner history` could not read an experiment. Each of these is exit
//! 2 ("unusable input"), never 1, which means "the newest run regressed".
use std::path::PathBuf;

use thiserror::Error;

use crate::report::error::ReportError;

#[derive(Debug, Error)]
pub enum HistoryError {
    #[error(
        "{path}: cannot list the experiment directory: {source}; pass results/<experiment>/ \
         (the folder holding one directory per run)"
    )]
    ExperimentDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error(
        "{path} is a run directory (it has status.json); `runner history` reads every run of an \
         experiment: pass its parent, {parent}"
    )]
    RunDirGiven { path: PathBuf, parent: PathBuf },

    #[error(
        "{path}: no complete run to judge ({found} run director{} found{}); run `runner exec` \
         to completion at least once, or pass the right results/<experiment>/ directory",
        if *found == 1 { "y" } else { "ies" },
        if left_out.is_empty() { String::new() } else { format!(": {}", left_out.join("; ")) }
    )]
    NoCompleteRun {
        path: PathBuf,
        found: usize,
        /// One line per run left out and why.
        left_out: Vec<String>,
    },

    /// Writing history.md / history.html, or drawing a chart.
    #[error(transparent)]
    Report(#[from] ReportError),
}
