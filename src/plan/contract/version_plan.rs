//! A `version:` command as planned (resolved by [`crate::plan::keys::versions`]).
use std::path::PathBuf;

use serde::Serialize;

/// One version command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VersionPlan {
    /// What it names, as reports and compare say it: `runtime nginx`,
    /// `dependency db`.
    pub subject: String,
    /// Where it runs (the runtime's or dependency's `dir`).
    pub dir: PathBuf,
    /// A shell command (`sh -c`); its output's first line is the version.
    pub command: String,
}

impl VersionPlan {
    /// The command naming the version of `subject`, if it has one.
    pub fn of<'p>(versions: &'p [VersionPlan], subject: &str) -> Option<&'p str> {
        versions
            .iter()
            .find(|v| v.subject == subject)
            .map(|v| v.command.as_str())
    }
}
