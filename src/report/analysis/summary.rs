//! Rolling repeats up into the tables of a report: per-cell summary, peak
//! per runtime and payload, the throughput pivot, wins with ties, the
//! effect of each pair of runtimes, startup.
//!
//! Failed rows are never averaged in (they are listed instead); suspect rows
//! are kept in the statistics but counted, so the tables flag them.
use indexmap::IndexMap;
use serde::Serialize;

use crate::report::analysis::axis_effects::{AxisEffect, axis_effects};
use crate::report::analysis::cells::{CellSummary, by_axes, summarize_cells};
use crate::report::analysis::cold_starts::{ColdStartRow, LogCapRow, cold_starts, log_caps};
use crate::report::analysis::efficiency::{
    EfficiencyPair, HostLayout, HostShare, efficiency_pairs, efficiency_repeats,
};
use crate::report::analysis::equal_load::{EqualLoadGroup, equal_load};
use crate::report::analysis::findings::Findings;
use crate::report::analysis::pairs::{PairEffect, pairs};
use crate::report::analysis::reasons::{FlaggedRow, ReasonGroup, flagged, group_reasons};
use crate::report::analysis::wins::{WinCount, WinRow, win_counts, wins};
use crate::results::model::{CellStatus, LifecycleRow, Phase, StopOutcome};
use crate::results::read::run_data::RunData;
use crate::results::rows::derived_rates::group_of;
use crate::stats::spread::median_of_some;
use crate::stats::{RunNoise, run_repeats};

/// The best configuration of a runtime at one point of the axes other than
/// concurrency (a payload, an endpoint, a scenario...: the best over
/// different workloads would compare nothing).
#[derive(Debug, Clone, Serialize)]
pub struct PeakRow {
    pub runtime: String,
    /// The point of the other axes (`payload=7`, `endpoint=/users`): the
    /// chart panel the row belongs to (`derived_rates::group_of`).
    #[serde(skip)]
    pub group: String,
    pub payload: Option<i64>,
    pub config_id: String,
    pub concurrency: Option<i64>,
    pub rps_median: f64,
    pub rps_min: f64,
    pub rps_max: f64,
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub p999_ms: Option<f64>,
    pub rss_max_bytes: Option<u64>,
    pub cpu_cores: Option<f64>,
    pub rps_per_cpu_s: Option<f64>,
    // Efficiency figures at the peak configuration (report::efficiency).
    pub cpu_ms_per_request: Option<f64>,
    pub rss_per_1k_connections_bytes: Option<u64>,
    /// The `scenario` axis of the configuration, if the spec has one (last:
    /// peak-throughput.csv's earlier columns keep their places; left out of a
    /// run without scenarios, whose CSV stays as it was).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// The axes of the configuration other than payload, concurrency and
    /// scenario, which have columns of their own (`endpoint=/users`); left
    /// out of a run without such axes, whose CSV stays as it was.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub axes: String,
}

/// Throughput medians, one row per point of the axes, one column per runtime.
#[derive(Debug, Clone, Serialize)]
pub struct Pivot {
    pub runtimes: Vec<String>,
    pub rows: Vec<PivotRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PivotRow {
    pub axes: String,
    pub payload: Option<i64>,
    pub concurrency: Option<i64>,
    /// Aligned with `Pivot::runtimes`; `None` where nothing usable was measured.
    pub rps: Vec<Option<f64>>,
}

/// Service starts of one runtime in the measure phase.
#[derive(Debug, Clone, Serialize)]
pub struct StartupRow {
    pub runtime: String,
    pub starts: usize,
    /// Starts that ended with `died` or `killed`.
    pub bad_stops: usize,
    pub startup_ms: Option<f64>,
    pub first_request_ms: Option<f64>,
    pub idle_rss_bytes: Option<u64>,
    pub post_load_rss_bytes: Option<u64>,
    /// Median RSS of its start shell (`sh -c`) at the idle reading; `None`
    /// when the server was started directly.
    pub shell_rss_bytes: Option<u64>,
    /// Median startup in the training phase, if the runtime was trained.
    pub train_startup_ms: Option<f64>,
}

/// Every table of a report, computed once from a run.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Runtimes with measurements, in configuration order.
    pub runtimes: Vec<String>,
    pub cells: Vec<CellSummary>,
    pub peaks: Vec<PeakRow>,
    pub pivot: Pivot,
    pub wins: Vec<WinRow>,
    pub win_counts: Vec<WinCount>,
    /// Every pair of runtimes: the run-level ratio with its interval.
    pub pairs: Vec<PairEffect>,
    /// What switching each axis (log, metrics, jdk...) does, per runtime.
    pub axis_effects: Vec<AxisEffect>,
    pub startup: Vec<StartupRow>,
    /// Cold starts (`startup.repeats`): median and range per runtime.
    pub cold_starts: Vec<ColdStartRow>,
    /// Runtimes whose log hit its cap, with the bytes dropped.
    pub log_caps: Vec<LogCapRow>,
    pub failed: Vec<FlaggedRow>,
    pub suspect: Vec<FlaggedRow>,
    /// The same, one entry per distinct reason (what the report lists).
    pub failed_reasons: Vec<ReasonGroup>,
    pub suspect_reasons: Vec<ReasonGroup>,
    pub payloads: Vec<Option<i64>>,
    /// The points of the axes other than concurrency (`payload=7`,
    /// `endpoint=/users,payload=7`; one empty point when concurrency is the
    /// only axis), in run order: one chart panel each, so that no two
    /// values of a varying axis are drawn as one line.
    pub panels: Vec<String>,
    /// Every pair of runtimes on requests per service CPU-second.
    pub efficiency_pairs: Vec<EfficiencyPair>,
    /// How the host's CPU was shared by generator and services; `None`
    /// without measurements or a known CPU count.
    pub host_share: Option<HostShare>,
    /// The `equal_load` cells by group: latency at equal offered load.
    pub equal_load: Vec<EqualLoadGroup>,
    /// What the run establishes, in sentences; `None` with fewer than two
    /// runtimes measured.
    pub findings: Option<Findings>,
}

