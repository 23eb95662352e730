//! Training errors: the runtime, the phase that failed, the log to read.
use std::path::PathBuf;

use crate::build::BuildError;
use crate::service::ServiceError;

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error("training {runtime}: {source}")]
    Service {
        runtime: String,
        #[source]
        source: Box<ServiceError>,
    },
    #[error("training {runtime}: the training workload failed: {message}; see {log}")]
    Drive {
        runtime: String,
        message: String,
        log: PathBuf,
    },
    #[error("training {runtime}: `after` command failed: {source}")]
    After {
        runtime: String,
        #[source]
        source: BuildError,
    },
    #[error(
        "training {runtime}: expected output {path} is {problem} after training; see {log} \
         (did the service stop gracefully and the `after` commands write it?)"
    )]
    MissingOutput {
        runtime: String,
        path: PathBuf,
        problem: &'static str,
        log: PathBuf,
    },
    #[error(
        "training {runtime}: cannot remove the previous output {path} before training: {source}; \
         check its permissions"
    )]
    StaleOutput {
        runtime: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "training {runtime}: invalid evidence pattern `{pattern}`: {message}; fix train.evidence in the spec"
    )]
    BadEvidencePattern {
        runtime: String,
        pattern: String,
        message: String,
    },
}
