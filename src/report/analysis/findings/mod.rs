//! Findings: what a run establishes about its runtimes, in sentences, each
//! with its figure and interval, and what it leaves open with what would
//! decide it. First in report.md, report.html, findings.json and the end
//! of `runner exec`.
//!
//! The statistics are `stats::findings` (the four figures per repeat, every
//! question answered with a simultaneous interval; the family's error
//! control is stated there). Here they are worded:
//! - `sentences`: a pair's (or a group's) answers in words;
//! - `select`: which sentences a figure gets (runtimes ranked, grouped
//!   where they cannot be told apart).
//!
//! This file: the findings of a run and the conditions that bound them. On a host the
//! generator or other processes crowded, the measures co-location distorts
//! least come first and throughput is qualified.
mod select;
mod sentences;

use serde::Serialize;

pub use crate::stats::findings::{Family, Measure};
pub use sentences::{Finding, Kind};

use crate::report::analysis::efficiency::HostShare;
use crate::report::analysis::format::pct;
use crate::report::analysis::summary::Summary;
use crate::results::RunData;
use crate::stats::findings::{answer_all, point_repeats};

/// Repeats per configuration below which the findings state few of the
/// differences there are: the bound on false findings holds, but a point's
/// own noise rests on one degree of freedom a side
/// (examples/calibrate-findings.rs).
pub const FEW_REPEATS: u32 = 3;

/// Share of the host other processes took above which the host counts as crowded.
pub const CROWDED_BY_OTHERS: f64 = 0.25;

/// How the findings are chosen, quoted under them.
pub const FINDINGS_RULE: &str = "Each finding compares two runtimes on one figure: the ratio of \
the geometric means of their repeats, averaged (on the log scale) over the points of the axes both \
ran. Its interval is the wider of two: one whose points' noise is moderated toward the figure's \
noise over every runtime's points (as `runner compare` does, never below its pool), and one from \
each point's own repeats alone, which holds when points differ in noise. \
Every comparison a finding could state (each pair, figure, and each value of each axis) is one \
family, and every interval is simultaneous across it (Bonferroni): the chance that any of them \
misses its true ratio is at most 5%. A lead is stated only when its interval excludes 1; \
\"cannot be told apart\" comes with the repeats that would decide it at this run's noise.";

/// One figure's findings.
#[derive(Debug, Clone, Serialize)]
pub struct MeasureFindings {
    pub measure: Measure,
    pub label: &'static str,
    /// `` `a` > `b` ≈ `c` `` (better first) with three or more runtimes.
    pub ordering: Option<String>,
    /// Why the figure is to be read with care here (throughput on a crowded host).
    pub caveat: Option<String>,
    /// Why nothing is stated on it (no noise estimate).
    pub missing: Option<String>,
    pub findings: Vec<Finding>,
}

/// The run's findings.
#[derive(Debug, Clone, Serialize)]
pub struct Findings {
    /// Why the host counts as crowded, when it does (then the robust figures lead).
    pub crowded: Option<String>,
    pub measures: Vec<MeasureFindings>,
    /// What bounds the findings: host, pinning, repeats, suspect share.
    pub conditions: Vec<String>,
    /// Questions in the family and the level of every interval.
    pub family: usize,
    pub level: f64,
    pub rule: &'static str,
}

impl Findings {
    /// The findings of a run; `None` with fewer than two runtimes measured.
    pub fn of(run: &RunData, summary: &Summary) -> Option<Findings> {
        let points = point_repeats(&run.measurements);
        let runtimes: Vec<String> = (summary.runtimes.iter())
            .filter(|rt| points.iter().any(|p| &p.runtime == rt))
            .cloned()
            .collect();
        if runtimes.len() < 2 {
            return None;
        }
        let family = answer_all(&runtimes, &points, looks_of(run));
        let crowded = summary.host_share.as_ref().and_then(crowded);
        let order = if crowded.is_some() {
            Measure::ROBUST_FIRST
        } else {
            Measure::ALL
        };
        let measures = order
            .into_iter()
            .filter_map(|m| {
                let has_values = points.iter().any(|p| !p.of(m).is_empty());
                has_values
                    .then(|| select::measure_findings(&family, &runtimes, &points, m, &crowded))
            })
            .collect();
        Some(Findings {
            conditions: conditions(run, summary),
            crowded,
            measures,
            family: family.answers.len(),
            level: family.level,
            rule: FINDINGS_RULE,
        })
    }

