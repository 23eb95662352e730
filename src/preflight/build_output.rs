//! After a runtime's build (run or cached): can its start and training
//! commands run now? Preflight leaves their programs to this check when the
//! runtime has a build, because the build may be what writes them
//! (`build: [go build -o /srv/bench/server ./cmd/server]`,
//! `start: /srv/bench/server`); a program still missing here is the build's
//! fault, and the message names that build.
use std::fmt;
use std::path::{Path, PathBuf};

use super::{command_path, program_found};
use crate::plan::{RuntimePlan, toolchains::tools};

/// Programs of a runtime's start or training commands still missing after
/// the build that should have produced them.
#[derive(Debug, Clone, PartialEq)]
pub struct NotBuilt {
    pub runtime: String,
    /// Each missing program with the field of the command that runs it
    /// (`start`, `train.start`, `train.after`).
    pub missing: Vec<(String, &'static str)>,
    /// The build commands, as run.
    pub build: Vec<String>,
    /// The build log.
    pub log: PathBuf,
    /// The build was skipped: its inputs matched the last successful build.
    pub cached: bool,
}

impl std::error::Error for NotBuilt {}

impl fmt::Display for NotBuilt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let missing: Vec<String> = self
            .missing
            .iter()
            .map(|(tool, field)| {
                if Path::new(tool).is_absolute() {
                    format!("`{tool}` (run by `{field}`) does not exist or is not executable")
                } else {
                    format!("`{tool}` (run by `{field}`) is not on PATH")
                }
            })
            .collect();
        let commands: Vec<String> = self.build.iter().map(|c| format!("`{c}`")).collect();
        let (build, remedy) = if self.cached {
            (
                "the build was skipped (inputs unchanged since its last success)",
                "make the build write it there (and declare it as `artifact:`, so that a missing \
                 one forces a rebuild), or fix the command",
            )
        } else {
            (
                "the build",
                "make the build write it there, or fix the command",
            )
        };
        // A bare name is looked up on PATH: most often a program to install
        // (an off-the-shelf server such as nginx), not one the build writes.
        let install = if self.missing.iter().any(|(tool, _)| !tool.contains('/')) {
            "install it (a program looked up on PATH, e.g. from the distribution's packages), or "
        } else {
            ""
        };
        write!(
            f,
            "runtime {}: {} after {build}; the build should have produced it: {} (log: {}); {install}{remedy}",
            self.runtime,
            missing.join(", "),
            commands.join(", "),
            self.log.display()
        )
    }
}

/// Checks the programs of `rt` that its build may produce
/// ([`tools::needed_after_build`]); `log` is the build's log, `cached`
/// whether the build was skipped as unchanged.
pub fn check_built(rt: &RuntimePlan, log: &Path, cached: bool) -> Result<(), NotBuilt> {
    let path = command_path(rt);
    let missing: Vec<(String, &'static str)> = tools::needed_after_build(rt)
        .into_iter()
        .filter(|tool| !program_found(tool, &path))
        .map(|tool| (tool.to_owned(), run_by(rt, tool)))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(NotBuilt {
        runtime: rt.name.clone(),
        missing,
        build: rt.build.clone(),
        log: log.to_path_buf(),
        cached,
    })
}

/// The field of the first command of `rt` that runs `tool`.
fn run_by(rt: &RuntimePlan, tool: &str) -> &'static str {
    let runs = |command: &str| tools::programs([command]).iter().any(|p| p == tool);
    if runs(&rt.start) {
        "start"
    } else if rt.train.as_ref().is_some_and(|t| runs(&t.start)) {
        "train.start"
    } else {
        "train.after"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn not_built(cached: bool) -> NotBuilt {
        NotBuilt {
            runtime: "go".into(),
            missing: vec![("/srv/bench/server".into(), "start")],
            build: vec!["go generate".into(), "go build -o /srv/bench/srv".into()],
            log: "/r/logs/build-go.log".into(),
            cached,
        }
    }

    #[test]
    fn names_the_program_the_build_and_its_log() {
        assert_eq!(
            not_built(false).to_string(),
            "runtime go: `/srv/bench/server` (run by `start`) does not exist or is not executable \
             after the build; the build should have produced it: `go generate`, \
             `go build -o /srv/bench/srv` (log: /r/logs/build-go.log); \
             make the build write it there, or fix the command"
        );
    }

    #[test]
    fn a_program_looked_up_on_path_is_said_to_be_installed() {
        let bare = NotBuilt {
            missing: vec![("nginx".into(), "start")],
            ..not_built(false)
        };
        let text = bare.to_string();
        assert!(
            text.contains("`nginx` (run by `start`) is not on PATH after the build")
                && text.contains("; install it (a program looked up on PATH, e.g. from the distribution's packages), or make the build write it there"),
            "{text}"
        );
        // A path stays the build's to produce.
        assert!(!not_built(false).to_string().contains("install it"));
    }

    #[test]
    fn a_cached_build_is_named_as_skipped_with_the_way_to_force_it() {
        let text = not_built(true).to_string();
        assert!(
            text.contains("after the build was skipped (inputs unchanged since its last success)")
                && text
                    .contains("declare it as `artifact:`, so that a missing one forces a rebuild"),
            "{text}"
        );
    }
}
