//! `runner nightly SPEC`: tonight's run exactly as `runner exec` makes it,
//! then that run judged against the earlier runs of its own experiment
//! directory by `runner compare --baseline history`'s rule, in-process.
//! The directory judged is the one exec wrote to, so a spec whose
//! `results:` points elsewhere cannot be judged against the wrong folder;
//! and every way the night can end has its own non-zero exit code except a
//! judged "no regression" (`outcome`), so a scheduler fails closed.
use std::io::Write;
use std::path::Path;

mod confirm;
mod control;
mod outcome;
mod verdict;

pub use confirm::{Confirmation, Test};
pub use outcome::NightlyOutcome;
pub use verdict::{Basis, Controlled, EARLIER_RUNS_NEEDED, VERDICT_JSON, VERDICT_MD, Verdict};

use super::exec::{ExecOptions, exec_run};
use crate::report::ReportError;
use crate::report::ci::CiOutputs;
use crate::report::compare::{
    CompareFormat, CompareOptions, Outcome, RunAgainstHistory, judge_against_control,
    judge_previous_run, judge_run_against_history,
};
use crate::stats::DEFAULT_FLOOR;

/// Runs the night; returns its exit code ([`NightlyOutcome::exit_code`]).
/// The last line on `err` is the verdict's message.
pub fn nightly_command(opts: &ExecOptions, err: &mut dyn Write) -> u8 {
    let done = exec_run(opts, err);
    let verdict = match (NightlyOutcome::of_exec(done.exit_code), &done.run_dir) {
        (Some(outcome), run) => unjudged_run(outcome, done.exit_code, &opts.spec, run.as_deref()),
        (None, Some(run)) => judge(run),
        (None, None) => Verdict::unjudged(
            NightlyOutcome::CouldNotJudge,
            "nightly: runner exec reported success but named no run directory; \
             nothing was judged, report this as a bug"
                .to_string(),
            None,
        ),
    };
    finish(verdict, err)
}

/// Compare's defaults (docs/compare.md): 5% throughput, 10% p99, the
/// run-level noise floor until the history estimates it. Public so that
/// examples/calibrate-control.rs judges with exactly these.
pub fn compare_options() -> CompareOptions {
    CompareOptions {
        threshold: 0.05,
        latency_threshold: Some(0.10),
        run_noise: DEFAULT_FLOOR,
        force: false,
        format: CompareFormat::Md,
        ci: CiOutputs::default(),
    }
}

/// The complete run read against the controls measured in it when its
/// plan names any (`control`), else against its experiment's history, a
/// regression then checked against the night before (`confirm`). Public so
/// that a run made apart from `nightly_command` is judged by the same code.
pub fn judge(run: &Path) -> Verdict {
    // A run that cannot be read falls through: the history's reader names the problem.
    if let Ok(data) = crate::results::RunData::load(run)
        && let Some(comparison) = judge_against_control(&data, &compare_options())
    {
        return Verdict::of_control(run, &data, comparison);
    }
    match judge_with_confirmation(run) {
        Ok((judged, confirmation)) => Verdict::of_history(run, judged, confirmation),
        Err(e) => Verdict::unjudged(
            NightlyOutcome::CouldNotJudge,
            format!(
                "nightly: the run {} is complete but could not be judged: {e}; fix that, then \
                 `runner compare --baseline history {}`",
                run.display(),
                run.parent().unwrap_or(run).display()
            ),
            Some(run),
        ),
    }
}

/// Tonight judged and, when it regressed, the night before judged against
/// the runs before it.
fn judge_with_confirmation(
    run: &Path,
) -> Result<(RunAgainstHistory, Option<Confirmation>), ReportError> {
    let options = compare_options();
    let judged = judge_run_against_history(run, &options)?;
    if judged.comparison.outcome != Outcome::Regression {
        return Ok((judged, None));
    }
    let previous = judge_previous_run(run, &options)?;
    let confirmation = Confirmation::of(&judged.comparison, previous.as_ref());
    Ok((judged, Some(confirmation)))
}

/// A night whose run did not complete: nothing is judged.
fn unjudged_run(
    outcome: NightlyOutcome,
    exec_code: u8,
    spec: &Path,
    run: Option<&Path>,
) -> Verdict {
    let message = match (outcome, run) {
        (NightlyOutcome::NotStarted, _) => format!(
            "nightly: no run started for {} (runner exec exit {exec_code}): fix the problem \
             printed above; nothing was judged",
            spec.display()
        ),
        (NightlyOutcome::Interrupted, Some(run)) => format!(
            "nightly: the run {} was interrupted; nothing was judged: resume it with \
             `runner exec {} --resume {}`",
            run.display(),
            spec.display(),
            run.display()
        ),
        (_, Some(run)) => format!(
            "nightly: the run {} failed or is incomplete (runner exec exit {exec_code}); \
             nothing was judged: see the errors above and its configurations.csv",
            run.display()
        ),
        (_, None) => format!(
            "nightly: the run of {} could not go on (runner exec exit {exec_code}); nothing \
             was judged: see the error above",
            spec.display()
        ),
    };
    Verdict::unjudged(outcome, message, run)
}

/// Writes the verdict files (when there is a run directory) and prints the
/// message; a verdict that cannot be written is itself "could not judge".
fn finish(verdict: Verdict, err: &mut dyn Write) -> u8 {
    let Some(run) = verdict.run.clone() else {
        let _ = writeln!(err, "{}", verdict.message);
        return verdict.exit_code;
    };
    match verdict.write(Path::new(&run)) {
        Ok(()) => {
            rerender_with_verdict(Path::new(&run), err);
            let _ = writeln!(err, "{}", verdict.message);
            verdict.exit_code
        }
        Err(e) => {
            let _ = writeln!(err, "{}", verdict.message);
            let _ = writeln!(err, "error: {e}");
            NightlyOutcome::CouldNotJudge.exit_code()
        }
    }
}

/// Renders the run's report again (its own templates), now that the
/// verdict files exist, so report.md and report.html open with the
/// verdict. A report that cannot be rendered leaves the verdict and the
/// exit code as they are: the judgement stands, and the warning says how
/// to retry.
fn rerender_with_verdict(run: &Path, err: &mut dyn Write) {
    if let Err(e) = crate::report::report_command(run, &[]) {
        let _ = writeln!(
            err,
            "warning: the report of {} does not show the verdict: {e}; `runner report {}` \
             renders it again",
            run.display(),
            run.display()
        );
    }
}
