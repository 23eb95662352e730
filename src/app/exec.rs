//! `runner exec`: spec -> plan -> exec -> report. It loads and plans the
//! spec (exec itself never reads YAML), runs the plan with the real driver
//! on the executor's own thread, shows its events on the calling thread,
//! renders the report from the run directory and turns the outcome into an
//! exit code.
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::mpsc::{Sender, channel};

use crate::exec::progress::report_events;
use crate::exec::{Event, ExecError, RunOutcome, RunRequest, run_for_real};
use crate::plan::PlanOptions;

/// What `runner exec` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct ExecOptions {
    pub spec: PathBuf,
    /// `--resume RUN_DIR`.
    pub resume: Option<PathBuf>,
    /// `--force`: resume even though the spec changed.
    pub force: bool,
    /// `--only`, `--quick`, `--repeats`: the cells planned, their durations and repeats.
    pub plan: PlanOptions,
    /// `--label KEY=VALUE`s (checked by `results::provenance::parse_label`).
    pub labels: BTreeMap<String, String>,
    /// `--store` / `RUNNER_STORE`: the results store a complete run is indexed in.
    pub store: Option<crate::store::StoreUrl>,
}

/// Loads and plans `opts.spec`, then runs the plan with real processes.
fn load_and_run(opts: &ExecOptions, events: Sender<Event>) -> Result<RunOutcome, ExecError> {
    let loaded = crate::spec::load(&opts.spec).map_err(ExecError::Spec)?;
    let plan = crate::plan::build(&loaded, &opts.plan).map_err(ExecError::Spec)?;
    let request = RunRequest {
        plan: &plan,
        spec_text: &loaded.text,
        resume: opts.resume.as_deref(),
        force: opts.force,
        labels: &opts.labels,
    };
    run_for_real(&request, events)
}

/// Runs `opts`; returns the process exit code: 0 complete, 1 complete with
/// failed cells or skipped runtimes, a run that could not go on, or a report
/// that could not be written (the measurements are on disk and resumable),
/// 2 nothing started (spec or preflight problems, refused resume),
/// 130 interrupted.
pub fn exec_command(opts: &ExecOptions, err: &mut dyn Write) -> u8 {
    exec_run(opts, err).exit_code
}

/// What `runner exec` ended with, for a command that goes on after it
/// (`runner nightly` judges the run it wrote).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecDone {
    /// See [`exec_command`].
    pub exit_code: u8,
    /// The run directory, when a run started (`None`: nothing started).
    pub run_dir: Option<PathBuf>,
}

impl ExecDone {
    fn nothing_started(exit_code: u8) -> Self {
        ExecDone {
            exit_code,
            run_dir: None,
        }
    }
}

/// [`exec_command`], keeping where the run was written.
pub fn exec_run(opts: &ExecOptions, err: &mut dyn Write) -> ExecDone {
    let (events, rx) = channel();
    let worker_opts = opts.clone();
    let worker = std::thread::Builder::new()
        .name("runner-exec".into())
        .spawn(move || load_and_run(&worker_opts, events));
    let worker = match worker {
        Ok(w) => w,
        Err(e) => {
            let _ = writeln!(err, "error: cannot start the executor thread: {e}");
            return ExecDone::nothing_started(1);
        }
    };
    report_events(rx, err);
    let joined = worker.join();
    // The run is over: the load hosts' sessions and the SSH master
    // connections it shared end now.
    crate::remote::connect::pool::close_all();
    crate::remote::connect::ssh::end_masters();
    let result = match joined {
        Ok(r) => r,
        Err(_) => {
            let _ = writeln!(
                err,
                "error: the executor panicked; the run directory keeps what was recorded"
            );
            return ExecDone::nothing_started(1);
        }
    };
    match result {
        Ok(outcome) => {
            let report = render_report(&outcome, err);
            if let Some(url) = &opts.store {
                crate::app::store::index_after_run(url, &outcome, err);
            }
            if !outcome.skipped.is_empty() || outcome.cells_failed > 0 {
                let _ = writeln!(
                    err,
                    "{} failed cell(s), {} skipped runtime(s): see {}/configurations.csv and measurements.csv",
                    outcome.cells_failed,
                    outcome.skipped.len(),
                    outcome.run_dir.display()
                );
            }
            ExecDone {
                exit_code: exit_code(outcome.exit_code(), report),
                run_dir: Some(outcome.run_dir),
            }
        }
        // Spec problems carry their own `error:` headers and positions.
        Err(e @ ExecError::Spec(_)) => {
            let _ = writeln!(err, "{e}");
            ExecDone::nothing_started(e.exit_code())
        }
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            ExecDone::nothing_started(e.exit_code())
        }
    }
}

/// Whether the report stage wrote its files after the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReportState {
    Written,
    Failed,
}

/// The run's own code, except that a complete run whose report could not be
/// written exits 1: a cron job or CI step must not take a run without its
/// report for a finished one. An interrupted run keeps 130 and a run with
/// failures keeps its 1.
fn exit_code(run_code: u8, report: ReportState) -> u8 {
    match (run_code, report) {
        (0, ReportState::Failed) => 1,
        (code, _) => code,
    }
}

/// The report stage after every run that started (interrupted runs too):
/// summaries, charts and the spec's report templates, from the run
/// directory alone. A report failure is printed with the file and the cause
/// (`ReportError` names both); the run stays valid and resumable, and
/// `runner report RUN_DIR` can render it again.
fn render_report(outcome: &RunOutcome, err: &mut dyn Write) -> ReportState {
    match crate::report::report_command(&outcome.run_dir, &[]) {
        Ok(rendered) => {
            if !rendered.findings.is_empty() {
                let _ = writeln!(err, "findings (details in report.md):");
                for line in &rendered.findings {
                    let _ = writeln!(err, "  {line}");
                }
            }
            let _ = writeln!(
                err,
                "report: {} file(s) written, e.g. {}",
                rendered.files.len(),
                rendered
                    .files
                    .iter()
                    .find(|f| f.extension().is_some_and(|e| e == "md"))
                    .or(rendered.files.first())
                    .map_or_else(String::new, |f| f.display().to_string())
            );
            ReportState::Written
        }
        Err(e) => {
            let _ = writeln!(
                err,
                "error: the report could not be rendered: {e}; the run is complete on disk, \
                 fix the cause and run `runner report {}`",
                outcome.run_dir.display()
            );
            ReportState::Failed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_that_was_not_written_fails_only_a_run_that_would_pass() {
        assert_eq!(exit_code(0, ReportState::Written), 0);
        assert_eq!(exit_code(0, ReportState::Failed), 1);
        assert_eq!(exit_code(1, ReportState::Failed), 1);
        assert_eq!(exit_code(130, ReportState::Failed), 130);
        assert_eq!(exit_code(130, ReportState::Written), 130);
    }
}
