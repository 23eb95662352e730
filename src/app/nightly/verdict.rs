//! verdict.json and verdict.md: the night's answer, kept in the run
//! directory beside the measurements, so a later reader (or a mail body)
//! sees what was judged, against which runs, and what moved, without
//! rerunning anything. The comparison is compare's own JSON structure.
use std::path::{Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

use super::confirm::{Confirmation, list};
use super::outcome::NightlyOutcome;
use crate::report::compare::{CellChange, Comparison, RunAgainstHistory, markdown};
use crate::results::provenance::GitSource;
use crate::stats::Verdict as MetricVerdict;

/// The file names in the run directory.
pub const VERDICT_JSON: &str = "verdict.json";
pub const VERDICT_MD: &str = "verdict.md";

/// Comparable earlier runs the history rule needs before it can pool a
/// baseline: with one earlier run the last stable regime is that run
/// (`report::history::judge::baseline`); with none there is nothing.
pub const EARLIER_RUNS_NEEDED: usize = 1;

/// The night's verdict as verdict.json holds it.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub outcome: NightlyOutcome,
    pub exit_code: u8,
    /// The one line printed last: what happened and what to do.
    pub message: String,
    /// Tonight's run directory; `None` when nothing started.
    pub run: Option<String>,
    pub earlier_runs: usize,
    pub runs_needed: usize,
    /// The run ids of the baseline judged against, oldest first.
    pub baseline_runs: Vec<String>,
    /// Not comparable: what differs from the newest earlier run.
    pub differences: Vec<String>,
    /// Configurations whose throughput or p99 regressed or improved.
    pub moved: Vec<CellChange>,
    /// `runner compare --baseline history --format json`'s comparison.
    pub comparison: Option<Comparison>,
    /// When something regressed tonight: which of it the night before
    /// agrees with (those page) and which not (not yet).
    pub confirmation: Option<Confirmation>,
    /// What tonight was judged against: its history, or the controls
    /// measured beside its candidates (then `controls` names them).
    pub basis: Basis,
    /// Each candidate and its control, with the commits they measured.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub controls: Vec<Controlled>,
}

/// A candidate and its control, each with the commit it measured
/// (environment.json's `sources`; `None`: not built from git).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Controlled {
    pub candidate: String,
    pub control: String,
    pub candidate_source: Option<GitSource>,
    pub control_source: Option<GitSource>,
}

/// What a night is judged against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// The earlier runs of its experiment directory (`compare --baseline history`).
    History,
    /// The controls measured in the same run (`compare --baseline control`).
    Control,
}

/// verdict.json or verdict.md could not be written.
#[derive(Debug, Error)]
#[error("{path}: cannot write the verdict: {source}; check that the run directory is writable")]
pub struct VerdictWriteError {
    path: PathBuf,
    #[source]
    source: std::io::Error,
}

impl Verdict {
    /// A night that ended without a judgement (`outcome` not a compare verdict).
    pub fn unjudged(outcome: NightlyOutcome, message: String, run: Option<&Path>) -> Self {
        Verdict {
            outcome,
            exit_code: outcome.exit_code(),
            message,
            run: run.map(|r| r.display().to_string()),
            earlier_runs: 0,
            runs_needed: EARLIER_RUNS_NEEDED,
            baseline_runs: Vec::new(),
            differences: Vec::new(),
            moved: Vec::new(),
            comparison: None,
            confirmation: None,
            basis: Basis::History,
            controls: Vec::new(),
        }
    }

    /// The verdict of a run read against its history: no history yet, not
    /// comparable, or compare's own outcome, a regression paged only where
    /// `confirmation` (present when tonight regressed) confirms it.
    pub fn of_history(
        run: &Path,
        judged: RunAgainstHistory,
        confirmation: Option<Confirmation>,
    ) -> Self {
        let experiment_dir = run.parent().unwrap_or(run).display().to_string();
        let (outcome, differences) = classify(&judged, confirmation.as_ref());
        let night = Night {
            run,
            experiment_dir: &experiment_dir,
            judged: &judged,
            confirmation: confirmation.as_ref(),
        };
        let message = message(outcome, &night, &differences);
        let moved = judged
            .comparison
            .cells
            .iter()
            .filter(|c| moved(c))
            .cloned()
            .collect();
        let judged_fully = matches!(
            outcome,
            NightlyOutcome::NoRegression
                | NightlyOutcome::Regression
                | NightlyOutcome::Unconfirmed
                | NightlyOutcome::Inconclusive
        );
        Verdict {
            outcome,
            exit_code: outcome.exit_code(),
            message,
            run: Some(run.display().to_string()),
            earlier_runs: judged.earlier_runs,
            runs_needed: EARLIER_RUNS_NEEDED,
            baseline_runs: judged.baseline_runs,
            differences,
            moved,
            comparison: judged_fully.then_some(judged.comparison),
            confirmation: confirmation.filter(|_| judged_fully),
            basis: Basis::History,
            controls: Vec::new(),
        }
    }

    /// verdict.md: the one-line summary, the message, then compare's Markdown.
    pub fn markdown(&self) -> String {
        let improvements = self.comparison.as_ref().map_or(0, |c| c.improvements);
        let against = match self.basis {
            Basis::Control => "judged against the controls measured in the same run".to_string(),
            Basis::History => format!(
                "compared with {} earlier run{}",
                self.baseline_runs.len(),
                if self.baseline_runs.len() == 1 {
                    ""
                } else {
                    "s"
                }
            ),
        };
        let short = match (self.basis, self.outcome) {
            (Basis::Control, NightlyOutcome::Regression) => "slower than its control",
            (_, outcome) => outcome.short(improvements),
        };
        let mut text = format!("{against}: {short}\n\n{}\n", self.message);
        if let Some(confirmation) = &self.confirmation {
            text.push_str(&confirmation_lines(confirmation));
        }
        if let Some(comparison) = &self.comparison {
            text.push('\n');
            text.push_str(&markdown(comparison));
        }
        text
    }

