//! `runner exec`: the executor on its own thread, its events shown on the
//! calling thread, the outcome turned into an exit code.
use std::io::Write;
use std::sync::mpsc::channel;

use super::progress::report_events;
use super::run::{ExecOptions, RunOutcome, run};

/// Runs `opts`; returns the process exit code: 0 complete, 1 complete with
/// failed cells or skipped runtimes (or a run that could not go on),
/// 2 nothing started (spec or preflight problems, refused resume),
/// 130 interrupted.
pub fn exec_command(opts: &ExecOptions, err: &mut dyn Write) -> u8 {
    let (events, rx) = channel();
    let worker_opts = opts.clone();
    let worker = std::thread::Builder::new()
        .name("runner-exec".into())
        .spawn(move || run(&worker_opts, events));
    let worker = match worker {
        Ok(w) => w,
        Err(e) => {
            let _ = writeln!(err, "error: cannot start the executor thread: {e}");
            return 1;
        }
    };
    report_events(rx, err);
    let result = match worker.join() {
        Ok(r) => r,
        Err(_) => {
            let _ = writeln!(
                err,
                "error: the executor panicked; the run directory keeps what was recorded"
            );
            return 1;
        }
    };
    match result {
        Ok(outcome) => {
            render_report(&outcome, err);
            if !outcome.skipped.is_empty() || outcome.cells_failed > 0 {
                let _ = writeln!(
                    err,
                    "{} failed cell(s), {} skipped runtime(s): see {}/configurations.csv and measurements.csv",
                    outcome.cells_failed,
                    outcome.skipped.len(),
                    outcome.run_dir.display()
                );
            }
            outcome.exit_code()
        }
        // Spec problems carry their own `error:` headers and positions.
        Err(e @ super::ExecError::Spec(_)) => {
            let _ = writeln!(err, "{e}");
            e.exit_code()
        }
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            e.exit_code()
        }
    }
}

/// The report stage after every run that started (interrupted runs too):
/// summaries, charts and the spec's report templates, from the run
/// directory alone. A report failure is printed; the run stays valid and
/// `runner report RUN_DIR` can render it again.
fn render_report(outcome: &RunOutcome, err: &mut dyn Write) {
    match crate::report::report_command(&outcome.run_dir, &[]) {
        Ok(rendered) => {
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
        }
        Err(e) => {
            let _ = writeln!(
                err,
                "error: the report could not be rendered: {e}; the run is complete on disk, \
                 fix the cause and run `runner report {}`",
                outcome.run_dir.display()
            );
        }
    }
}
