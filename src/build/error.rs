//! Build errors: which runtime, which command, which log to read.
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(
        "runtime {runtime}: build command `{command}` failed ({status}) in {dir}; see {log}; last lines:\n{tail}"
    )]
    CommandFailed {
        runtime: String,
        command: String,
        status: String,
        dir: PathBuf,
        log: PathBuf,
        tail: String,
    },
    #[error("runtime {runtime}: cannot run build command `{command}`: {source}; see {log}")]
    Spawn {
        runtime: String,
        command: String,
        log: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("runtime {runtime}: cannot read the sources in {dir} to hash them: {source}")]
    Hash {
        runtime: String,
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("runtime {runtime}: cannot write {path}: {source}")]
    Write {
        runtime: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "runtime {runtime}: the build succeeded but its declared artifact {path} does not exist; \
         fix `artifact` in the spec or the build commands"
    )]
    MissingArtifact { runtime: String, path: PathBuf },
}
