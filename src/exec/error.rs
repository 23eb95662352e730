//! Why `runner exec` could not run (as opposed to a run that ran and
//! recorded failures, which is an [`crate::exec::RunOutcome`]).
use crate::results::ResultsError;
use crate::spec::SpecErrors;

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("{0}")]
    Spec(SpecErrors),
    #[error(
        "preflight found {} problem(s); nothing was started:\n{}",
        .0.len(),
        .0.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n")
    )]
    Preflight(Vec<String>),
    #[error("{0}")]
    Results(#[from] ResultsError),
    #[error(
        "run {} was started with --quick {} but this resume asks for {}; \
         resume with the same --quick setting, or pass --force to mix durations",
        run.display(),
        recorded.map_or("(none)".to_string(), |f| f.to_string()),
        current.map_or("(none)".to_string(), |f| f.to_string())
    )]
    QuickMismatch {
        run: std::path::PathBuf,
        recorded: Option<u32>,
        current: Option<u32>,
    },
    #[error("cannot install the SIGINT/SIGTERM handlers: {0}")]
    Signals(std::io::Error),
    #[error("{0}; nothing was started")]
    Certificates(#[from] crate::certs::CertError),
}

impl ExecError {
    /// The process exit code: 2 for problems found before anything ran.
    pub fn exit_code(&self) -> u8 {
        match self {
            ExecError::Spec(_) | ExecError::Preflight(_) | ExecError::QuickMismatch { .. } => 2,
            ExecError::Results(ResultsError::SpecChanged { .. } | ResultsError::NotARun { .. }) => {
                2
            }
            _ => 1,
        }
    }
}