    /// Every sentence, in report order, as plain lines (`runner exec`'s end).
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for m in &self.measures {
            let head = match &m.ordering {
                Some(o) => format!("{}: {o}", m.label),
                None => m.label.to_string(),
            };
            out.push(head.replace('`', ""));
            for text in
                (m.caveat.iter().chain(&m.missing)).chain(m.findings.iter().map(|f| &f.text))
            {
                out.push(format!("  - {}", text.replace('`', "")));
            }
        }
        out
    }
}

/// The looks a run's design took at its data: one per round from `min` to
/// `max` of `repeats: { until: decided }` (repeats.csv), else 1.
pub fn looks_of(run: &RunData) -> usize {
    run.repeats
        .iter()
        .filter(|r| r.until.is_some())
        .map(|r| crate::stats::findings::looks(r.min, r.max))
        .max()
        .unwrap_or(1)
}

/// Why co-location makes throughput unreliable in this run, if it does:
/// the generator took more than its limit of the host in at least half the
/// repeats (a few crowded repeats are the suspect list's business), or
/// other processes took more than [`CROWDED_BY_OTHERS`].
fn crowded(share: &HostShare) -> Option<String> {
    if share.advice.is_some() && share.cells_over_limit * 2 >= share.cells {
        return Some(format!(
            "the load generator took more than a quarter of the host's CPU in {} of {} repeats \
             (at most {})",
            share.cells_over_limit,
            share.cells,
            pct(share.generator_share_max, 0, false)
        ));
    }
    share
        .others_share
        .filter(|o| *o > CROWDED_BY_OTHERS)
        .map(|o| {
            format!(
                "other processes took {} of the host's CPU",
                pct(o, 0, false)
            )
        })
}

/// What bounds the findings.
fn conditions(run: &RunData, summary: &Summary) -> Vec<String> {
    let host = &run.environment.host;
    let mut out = vec![format!(
        "Host `{}`: {}, {} CPUs; {}.",
        host.hostname,
        host.cpu_model,
        host.logical_cpus,
        match &run.pinning {
            Some(p) => format!("pinned: {p}"),
            None => "generator and services not pinned to CPUs".to_string(),
        }
    )];
    // Usable repeats per configuration, as the "Every cell" table counts them.
    let repeats = || summary.cells.iter().map(|c| c.repeats as u32);
    let (lo, hi) = (repeats().min().unwrap_or(0), repeats().max().unwrap_or(0));
    let span = if lo == hi {
        format!("{lo}")
    } else {
        format!("{lo} to {hi}")
    };
    out.push(format!("{span} usable repeats per configuration."));
    if lo < FEW_REPEATS {
        out.push(format!(
            "With fewer than {FEW_REPEATS} repeats per configuration a point's own noise rests \
             on one degree of freedom a side, so only large differences can be stated (in the \
             calibration, 46% of the real differences with 2 repeats, 88% with 3: \
             docs/findings.md); `repeats: {FEW_REPEATS}` or more decide smaller ones."
        ));
    }
    let total = run.measurements.len();
    let (suspect, failed) = (summary.suspect.len(), summary.failed.len());
    if suspect > 0 {
        out.push(format!(
            "{suspect} of {total} repeats {} (see Suspect measurements), in the figures.",
            if suspect == 1 {
                "is suspect"
            } else {
                "are suspect"
            }
        ));
    }
    if failed > 0 {
        out.push(format!(
            "{failed} of {total} repeats failed and {} left out.",
            if failed == 1 { "is" } else { "are" }
        ));
    }
    if let Some(q) = run.status.quick_factor {
        out.push(format!(
            "Quick run (durations divided by {q}): not for conclusions."
        ));
    }
    out
}
