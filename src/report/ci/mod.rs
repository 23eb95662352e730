//! What a CI shows of a verdict: a JUnit XML file (`--junit FILE`) and a
//! GitHub step summary (Markdown appended to `$GITHUB_STEP_SUMMARY`).
//! `runner compare` and `runner history` describe their verdicts as one
//! [`Suite`] of test cases, one per configuration and judged metric; this
//! module only writes them, so every command that judges (and a future
//! `runner nightly`) shares one writer and one mapping of outcomes:
//! a regression fails, "could not tell" is skipped with its reason, the
//! rest passes. docs/guides/ci.md is the user's version.
mod junit;
mod step_summary;

use std::path::PathBuf;

pub use junit::junit_xml;
pub use step_summary::append_step_summary;

use super::error::ReportError;

/// The environment variable GitHub Actions sets to the step summary file.
pub const GITHUB_STEP_SUMMARY: &str = "GITHUB_STEP_SUMMARY";

/// Where the CI outputs of one command go; both absent by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CiOutputs {
    /// `--junit FILE`: written (replaced) with the verdicts as JUnit XML.
    pub junit: Option<PathBuf>,
    /// `$GITHUB_STEP_SUMMARY` when set: the Markdown is appended to it.
    pub step_summary: Option<PathBuf>,
}

impl CiOutputs {
    /// `--junit` as given, and the step summary from the environment (set
    /// and non-empty) -- read at the CLI edge and passed down, so that the
    /// library reads no environment of its own.
    pub fn from_env(junit: Option<PathBuf>) -> Self {
        CiOutputs {
            junit,
            step_summary: std::env::var_os(GITHUB_STEP_SUMMARY)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
        }
    }

    /// Writes what was asked: `suite` as JUnit XML, and `summary` (already
    /// rendered Markdown; built only when a summary is wanted) appended.
    pub fn write(
        &self,
        suite: &Suite,
        summary: impl FnOnce() -> String,
    ) -> Result<(), ReportError> {
        if let Some(path) = &self.junit {
            std::fs::write(path, junit_xml(suite)).map_err(|source| ReportError::CiOutput {
                path: path.clone(),
                what: "JUnit XML (--junit)",
                source,
            })?;
        }
        if let Some(path) = &self.step_summary {
            append_step_summary(path, &summary())?;
        }
        Ok(())
    }
}

/// One command's verdicts: a JUnit test suite.
#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    /// e.g. `runner compare quickstart 20261130T100516Z -> 20261201T100516Z`.
    pub name: String,
    /// What was judged and how (`<properties>`): the run directories,
    /// the thresholds, the outcome.
    pub properties: Vec<(String, String)>,
    pub cases: Vec<Case>,
}

/// One configuration and metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The experiment and runtime, e.g. `quickstart.go-stdlib` (JUnit's
    /// `classname`: reporters group by it).
    pub group: String,
    /// The configuration and metric, e.g. `go-stdlib/payload=7/concurrency=12 throughput`.
    pub name: String,
    pub outcome: CaseOutcome,
}

/// How a test case ended.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseOutcome {
    /// Unchanged, below the threshold or improved: the verdict line.
    Passed { verdict: String },
    /// A regression (or every repeat failed): a JUnit `<failure>`.
    Failed { verdict: String },
    /// Could not tell (inconclusive, no data, no baseline): a JUnit `<skipped>`.
    Skipped { reason: String },
}

impl Suite {
    pub fn failures(&self) -> usize {
        self.count(|o| matches!(o, CaseOutcome::Failed { .. }))
    }

    pub fn skipped(&self) -> usize {
        self.count(|o| matches!(o, CaseOutcome::Skipped { .. }))
    }

    fn count(&self, f: impl Fn(&CaseOutcome) -> bool) -> usize {
        self.cases.iter().filter(|c| f(&c.outcome)).count()
    }
}

/// `B/A 0.810 [0.770, 0.850]`: a verdict line's ratio with its interval,
/// written once for compare's and history's cases (`name`: `B/A`,
/// `newest/baseline`).
pub fn ratio_interval(name: &str, effect: Option<&crate::stats::effect::Effect>) -> String {
    effect.map_or_else(
        || format!("{name} {}", crate::report::analysis::format::MISSING),
        |e| format!("{name} {:.3} [{:.3}, {:.3}]", e.ratio, e.lo, e.hi),
    )
}

/// `, p worse 0.0012 (Holm)`, or nothing without a p.
pub fn holm_p(p_worse: Option<f64>) -> String {
    p_worse.map_or_else(String::new, |p| format!(", p worse {p:.4} (Holm)"))
}
