//! What can go wrong while profiling a window. Each message names the
//! runtime or file and what to do; a failed collector never fails the cell:
//! exec records the message in profiles.csv and goes on.
use std::io;
use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ProfileError {
    #[error(
        "cannot run `{program}` for runtime {runtime}: {cause}; install it or drop the collector from `profile.collect`"
    )]
    Spawn {
        program: String,
        runtime: String,
        cause: io::Error,
    },
    #[error("`{command}` for runtime {runtime} failed ({status}): {output}")]
    Command {
        command: String,
        runtime: String,
        status: String,
        output: String,
    },
    #[error(
        "runtime {runtime}: no JVM found among the service's processes (session {sid}); `jfr`/`async_*` need the service to be a java process"
    )]
    NoJvm { runtime: String, sid: i32 },
    #[error(
        "runtime {runtime}: GET 127.0.0.1:{port}{path} failed: {why}; is the service built with its pprof listener (PPROF=true, PPROF_PORT)?"
    )]
    Http {
        runtime: String,
        port: u16,
        path: String,
        why: String,
    },
    #[error("{path}: {why}")]
    Parse { path: PathBuf, why: String },
    #[error("runtime {runtime}: VM.native_memory summary: {why}")]
    Nmt { runtime: String, why: String },
    #[error("{path}: {cause}")]
    Io { path: PathBuf, cause: io::Error },
    #[error(
        "{path}: {bytes} bytes, above the {max}-byte cap on a profiling artifact; profile a shorter window or fewer cells"
    )]
    TooLarge { path: PathBuf, bytes: u64, max: u64 },
    #[error("{path}: no stacks to draw (the window sampled nothing)")]
    NoStacks { path: PathBuf },
    #[error("flame graph {path}: {why}")]
    FlameGraph { path: PathBuf, why: String },
}

impl ProfileError {
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> ProfileError {
        let path = path.into();
        move |cause| ProfileError::Io { path, cause }
    }
}
