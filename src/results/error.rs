//! Errors of the `results` stage: every one names the file involved.
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    #[error("cannot write {path}: {source}; check that the results directory is writable")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    CsvRead(#[from] crate::results::CsvReadError),
    #[error("{path}: invalid CSV row: {source}")]
    Csv {
        path: PathBuf,
        #[source]
        source: csv::Error,
    },
    #[error("{path}: invalid JSON: {source}")]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error(
        "run directory {path} already exists; pass --resume {path} to continue it, or wait a second for a new run id"
    )]
    RunExists { path: PathBuf },
    #[error(
        "the spec changed since run {run} was started (spec hash {recorded} then, {current} now); \
         resume it with the original spec, start a new run, or pass --force to resume anyway"
    )]
    SpecChanged {
        run: PathBuf,
        recorded: String,
        current: String,
    },
    #[error(
        "{path} is not a run directory (no status.json); pass the directory of a run made by `runner exec`"
    )]
    NotARun { path: PathBuf },
}

impl ResultsError {
    pub(crate) fn write(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| ResultsError::Write { path, source }
    }

    pub(crate) fn read(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| ResultsError::Read { path, source }
    }
}
