//! Why `runner exec` could not run (as opposed to a run that ran and
//! recorded failures, which is an [`super::RunOutcome`]).
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
    #[error("cannot install the SIGINT/SIGTERM handlers: {0}")]
    Signals(std::io::Error),
}

impl ExecError {
    /// The process exit code: 2 for problems found before anything ran.
    pub fn exit_code(&self) -> u8 {
        match self {
            ExecError::Spec(_) | ExecError::Preflight(_) => 2,
            ExecError::Results(ResultsError::SpecChanged { .. } | ResultsError::NotARun { .. }) => {
                2
            }
            _ => 1,
        }
    }
}
