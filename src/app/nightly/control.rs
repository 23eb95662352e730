//! The night of a spec that names `controls:`: each candidate judged
//! against the control measured beside it in the same run
//! (`report::compare::judge_against_control`), not against the history.
//!
//! Why that verdict pages the same night, with no confirmation: the
//! confirmation rule (`confirm`) exists because a history-only rule cannot
//! tell a host's slow night from a regression on the night it happens. A
//! control shares the night: a slow host slows both, and the ratio between
//! them is what is judged. Only the candidates are judged; a runtime that is
//! neither candidate nor control is measured and reported, not judged
//! (judge it with `runner compare --baseline history`).
use std::path::Path;

use super::confirm::{list, regressed};
use super::outcome::NightlyOutcome;
use super::verdict::{Basis, Controlled, VERDICT_MD, Verdict, moved};
use crate::report::compare::Comparison;
use crate::results::RunData;
use crate::results::provenance::GitSource;

impl Verdict {
    /// The verdict of `run`'s candidates against their controls.
    pub fn of_control(run: &Path, data: &RunData, comparison: Comparison) -> Self {
        let outcome = NightlyOutcome::of_compare(comparison.outcome);
        let controls: Vec<Controlled> = data
            .controls
            .iter()
            .map(|(candidate, control)| Controlled {
                candidate: candidate.clone(),
                control: control.clone(),
                candidate_source: data.environment.sources.get(candidate).cloned(),
                control_source: data.environment.sources.get(control).cloned(),
            })
            .collect();
        let labels = data
            .environment
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>();
        let mut message = message(outcome, run, &comparison, &controls);
        if !labels.is_empty() {
            message.push_str(&format!(" [run labelled {}]", labels.join(", ")));
        }
        Verdict {
            outcome,
            exit_code: outcome.exit_code(),
            message,
            run: Some(run.display().to_string()),
            earlier_runs: 0,
            runs_needed: 0,
            baseline_runs: Vec::new(),
            differences: Vec::new(),
            moved: comparison
                .cells
                .iter()
                .filter(|c| moved(c))
                .cloned()
                .collect(),
            comparison: Some(comparison),
            confirmation: None,
            basis: Basis::Control,
            controls,
        }
    }
}

/// `new at 3f2a1c9 "Cache the parsed body" against old at v1.4.0`: a pair
/// in the words of its commits.
fn pair_words(c: &Controlled) -> String {
    let at = |name: &str, source: &Option<GitSource>| match source {
        Some(s) if s.dirty => format!("{name} at {} with uncommitted changes", s.describe),
        Some(s) => format!("{name} at {} \"{}\"", s.describe, s.subject),
        None => name.to_string(),
    };
    format!(
        "{} against {}",
        at(&c.candidate, &c.candidate_source),
        at(&c.control, &c.control_source)
    )
}

/// The pairs whose candidate is one of `runtimes`, in words; every pair
/// when `runtimes` is empty.
fn pairs_of(controls: &[Controlled], runtimes: &[&str]) -> String {
    controls
        .iter()
        .filter(|c| runtimes.is_empty() || runtimes.contains(&c.candidate.as_str()))
        .map(pair_words)
        .collect::<Vec<_>>()
        .join("; ")
}

/// The one line for a night judged against its controls.
fn message(outcome: NightlyOutcome, run: &Path, c: &Comparison, controls: &[Controlled]) -> String {
    let verdict_md = run.join(VERDICT_MD);
    let verdict_md = verdict_md.display();
    let regressed: Vec<_> = regressed(c).into_iter().map(|(test, _)| test).collect();
    // A cell's runtime is its candidate (the control's side is renamed to it).
    let regressed_runtimes: Vec<&str> = c
        .cells
        .iter()
        .filter(|cell| cell.regressed())
        .map(|cell| cell.runtime.as_str())
        .collect();
    match outcome {
        NightlyOutcome::Regression => format!(
            "nightly: REGRESSION against the control measured in the same run: {} ({}); see \
             {verdict_md} for by how much, then look at the commits between the two",
            list(&regressed),
            pairs_of(controls, &regressed_runtimes)
        ),
        NightlyOutcome::NoRegression => format!(
            "nightly: no regression against the control measured in the same run ({}): \
             nothing to do (details in {verdict_md})",
            pairs_of(controls, &[])
        ),
        NightlyOutcome::Inconclusive if c.cells.is_empty() => format!(
            "nightly: nothing judged: no candidate configuration had its control measured at \
             the same axes in {} ({}); check that each control runs every cell its candidate \
             does",
            run.display(),
            pairs_of(controls, &[])
        ),
        _ => format!(
            "nightly: could not tell for {} configuration(s) against the control measured in \
             the same run ({}): the intervals still reach the threshold; {verdict_md} says how \
             many repeats would settle it",
            c.inconclusive,
            pairs_of(controls, &[])
        ),
    }
}
