//! Rolling repeats up into the tables of a report: per-cell summary, peak
//! per runtime and payload, the throughput pivot, wins with ties, the
//! effect of each pair of runtimes, startup.
//!
//! Failed rows are never averaged in (they are listed instead); suspect rows
//! are kept in the statistics but counted, so the tables flag them.
use indexmap::IndexMap;
use serde::Serialize;

use crate::report::analysis::axis_effects::{AxisEffect, axis_effects};
use crate::report::analysis::cold_starts::{ColdStartRow, LogCapRow, cold_starts, log_caps};
use crate::report::analysis::efficiency::{
    CellEfficiency, EfficiencyPair, HostLayout, HostShare, efficiency_pairs, efficiency_repeats,
    fill_rss_per_1k_connections,
};
use crate::report::analysis::equal_load::{EqualLoadGroup, equal_load};
use crate::report::analysis::pairs::{PairEffect, pairs};
use crate::report::analysis::wins::{WinCount, WinRow, win_counts, wins};
use crate::results::model::{CellStatus, LifecycleRow, MeasurementRow, Phase, StopOutcome};
use crate::results::read::run_data::RunData;
use crate::stats::spread::{Spread, median, median_of_some, round_to};
use crate::stats::{RunNoise, run_repeats};

/// One configuration (runtime x axes) rolled up over its repeats.
#[derive(Debug, Clone, Serialize)]
pub struct CellSummary {
    pub config_id: String,
    pub runtime: String,
    pub axes: String,
    pub payload: Option<i64>,
    pub concurrency: Option<i64>,
    /// Repeats used in the statistics (ok + suspect).
    pub repeats: usize,
    pub failed: usize,
    pub suspect: usize,
    pub rps_median: Option<f64>,
    pub rps_mean: Option<f64>,
    pub rps_min: Option<f64>,
    pub rps_max: Option<f64>,
    /// `(max - min) / median` of throughput over repeats; none with a single repeat.
    pub rps_spread: Option<f64>,
    /// Latency percentiles: median over repeats, milliseconds.
    pub p50_ms: Option<f64>,
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub p999_ms: Option<f64>,
    /// Errors summed over the used repeats, and their share of all answers
    /// (successes + errors).
    pub errors: u64,
    pub error_rate: f64,
    /// Median over repeats of the service's max RSS during the measurement.
    pub rss_max_bytes: Option<u64>,
    /// Median over repeats of the service's CPU seconds / measured seconds.
    pub cpu_cores: Option<f64>,
    /// Median over repeats of successful requests per service CPU-second.
    pub rps_per_cpu_s: Option<f64>,
    // Efficiency figures co-location distorts less than throughput (report::efficiency).
    /// Median over repeats of service CPU milliseconds per successful request.
    pub cpu_ms_per_request: Option<f64>,
    /// Max RSS added per 1,000 connections over the runtime's cell at the
    /// lowest concurrency of the same other axes (`efficiency::fill_rss_per_1k_connections`).
    pub rss_per_1k_connections_bytes: Option<u64>,
}

impl CellSummary {
    pub fn spread(&self) -> Option<Spread> {
        Some(Spread {
            n: self.repeats,
            median: self.rps_median?,
            mean: self.rps_mean?,
            min: self.rps_min?,
            max: self.rps_max?,
            spread: self.rps_spread.unwrap_or(0.0),
        })
    }
}

/// The best configuration of a runtime at one payload (and in one scenario:
/// the best over different workloads would compare nothing).
#[derive(Debug, Clone, Serialize)]
pub struct PeakRow {
    pub runtime: String,
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
    /// Median startup in the training phase, if the runtime was trained.
    pub train_startup_ms: Option<f64>,
}

