//! The run `runner plan` takes its noise figures from: the newest complete
//! run of the experiment measured on this host (same host fingerprint as
//! `compare` checks) with the same `--quick` factor (a quickened run's
//! shorter cells are noisier). Its spec may differ: the plan says so.
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use crate::results::RunData;
use crate::results::{RunState, STATUS_FILE};

/// Why a run directory of the experiment was not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unused {
    /// Running, interrupted or failed: its repeats are partial.
    NotComplete,
    /// Measured on a host with another fingerprint.
    OtherHost,
    /// Run with another `--quick` factor than this plan.
    OtherQuick,
    /// A file of it is missing or damaged.
    Unreadable,
}

impl fmt::Display for Unused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unused::NotComplete => "not complete",
            Unused::OtherHost => "from another host",
            Unused::OtherQuick => "with another --quick factor",
            Unused::Unreadable => "unreadable",
        })
    }
}

/// The run directories not used, counted by why (empty: there were none).
pub type UnusedRuns = BTreeMap<Unused, usize>;

/// The newest usable run under `experiment_dir` (`results/<experiment>`),
/// or why there is none. Newest = latest `started_at` (RFC 3339, UTC), then
/// the directory name (the run id is the start time too).
pub fn last_comparable_run(
    experiment_dir: &Path,
    host_fingerprint: &str,
    quick_factor: Option<u32>,
) -> Result<RunData, UnusedRuns> {
    let mut unused = UnusedRuns::new();
    let mut usable: Vec<RunData> = Vec::new();
    let entries = std::fs::read_dir(experiment_dir).into_iter().flatten();
    for dir in entries.flatten().map(|e| e.path()) {
        if !dir.join(STATUS_FILE).is_file() {
            continue; // not a run (e.g. the build cache)
        }
        let why = match RunData::load(&dir) {
            Err(_) => Some(Unused::Unreadable),
            Ok(run) if run.status.state != RunState::Complete => Some(Unused::NotComplete),
            Ok(run) if run.environment.host.fingerprint() != host_fingerprint => {
                Some(Unused::OtherHost)
            }
            Ok(run) if run.status.quick_factor != quick_factor => Some(Unused::OtherQuick),
            Ok(run) => {
                usable.push(run);
                None
            }
        };
        if let Some(why) = why {
            *unused.entry(why).or_default() += 1;
        }
    }
    usable
        .into_iter()
        .max_by(|a, b| (&a.status.started_at, &a.dir).cmp(&(&b.status.started_at, &b.dir)))
        .ok_or(unused)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn base() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runs/base")
    }

    /// Copies the fixture run `base` to `experiment/name`, editing status.json.
    fn copy_run(experiment: &Path, name: &str, status_edits: &[(&str, &str)]) -> PathBuf {
        let to = experiment.join(name);
        std::fs::create_dir_all(&to).unwrap();
        for file in [
            "status.json",
            "environment.json",
            "configurations.csv",
            "measurements.csv",
            "lifecycle.csv",
            "plan.json",
        ] {
            let mut text = std::fs::read_to_string(base().join(file)).unwrap();
            if file == "status.json" {
                for (from, into) in status_edits {
                    assert!(text.contains(from), "status.json has no {from}");
                    text = text.replace(from, into);
                }
            }
            std::fs::write(to.join(file), text).unwrap();
        }
        to
    }

    fn fixture_host() -> String {
        RunData::load(&base())
            .unwrap()
            .environment
            .host
            .fingerprint()
    }

    #[test]
    fn the_newest_complete_run_of_this_host_is_used_and_the_others_counted() {
        let tmp = tempfile::tempdir().unwrap();
        let exp = tmp.path();
        let started = "\"started_at\": \"2026-11-28T02:00:00Z\"";
        copy_run(exp, "old", &[]);
        let newest = copy_run(
            exp,
            "new",
            &[(started, "\"started_at\": \"2026-11-29T02:00:00Z\"")],
        );
        copy_run(
            exp,
            "newer-but-interrupted",
            &[
                (started, "\"started_at\": \"2026-11-30T02:00:00Z\""),
                ("\"complete\"", "\"interrupted\""),
            ],
        );
        copy_run(
            exp,
            "quick",
            &[("\"quick_factor\": null", "\"quick_factor\": 10")],
        );
        let broken = copy_run(exp, "broken", &[]);
        std::fs::remove_file(broken.join("measurements.csv")).unwrap();
        std::fs::create_dir(exp.join(".build-cache")).unwrap();

        let run = last_comparable_run(exp, &fixture_host(), None).unwrap();
        assert_eq!(run.dir, newest);

        let unused = last_comparable_run(exp, "another host", None).unwrap_err();
        assert_eq!(
            unused,
            UnusedRuns::from([
                (Unused::NotComplete, 1),
                (Unused::OtherHost, 3),
                (Unused::Unreadable, 1)
            ]),
            "the host is checked after completeness, before --quick"
        );
    }

    #[test]
    fn no_experiment_directory_means_no_run_and_nothing_unused() {
        let tmp = tempfile::tempdir().unwrap();
        let unused = last_comparable_run(&tmp.path().join("none"), "h", None).unwrap_err();
        assert!(unused.is_empty());
    }
}