impl Summary {
    pub fn of(run: &RunData) -> Self {
        let runtimes = runtimes_in_order(run);
        let cells = summarize_cells(&run.measurements);
        let peaks = peaks(&runtimes, &cells);
        let pivot = pivot(&runtimes, &cells);
        let repeats = run_repeats(&run.measurements);
        let noise = RunNoise::of(&repeats);
        let wins = wins(&cells, &repeats, &noise);
        let win_counts = win_counts(&runtimes, &wins);
        let pairs = pairs(&runtimes, &repeats, &noise);
        let axis_effects = axis_effects(
            &runtimes,
            &repeats,
            &noise,
            &efficiency_repeats(&run.measurements),
        );
        let efficiency = efficiency_pairs(&runtimes, &run.measurements);
        let at_equal_load = equal_load(run, &runtimes, &cells);
        let mut payloads: Vec<Option<i64>> = Vec::new();
        for c in &cells {
            if !payloads.contains(&c.payload) {
                payloads.push(c.payload);
            }
        }
        let panels = panels(&cells);
        let failed = flagged(&run.measurements, CellStatus::Failed);
        let suspect = flagged(&run.measurements, CellStatus::Suspect);
        let mut summary = Summary {
            findings: None,
            startup: startup(run, &runtimes),
            cold_starts: cold_starts(&run.lifecycle, &runtimes),
            log_caps: log_caps(&run.lifecycle, &runtimes),
            failed_reasons: group_reasons(&failed),
            suspect_reasons: group_reasons(&suspect),
            failed,
            suspect,
            runtimes,
            cells,
            peaks,
            pivot,
            wins,
            win_counts,
            pairs,
            axis_effects,
            payloads,
            panels,
            efficiency_pairs: efficiency,
            equal_load: at_equal_load,
            host_share: HostShare::of_layout(
                &run.measurements,
                &HostLayout::of(&run.environment),
                run.pinning.clone(),
            ),
        };
        summary.findings = Findings::of(run, &summary);
        summary
    }
}

/// Runtimes that have measurements: configurations.csv order first, then any
/// runtime only seen in measurements.csv.
fn runtimes_in_order(run: &RunData) -> Vec<String> {
    let measured: Vec<&str> = run
        .measurements
        .iter()
        .map(|m| m.runtime.as_str())
        .collect();
    let mut out: Vec<String> = run
        .configurations
        .iter()
        .map(|c| c.runtime.clone())
        .filter(|r| measured.contains(&r.as_str()))
        .collect();
    for r in measured {
        if !out.iter().any(|o| o == r) {
            out.push(r.to_string());
        }
    }
    out
}

/// The closed-loop cells' points of the other axes, in run order (what the
/// charts over concurrency draw one panel each for).
fn panels(cells: &[CellSummary]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in cells
        .iter()
        .filter(|c| c.concurrency.is_some_and(|v| v > 0))
    {
        let group = group_of(&c.axes);
        if !out.contains(&group) {
            out.push(group);
        }
    }
    out
}

/// `endpoint=/a,payload=7,scenario=crud` -> `endpoint=/a`: the axes of a
/// point that the peak table has no column of its own for.
fn other_axes(group: &str) -> String {
    group
        .split(',')
        .filter(|part| !part.starts_with("payload=") && !part.starts_with("scenario="))
        .collect::<Vec<_>>()
        .join(",")
}