    /// Writes verdict.json and verdict.md into `run_dir`.
    pub fn write(&self, run_dir: &Path) -> Result<(), VerdictWriteError> {
        let json = serde_json::to_string_pretty(&crate::results::versioned(self))
            .expect("plain data serializes")
            + "\n";
        write(&run_dir.join(VERDICT_JSON), &json)?;
        write(&run_dir.join(VERDICT_MD), &self.markdown())
    }
}

/// verdict.md's lines on what pages and what waits for the next night.
fn confirmation_lines(c: &Confirmation) -> String {
    let previous = c.previous_run.as_deref().unwrap_or("none");
    let mut text = String::new();
    if !c.confirmed.is_empty() {
        text += &format!(
            "\n- paged, the night before ({previous}) agrees or every repeat failed: {}\n",
            list(&c.confirmed)
        );
    }
    if !c.unconfirmed.is_empty() {
        text += &format!(
            "\n- not confirmed, the night before ({previous}) did not show it: {}\n",
            list(&c.unconfirmed)
        );
    }
    text
}

fn write(path: &Path, text: &str) -> Result<(), VerdictWriteError> {
    std::fs::write(path, text).map_err(|source| VerdictWriteError {
        path: path.to_path_buf(),
        source,
    })
}

/// No comparable earlier run: "not comparable" when complete runs were set
/// apart for differing (naming the newest one's differences), else "no
/// history yet"; otherwise compare's outcome, a regression that nothing
/// confirms being "unconfirmed".
fn classify(
    judged: &RunAgainstHistory,
    confirmation: Option<&Confirmation>,
) -> (NightlyOutcome, Vec<String>) {
    if judged.earlier_runs >= EARLIER_RUNS_NEEDED && !judged.baseline_runs.is_empty() {
        let outcome = match NightlyOutcome::of_compare(judged.comparison.outcome) {
            NightlyOutcome::Regression if !confirmation.is_some_and(Confirmation::pages) => {
                NightlyOutcome::Unconfirmed
            }
            outcome => outcome,
        };
        return (outcome, Vec::new());
    }
    match judged.breaks.last() {
        Some(newest_break) if judged.earlier_runs == 0 => (
            NightlyOutcome::NotComparable,
            newest_break.differences.clone(),
        ),
        _ => (NightlyOutcome::NoHistoryYet, Vec::new()),
    }
}

pub(super) fn moved(cell: &CellChange) -> bool {
    [&cell.throughput, &cell.p99]
        .iter()
        .any(|m| m.verdict.is_regression() || m.verdict == MetricVerdict::Improvement)
}

/// What the message of a judged night is about.
struct Night<'a> {
    run: &'a Path,
    experiment_dir: &'a str,
    judged: &'a RunAgainstHistory,
    confirmation: Option<&'a Confirmation>,
}

/// The one line for an outcome read from the history.
fn message(outcome: NightlyOutcome, night: &Night, differences: &[String]) -> String {
    let (run, experiment_dir, judged) = (night.run, night.experiment_dir, night.judged);
    let c = &judged.comparison;
    let n = judged.baseline_runs.len();
    let verdict_md = run.join(VERDICT_MD);
    let verdict_md = verdict_md.display();
    let previous = night
        .confirmation
        .and_then(|c| c.previous_run.clone())
        .unwrap_or_else(|| "none: tonight's is the first run after the baseline".to_string());
    let tests = |pick: fn(&Confirmation) -> &Vec<super::confirm::Test>| {
        night
            .confirmation
            .map(|c| list(pick(c)))
            .unwrap_or_default()
    };
    match outcome {
        NightlyOutcome::NoRegression => format!(
            "nightly: no regression against {n} earlier run(s) of {experiment_dir}: \
             nothing to do (details in {verdict_md})"
        ),
        NightlyOutcome::Regression => format!(
            "nightly: REGRESSION, confirmed by the night before ({previous}): {} against {n} \
             earlier run(s) of {experiment_dir}; see {verdict_md} for by how much, then look \
             at what changed between the runs before and after it",
            tests(|c| &c.confirmed)
        ),
        NightlyOutcome::Unconfirmed => format!(
            "nightly: slower tonight, not confirmed: {} against {n} earlier run(s) of \
             {experiment_dir}, which the night before ({previous}) did not show; not paged: \
             if the next night agrees it pages (exit 1), else it was one slow night \
             (details in {verdict_md})",
            tests(|c| &c.unconfirmed)
        ),
        NightlyOutcome::Inconclusive => format!(
            "nightly: could not tell for {} configuration(s) against {n} earlier run(s) of \
             {experiment_dir}: the intervals still reach the threshold; {verdict_md} says how \
             many repeats would settle it, or let more nights build the history",
            c.inconclusive
        ),
        NightlyOutcome::NoHistoryYet => format!(
            "nightly: no history yet: {} earlier comparable run(s) in {experiment_dir}, \
             {EARLIER_RUNS_NEEDED} needed; tonight's run {} is kept and the next night is \
             judged against it",
            judged.earlier_runs,
            run.display()
        ),
        NightlyOutcome::NotComparable => format!(
            "nightly: not comparable: none of the {} earlier complete run(s) in {experiment_dir} \
             matches tonight's ({}); if the change was intended the history restarts from \
             tonight, else restore the host, toolchain or spec",
            judged.breaks.len(),
            differences.join("; ")
        ),
        _ => format!("nightly: {}", outcome.short(0)),
    }
}
