//! A page only for a confirmed change: tonight's regression pages (exit 1)
//! when the night before, judged against the runs before it by the same
//! rule, showed the same configuration's same metric worse too; alone it is
//! an unconfirmed excursion (its own outcome and exit code), which the next
//! night confirms or clears.
//!
//! Why the next night and not a re-measurement tonight: what a history-only
//! rule cannot tell from a regression on the night it happens is a host's
//! slow night (another tenant, a thermal state, a noisy neighbour), and a
//! re-measurement the same night shares that state; the next night does
//! not. It costs no wall time and delays a page by one night. A
//! configuration whose every repeat failed tonight is not noise: it pages
//! at once. docs/guides/nightly-regression-checks.md gives the figures.
use serde::Serialize;

use crate::report::compare::{CellChange, Comparison, RunAgainstHistory};
use crate::stats::{Judged, Verdict as MetricVerdict};

/// One judged test: a configuration and a metric.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Test {
    pub config_id: String,
    /// `throughput` or `p99`.
    pub metric: &'static str,
}

/// Which of tonight's regressions the night before agrees with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Confirmation {
    /// The run judged as the night before (the run before tonight's), and
    /// the runs it was judged against; `None` when tonight's is the first
    /// run after the baseline, so there was no night before to agree.
    pub previous_run: Option<String>,
    pub previous_baseline_runs: Vec<String>,
    /// Tonight's regressions the night before also showed, and tonight's
    /// failures (every repeat failed): these page.
    pub confirmed: Vec<Test>,
    /// Tonight's regressions the night before did not show: not paged yet.
    pub unconfirmed: Vec<Test>,
}

impl Confirmation {
    /// Tonight's regressions split by whether `previous` (the night before,
    /// judged against its own history) shows each too.
    pub fn of(tonight: &Comparison, previous: Option<&RunAgainstHistory>) -> Self {
        let before = previous
            .map(|p| regressed(&p.comparison))
            .unwrap_or_default();
        let (mut confirmed, mut unconfirmed) = (Vec::new(), Vec::new());
        for (test, verdict) in regressed(tonight) {
            let agrees = before.iter().any(|(t, _)| *t == test);
            if verdict == MetricVerdict::Failed || agrees {
                confirmed.push(test);
            } else {
                unconfirmed.push(test);
            }
        }
        Confirmation {
            previous_run: previous.map(|p| p.comparison.b.run_id.clone()),
            previous_baseline_runs: previous.map_or_else(Vec::new, |p| p.baseline_runs.clone()),
            confirmed,
            unconfirmed,
        }
    }

    /// Whether anything pages tonight.
    pub fn pages(&self) -> bool {
        !self.confirmed.is_empty()
    }
}

/// The judged tests of a comparison that regressed (or failed), in order.
pub(super) fn regressed(comparison: &Comparison) -> Vec<(Test, MetricVerdict)> {
    comparison
        .cells
        .iter()
        .flat_map(|cell: &CellChange| {
            [("throughput", &cell.throughput), ("p99", &cell.p99)]
                .into_iter()
                .filter(|(_, judged): &(&str, &Judged)| judged.verdict.is_regression())
                .map(|(metric, judged)| {
                    (
                        Test {
                            config_id: cell.config_id.clone(),
                            metric,
                        },
                        judged.verdict,
                    )
                })
        })
        .collect()
}

/// `config metric, config metric`: the tests as a line names them.
pub fn list(tests: &[Test]) -> String {
    tests
        .iter()
        .map(|t| format!("{} {}", t.config_id, t.metric))
        .collect::<Vec<_>>()
        .join(", ")
}