/// A failed or suspect measurement row, listed as is.
#[derive(Debug, Clone, Serialize)]
pub struct FlaggedRow {
    pub cell_id: String,
    pub runtime: String,
    pub axes: String,
    pub status: CellStatus,
    pub reason: String,
    pub throughput_rps: f64,
    pub errors: u64,
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
    pub payloads: Vec<Option<i64>>,
    /// Every pair of runtimes on requests per service CPU-second.
    pub efficiency_pairs: Vec<EfficiencyPair>,
    /// How the host's CPU was shared by generator and services; `None`
    /// without measurements or a known CPU count.
    pub host_share: Option<HostShare>,
    /// The `equal_load` cells by group: latency at equal offered load.
    pub equal_load: Vec<EqualLoadGroup>,
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
        Summary {
            startup: startup(run, &runtimes),
            cold_starts: cold_starts(&run.lifecycle, &runtimes),
            log_caps: log_caps(&run.lifecycle, &runtimes),
            failed: flagged(&run.measurements, CellStatus::Failed),
            suspect: flagged(&run.measurements, CellStatus::Suspect),
            runtimes,
            cells,
            peaks,
            pivot,
            wins,
            win_counts,
            pairs,
            axis_effects,
            payloads,
            efficiency_pairs: efficiency,
            equal_load: at_equal_load,
            host_share: HostShare::of_layout(
                &run.measurements,
                &HostLayout::of(&run.environment),
                run.pinning.clone(),
            ),
        }
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

pub fn summarize_cells(rows: &[MeasurementRow]) -> Vec<CellSummary> {
    let mut groups: IndexMap<&str, Vec<&MeasurementRow>> = IndexMap::new();
    for row in rows {
        groups.entry(row.config_id.as_str()).or_default().push(row);
    }
    let mut cells: Vec<CellSummary> = groups
        .into_iter()
        .map(|(config_id, repeats)| summarize_cell(config_id, &repeats))
        .collect();
    fill_rss_per_1k_connections(&mut cells);
    cells
}

fn summarize_cell(config_id: &str, repeats: &[&MeasurementRow]) -> CellSummary {
    let used: Vec<&&MeasurementRow> = repeats
        .iter()
        .filter(|r| r.status != CellStatus::Failed)
        .collect();
    let rps: Vec<f64> = used.iter().map(|r| r.throughput_rps).collect();
    let spread = Spread::of(&rps);
    let med = |f: fn(&MeasurementRow) -> f64| {
        median(&used.iter().map(|r| f(r)).collect::<Vec<_>>()).map(|v| round_to(v, 3))
    };
    let errors: u64 = used.iter().map(|r| r.errors).sum();
    let efficiency = CellEfficiency::of(&used.iter().map(|r| **r).collect::<Vec<_>>());
    let answers: u64 = used.iter().map(|r| r.ok + r.errors).sum();
    let first = repeats[0];
    CellSummary {
        config_id: config_id.to_string(),
        runtime: first.runtime.clone(),
        axes: first.axes.clone(),
        payload: first.payload,
        concurrency: first.concurrency,
        repeats: used.len(),
        failed: repeats.len() - used.len(),
        suspect: used
            .iter()
            .filter(|r| r.status == CellStatus::Suspect)
            .count(),
        rps_median: spread.map(|s| round_to(s.median, 1)),
        rps_mean: spread.map(|s| round_to(s.mean, 1)),
        rps_min: spread.map(|s| round_to(s.min, 1)),
        rps_max: spread.map(|s| round_to(s.max, 1)),
        // One repeat says nothing about noise: no spread rather than a reassuring 0%.
        rps_spread: spread.filter(|s| s.n >= 2).map(|s| round_to(s.spread, 4)),
        p50_ms: med(|r| r.latency_p50_ms),
        p95_ms: med(|r| r.latency_p95_ms),
        p99_ms: med(|r| r.latency_p99_ms),
        p999_ms: med(|r| r.latency_p999_ms),
        errors,
        error_rate: if answers > 0 {
            round_to(errors as f64 / answers as f64, 6)
        } else {
            0.0
        },
        rss_max_bytes: median_of_some(
            used.iter()
                .map(|r| r.service_rss_max_bytes.map(|b| b as f64)),
        )
        .map(|b| b.round() as u64),
        cpu_cores: median_of_some(used.iter().map(|r| {
            r.service_cpu_s
                .filter(|_| r.duration_s > 0.0)
                .map(|cpu| cpu / r.duration_s)
        }))
        .map(|v| round_to(v, 3)),
        rps_per_cpu_s: efficiency.rps_per_cpu_s,
        cpu_ms_per_request: efficiency.cpu_ms_per_request,
        rss_per_1k_connections_bytes: None,
    }
}

fn peaks(runtimes: &[String], cells: &[CellSummary]) -> Vec<PeakRow> {
    let mut out = Vec::new();
    for rt in runtimes {
        let mut by_payload: IndexMap<(Option<&str>, Option<i64>), &CellSummary> = IndexMap::new();
        for c in cells
            .iter()
            .filter(|c| &c.runtime == rt && c.rps_median.is_some())
        {
            let best = by_payload
                .entry((scenario_of(&c.axes), c.payload))
                .or_insert(c);
            if c.rps_median > best.rps_median {
                *best = c;
            }
        }
        for ((scenario, payload), c) in by_payload {
            let s = c.spread().expect("filtered on rps_median");
            out.push(PeakRow {
                runtime: rt.clone(),
                scenario: scenario.map(str::to_owned),
                payload,
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

/// Cells grouped by their point of the axes (the runtime-independent key).
pub(super) fn by_axes(cells: &[CellSummary]) -> IndexMap<&str, Vec<&CellSummary>> {
    let mut groups: IndexMap<&str, Vec<&CellSummary>> = IndexMap::new();
    for c in cells {
        groups.entry(c.axes.as_str()).or_default().push(c);
    }
    groups
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
                train_startup_ms: median_of_some(train.iter().map(|l| l.startup_ms)),
                runtime: rt,
            })
        })
        .collect()
}

fn flagged(rows: &[MeasurementRow], status: CellStatus) -> Vec<FlaggedRow> {
    rows.iter()
        .filter(|r| r.status == status)
        .map(|r| FlaggedRow {
            cell_id: r.cell_id.clone(),
            runtime: r.runtime.clone(),
            axes: r.axes.clone(),
            status: r.status,
            reason: r.reason.clone(),
            throughput_rps: r.throughput_rps,
            errors: r.errors,
        })
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::results::CellStatus::{Failed, Ok};

    /// A measured repeat of `rps` req/s over 5 s, using 5 CPU seconds.
    pub fn row(
        runtime: &str,
        axes: &str,
        repeat: u32,
        rps: f64,
        status: CellStatus,
    ) -> MeasurementRow {
        MeasurementRow {
            cell_id: format!("{runtime}/{axes}/r{repeat}"),
            config_id: format!("{runtime}/{axes}"),
            runtime: runtime.into(),
            repeat,
            axes: axes.into(),
            duration_s: 5.0,
            ok: (rps * 5.0) as u64,
            throughput_rps: rps,
            latency_p99_ms: 2.0,
            service_cpu_s: Some(5.0),
            status,
            ..Default::default()
        }
    }

    #[test]
    fn failed_repeats_are_left_out_and_counted() {
        let cells = summarize_cells(&[
            row("go", "c=1", 1, 100.0, Ok),
            row("go", "c=1", 2, 0.0, Failed),
        ]);
        assert_eq!((cells[0].repeats, cells[0].failed), (1, 1));
        assert_eq!(cells[0].rps_median, Some(100.0));
        assert_eq!(cells[0].cpu_cores, Some(1.0));
        assert_eq!(cells[0].rps_per_cpu_s, Some(100.0));
        let all_failed = summarize_cells(&[row("go", "c=1", 1, 0.0, Failed)]);
        assert_eq!(all_failed[0].rps_median, None);
    }

    #[test]
    fn a_peak_is_per_scenario_not_the_best_over_different_workloads() {
        let cells = summarize_cells(&[
            row("go", "scenario=orders", 1, 2000.0, Ok),
            row("go", "scenario=crud", 1, 5000.0, Ok),
            row("go", "scenario=crud,log=true", 1, 4000.0, Ok),
        ]);
        let found = peaks(&["go".to_string()], &cells);
        let got: Vec<(Option<&str>, f64)> = found
            .iter()
            .map(|p| (p.scenario.as_deref(), p.rps_median))
            .collect();
        assert_eq!(got, [(Some("orders"), 2000.0), (Some("crud"), 5000.0)]);
        // Without a scenario axis: one peak per payload, as before.
        let cells = summarize_cells(&[
            row("go", "log=true", 1, 10.0, Ok),
            row("go", "log=false", 1, 20.0, Ok),
        ]);
        let found = peaks(&["go".to_string()], &cells);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].scenario.as_deref(), found[0].rps_median),
            (None, 20.0)
        );
    }
}
