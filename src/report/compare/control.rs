//! A candidate judged against its control measured in the same run
//! (`controls:` in the spec): each candidate configuration against the
//! control's configuration at the same axes, by the rule `compare` applies
//! between runs, with no run-level noise term.
//!
//! Why no run-level term: the run-level noise of `compare A B` is what
//! moves a whole run against another (a host's slow night, a kernel, a
//! neighbour). Candidate and control share the run, and in the
//! alternating order (the plan's order for a spec with `controls`;
//! validation refuses `order: sequential`) every repeat of one is measured
//! beside a repeat of the other, each first in every other round, so a
//! host shift or a trend over the night moves both and cancels in the
//! ratio; what moves one repeat and not its neighbour is in the repeat
//! variance the rule already counts. examples/calibrate-control.rs checks
//! that claim on structures the rule does not model (host shifts, drift
//! within the night, slow repeats and spells, unequal noise, heavy tails)
//! on a held-out seed.
use std::path::Path;

use super::{CompareOptions, Comparison, ReportError, RunRef, Sides, compare, run_ref};
use crate::results::RunData;
use crate::stats::{Floor, RunLevelNoise, RunRepeats, run_repeats};

/// The run's candidates against their controls, as one family of tests
/// (so the error rate holds over every candidate together). `None` when
/// the run's plan names no control.
pub fn judge_against_control(run: &RunData, options: &CompareOptions) -> Option<Comparison> {
    if run.controls.is_empty() {
        return None;
    }
    let repeats = run_repeats(&run.measurements);
    Some(judge_control(
        &repeats,
        &run.controls,
        run_ref(run),
        options,
    ))
}

/// `repeats` of one run (config id -> repeats), its candidates judged
/// against their controls (`pairs`: candidate, control): the whole rule,
/// public so that examples/calibrate-control.rs judges drawn runs by it.
pub fn judge_control(
    repeats: &RunRepeats,
    pairs: &[(String, String)],
    run: RunRef,
    options: &CompareOptions,
) -> Comparison {
    let (controls, candidates) = paired(repeats, pairs);
    let no_run_level = RunLevelNoise::floor(Floor::NONE);
    let sides = Sides {
        a: &controls,
        b: &candidates,
        run_level: &no_run_level,
        within_run: true,
    };
    let a = RunRef {
        run_id: format!("{} (controls)", run.run_id),
        ..run.clone()
    };
    compare(sides, a, run, options, Vec::new())
}

/// The candidates' configurations (side B) and, under the same ids, the
/// control's configuration at the same axes renamed to the candidate
/// (side A). A candidate configuration whose control did not measure its
/// axes stays on side B alone and is listed as such.
fn paired(repeats: &RunRepeats, pairs: &[(String, String)]) -> (RunRepeats, RunRepeats) {
    let (mut controls, mut candidates) = (RunRepeats::new(), RunRepeats::new());
    for (candidate, control) in pairs {
        for (id, config) in repeats.iter().filter(|(_, c)| &c.runtime == candidate) {
            candidates.insert(id.clone(), config.clone());
            let twin = repeats
                .values()
                .find(|c| &c.runtime == control && c.axes == config.axes);
            if let Some(twin) = twin {
                let mut twin = twin.clone();
                twin.runtime = candidate.clone();
                controls.insert(id.clone(), twin);
            }
        }
    }
    (controls, candidates)
}

/// `runner compare --baseline control RUN`: the run's candidates against their
/// controls, rendered as compare renders.
pub fn compare_control_command(
    run_dir: &Path,
    options: &CompareOptions,
) -> Result<super::CompareOutcome, ReportError> {
    let run = RunData::load(run_dir)?;
    let comparison =
        judge_against_control(&run, options).ok_or_else(|| ReportError::NoControl {
            run: run_dir.to_path_buf(),
        })?;
    super::render(&comparison, options, Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::ConfigRepeats;

    fn config(runtime: &str, axes: &str, rps: f64) -> ConfigRepeats {
        ConfigRepeats {
            runtime: runtime.into(),
            axes: axes.into(),
            values: [vec![rps; 3], vec![1.0; 3], vec![2.0; 3]],
            ..Default::default()
        }
    }

    #[test]
    fn each_candidate_configuration_meets_the_control_at_its_axes() {
        let mut run = RunRepeats::new();
        run.insert("new/c=1".into(), config("new", "c=1", 90.0));
        run.insert("new/c=8".into(), config("new", "c=8", 80.0));
        run.insert("old/c=1".into(), config("old", "c=1", 100.0));
        run.insert("old/c=8".into(), config("old", "c=8", 100.0));
        run.insert("other/c=1".into(), config("other", "c=1", 5.0));
        let (a, b) = paired(&run, &[("new".into(), "old".into())]);
        assert_eq!(b.keys().collect::<Vec<_>>(), ["new/c=1", "new/c=8"]);
        assert_eq!(a.keys().collect::<Vec<_>>(), ["new/c=1", "new/c=8"]);
        assert_eq!(a["new/c=8"].runtime, "new");
        assert_eq!(a["new/c=8"].values[0], vec![100.0; 3]);
    }

    #[test]
    fn a_configuration_the_control_lacks_is_left_unpaired() {
        let mut run = RunRepeats::new();
        run.insert("new/c=1".into(), config("new", "c=1", 90.0));
        run.insert("new/c=64".into(), config("new", "c=64", 90.0));
        run.insert("old/c=1".into(), config("old", "c=1", 100.0));
        let (a, b) = paired(&run, &[("new".into(), "old".into())]);
        assert_eq!(a.len(), 1);
        assert_eq!(b.len(), 2);
    }
}
