//! Errors that stop `runner verify` before any runtime is checked (exit 2).
//! A runtime that fails is not an error: it is a difference in the verdict.
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(
        "{spec}: the spec has no `verify` requests, so there is nothing to compare; \
         add a `verify:` list, or content checks to a workload request's `expect` \
         (min_bytes, body_contains, ...; see docs/verify.md)"
    )]
    NoRequests { spec: String },
    #[error("runtime {runtime}: directory {dir} does not exist; fix `dir` in the spec ({spec})")]
    MissingDir {
        runtime: String,
        dir: PathBuf,
        spec: String,
    },
    #[error(
        "cannot create the verify folder under {path}: {source}; \
         check that the results directory is writable or set `results:` in the spec"
    )]
    Folder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Results(#[from] crate::results::ResultsError),
    #[error("{0}")]
    Certificates(#[from] crate::exec::walk::certificates::CertificatesError),
}
