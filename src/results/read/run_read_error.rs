//! Why a run directory (or a file beside it, such as a report template)
//! could not be read. Every message names the file and what to do; the
//! report stage and `runner plan` (which reads the last comparable run) show
//! them as they are.
use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum RunReadError {
    #[error(
        "{path}: missing ({what}); is this a run directory (results/<experiment>/<run-id>/)? \
         Pass the run's own directory, or re-run `runner exec` if the run never got that far"
    )]
    Missing { path: PathBuf, what: &'static str },

    #[error("{path}: cannot read: {source}; check the file's permissions")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A CSV table of the run that cannot be read (file, line and column).
    #[error(transparent)]
    Csv(#[from] crate::results::CsvReadError),

    #[error(
        "{path}:{line}:{column}: {detail}; the file is damaged or from another runner version: fix it or re-run"
    )]
    Json {
        path: PathBuf,
        line: usize,
        column: usize,
        detail: String,
    },
}