fn peaks(runtimes: &[String], cells: &[CellSummary]) -> Vec<PeakRow> {
    let mut out = Vec::new();
    for rt in runtimes {
        let mut by_group: IndexMap<String, &CellSummary> = IndexMap::new();
        for c in cells
            .iter()
            .filter(|c| &c.runtime == rt && c.rps_median.is_some())
        {
            let best = by_group.entry(group_of(&c.axes)).or_insert(c);
            if c.rps_median > best.rps_median {
                *best = c;
            }
        }
        for (group, c) in by_group {
            let s = c.spread().expect("filtered on rps_median");
            out.push(PeakRow {
                runtime: rt.clone(),
                scenario: scenario_of(&c.axes).map(str::to_owned),
                axes: other_axes(&group),
                group,
                payload: c.payload,
                config_id: c.config_id.clone(),
                concurrency: c.concurrency,
                rps_median: s.median,
                rps_min: s.min,
                rps_max: s.max,
                p50_ms: c.p50_ms,
                p99_ms: c.p99_ms,
                p999_ms: c.p999_ms,
                rss_max_bytes: c.rss_max_bytes,
                cpu_cores: c.cpu_cores,
                rps_per_cpu_s: c.rps_per_cpu_s,
                cpu_ms_per_request: c.cpu_ms_per_request,
                rss_per_1k_connections_bytes: c.rss_per_1k_connections_bytes,
            });
        }
    }
    out
}

/// The `scenario=` part of a point's axes, if any.
fn scenario_of(axes: &str) -> Option<&str> {
    axes.split(',')
        .find_map(|part| part.strip_prefix("scenario="))
}

fn pivot(runtimes: &[String], cells: &[CellSummary]) -> Pivot {
    let rows = by_axes(cells)
        .into_iter()
        .map(|(axes, group)| PivotRow {
            axes: axes.to_string(),
            payload: group[0].payload,
            concurrency: group[0].concurrency,
            rps: runtimes
                .iter()
                .map(|rt| {
                    group
                        .iter()
                        .find(|c| &c.runtime == rt)
                        .and_then(|c| c.rps_median)
                })
                .collect(),
        })
        .collect();
    Pivot {
        runtimes: runtimes.to_vec(),
        rows,
    }
}

fn startup(run: &RunData, runtimes: &[String]) -> Vec<StartupRow> {
    let mut names: Vec<String> = runtimes.to_vec();
    for l in &run.lifecycle {
        if !names.contains(&l.runtime) {
            names.push(l.runtime.clone());
        }
    }
    names
        .into_iter()
        .filter_map(|rt| {
            let measure: Vec<_> = run
                .lifecycle
                .iter()
                .filter(|l| l.runtime == rt && l.phase == Phase::Measure)
                .collect();
            let train: Vec<_> = run
                .lifecycle
                .iter()
                .filter(|l| l.runtime == rt && l.phase == Phase::Train)
                .collect();
            if measure.is_empty() && train.is_empty() {
                return None;
            }
            let med_bytes = |f: fn(&LifecycleRow) -> Option<u64>| {
                median_of_some(measure.iter().map(|l| f(l).map(|b| b as f64)))
                    .map(|b| b.round() as u64)
            };
            Some(StartupRow {
                starts: measure.len(),
                bad_stops: measure
                    .iter()
                    .filter(|l| matches!(l.stop, Some(StopOutcome::Died | StopOutcome::Killed)))
                    .count(),
                startup_ms: median_of_some(measure.iter().map(|l| l.startup_ms)),
                first_request_ms: median_of_some(measure.iter().map(|l| l.first_request_ms)),
                idle_rss_bytes: med_bytes(|l| l.idle_rss_bytes),
                post_load_rss_bytes: med_bytes(|l| l.post_load_rss_bytes),
                shell_rss_bytes: med_bytes(|l| l.shell_rss_bytes),
                train_startup_ms: median_of_some(train.iter().map(|l| l.startup_ms)),
                runtime: rt,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::analysis::cells::tests::row;
    use crate::results::CellStatus::Ok;

    #[test]
    fn a_peak_is_per_scenario_not_the_best_over_different_workloads() {
        let cells = summarize_cells(&[
            row("go", "scenario=orders", 1, 2000.0, Ok),
            row("go", "scenario=crud", 1, 5000.0, Ok),
            row("go", "scenario=crud,log=true", 1, 4000.0, Ok),
        ]);
        let found = peaks(&["go".to_string()], &cells);
        let got: Vec<(Option<&str>, &str, f64)> = found
            .iter()
            .map(|p| (p.scenario.as_deref(), p.axes.as_str(), p.rps_median))
            .collect();
        // `log` varies within `crud`: its values are peaks of their own.
        assert_eq!(
            got,
            [
                (Some("orders"), "", 2000.0),
                (Some("crud"), "", 5000.0),
                (Some("crud"), "log=true", 4000.0)
            ]
        );
        // Any other axis that varies splits the peaks too (an endpoint is
        // not a payload): one peak per value, named in `axes`.
        let cells = summarize_cells(&[
            row("go", "endpoint=/a,concurrency=1", 1, 10.0, Ok),
            row("go", "endpoint=/a,concurrency=8", 1, 30.0, Ok),
            row("go", "endpoint=/b,concurrency=1", 1, 20.0, Ok),
        ]);
        let found = peaks(&["go".to_string()], &cells);
        let got: Vec<(&str, f64)> = found
            .iter()
            .map(|p| (p.axes.as_str(), p.rps_median))
            .collect();
        assert_eq!(got, [("endpoint=/a", 30.0), ("endpoint=/b", 20.0)]);
    }
}
