//! The report stage's typed errors. Every message says what went wrong,
//! where (file, line, template) and what to do about it.
use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ReportError {
    #[error("--baseline history: {0}")]
    History(Box<HistoryError>),
    #[error(
        "--baseline history judges the newest run of {} ({newest}), not {}; pass the \
         experiment directory or that run",
        experiment.display(),
        given.display()
    )]
    NotNewest {
        experiment: PathBuf,
        newest: String,
        given: PathBuf,
    },
    /// A run directory or a template that cannot be read.
    #[error(transparent)]
    Read(#[from] crate::results::RunReadError),

    #[error(
        "{path}: cannot write: {source}; check that the run directory is writable and the disk is not full"
    )]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A CI output (`--junit FILE`, `$GITHUB_STEP_SUMMARY`, `runner export
    /// --output FILE`) that cannot be written.
    #[error(
        "{path}: cannot write the {what}: {source}; check that its folder exists and is \
         writable (the verdict above stands; only this file is missing)"
    )]
    CiOutput {
        path: PathBuf,
        what: &'static str,
        #[source]
        source: std::io::Error,
    },

    #[error(
        "template {template}{}: {detail}\n{debug}\n\
         See docs/templates.md for every context variable and filter.",
        line.map(|l| format!(", line {l}")).unwrap_or_default()
    )]
    Template {
        template: String,
        line: Option<usize>,
        detail: String,
        /// minijinja's debug rendering (source excerpt and the values in scope).
        debug: String,
    },

    #[error(
        "chart {chart}: {detail}; this is a bug in the report stage, please report it with the run directory"
    )]
    Chart { chart: &'static str, detail: String },

    #[error(
        "runs are not comparable:\n{}\nCompare runs of the same spec on the same host and toolchains, \
         or pass --force to compare anyway (the verdicts will then mix in those differences)",
        differences.iter().map(|d| format!("  - {d}")).collect::<Vec<_>>().join("\n")
    )]
    NotComparable { differences: Vec<String> },

    #[error(
        "{}: the run's plan names no control, so there is nothing to judge its runtimes against \
         within it; add `controls: {{ CANDIDATE: CONTROL }}` to the spec (docs/spec.md), or judge \
         the run against its history with `--baseline history`",
        run.display()
    )]
    NoControl { run: std::path::PathBuf },

    #[error(
        "{given:?}: expected a percentage such as `5%` or `2.5%` (between 0 and 100), or `off` for --latency-threshold"
    )]
    Threshold { given: String },
}

impl From<crate::results::CsvReadError> for ReportError {
    fn from(e: crate::results::CsvReadError) -> Self {
        ReportError::Read(e.into())
    }
}

impl ReportError {
    /// Wraps a minijinja error with the template's name, line and debug info
    /// (the undefined name, the source excerpt), following the error chain so
    /// that an error raised inside an included template is not lost.
    pub(crate) fn template(template: &str, err: &minijinja::Error) -> Self {
        let mut innermost = err;
        while let Some(next) =
            std::error::Error::source(innermost).and_then(|s| s.downcast_ref::<minijinja::Error>())
        {
            innermost = next;
        }
        ReportError::Template {
            template: innermost.name().unwrap_or(template).to_string(),
            line: innermost.line(),
            detail: format!("{}: {}", innermost.kind(), innermost.detail().unwrap_or("")),
            debug: innermost.display_debug_info().to_string(),
        }
    }
}

/// Why `runner history` could not read an experiment. Each of these is exit
/// 2 ("unusable input"), never 1, which means "the newest run regressed".
/// Beside `ReportError` because each wraps the other (`--baseline history`
/// and a history report that fails to render).
#[derive(Debug, Error)]
pub enum HistoryError {
    #[error(
        "{path}: cannot list the experiment directory: {source}; pass results/<experiment>/ \
         (the folder holding one directory per run)"
    )]
    ExperimentDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error(
        "{path} is a run directory (it has status.json); `runner history` reads every run of an \
         experiment: pass its parent, {parent}"
    )]
    RunDirGiven { path: PathBuf, parent: PathBuf },

    #[error(
        "{path}: no complete run to judge ({found} run director{} found{}); run `runner exec` \
         to completion at least once, or pass the right results/<experiment>/ directory",
        if *found == 1 { "y" } else { "ies" },
        if left_out.is_empty() { String::new() } else { format!(": {}", left_out.join("; ")) }
    )]
    NoCompleteRun {
        path: PathBuf,
        found: usize,
        /// One line per run left out and why.
        left_out: Vec<String>,
    },

    /// Writing history.md / history.html, or drawing a chart.
    #[error(transparent)]
    Report(#[from] ReportError),

    /// The results store (`--store`): unreachable, or a run in it unreadable.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),

    #[error(
        "{store}: no run of experiment `{experiment}`; index runs with `runner exec --store` or          `runner store import`, or check the experiment's name"
    )]
    NotInStore { store: String, experiment: String },
}
