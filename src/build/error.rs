//! Build errors: which runtime, which command, which log to read.
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Boxed: the details are large and failures are rare.
    #[error("{0}")]
    CommandFailed(Box<FailedCommand>),
    #[error("runtime {runtime}: cannot run build command `{command}`: {source}; see {log}")]
    Spawn {
        runtime: String,
        command: String,
        log: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("runtime {runtime}: command `{command}` stopped: the runner was interrupted")]
    Cancelled { runtime: String, command: String },
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

/// A command that exited non-zero.
#[derive(Debug)]
pub struct FailedCommand {
    pub runtime: String,
    pub command: String,
    pub status: String,
    pub dir: PathBuf,
    pub log: PathBuf,
    pub tail: String,
}

impl std::fmt::Display for FailedCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "runtime {}: command `{}` failed ({}) in {}; see {}; last lines:\n{}",
            self.runtime,
            self.command,
            self.status,
            self.dir.display(),
            self.log.display(),
            self.tail
        )
    }
}
