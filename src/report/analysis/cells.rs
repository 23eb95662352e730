//! The per-cell summary: one configuration (runtime x axes) rolled up over
//! its repeats, with its CPU and memory efficiency figures. The lowest file
//! of the report's figures: the derived ones (pairs, wins, efficiency pairs,
//! axis effects, equal load) and `summary::Summary` build on it.
use indexmap::IndexMap;
use serde::Serialize;

use crate::results::model::{CellStatus, MeasurementRow};
use crate::results::rows::derived_rates::group_of;
use crate::stats::spread::{Spread, median, median_of_some, round_to};

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
    // Efficiency figures co-location distorts less than throughput (below; pairs in `efficiency`).
    /// Median over repeats of service CPU milliseconds per successful request.
    pub cpu_ms_per_request: Option<f64>,
    /// Max RSS added per 1,000 connections over the runtime's cell at the
    /// lowest concurrency of the same other axes (`fill_rss_per_1k_connections` below).
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

/// Requests per service CPU-second of one repeat; `None` without CPU figures.
pub fn requests_per_cpu_s(m: &MeasurementRow) -> Option<f64> {
    m.service_cpu_s
        .filter(|cpu| *cpu > 0.0)
        .map(|cpu| m.ok as f64 / cpu)
}

/// Connections added over the lowest concurrency below which no "RSS per
/// 1k connections" is stated (it extrapolates at most 4x).
pub const MIN_CONNECTION_SPAN: i64 = 250;

pub use crate::stats::findings::cpu_ms_per_request;

/// The CPU figures of one configuration: medians over its usable repeats.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct CellEfficiency {
    pub rps_per_cpu_s: Option<f64>,
    pub cpu_ms_per_request: Option<f64>,
}

impl CellEfficiency {
    /// Over `used` (the configuration's repeats that did not fail).
    pub fn of(used: &[&MeasurementRow]) -> Self {
        let med = |f: fn(&MeasurementRow) -> Option<f64>| median_of_some(used.iter().map(|m| f(m)));
        CellEfficiency {
            rps_per_cpu_s: med(requests_per_cpu_s).map(|v| round_to(v, 1)),
            cpu_ms_per_request: med(cpu_ms_per_request).map(|v| round_to(v, 4)),
        }
    }
}

/// Fills each cell's RSS per 1,000 connections: the max RSS it added over
/// the same runtime's cell at the lowest concurrency of the same other axes,
/// per connection added, x 1,000. The growth, not RSS / connections: a
/// service's base heap would otherwise make one connection look like
/// gigabytes per thousand. `None` for that lowest cell itself, and where a
/// side has no RSS figure.
///
/// Only over a span of at least [`MIN_CONNECTION_SPAN`] connections: the
/// figure extrapolates the growth to 1,000, and from 1 to 64 connections
/// a few MiB of heap noise became hundreds of MiB "per 1k" (16x).
pub fn fill_rss_per_1k_connections(cells: &mut [CellSummary]) {
    let base: Vec<Option<(i64, u64)>> = cells
        .iter()
        .map(|c| {
            cells
                .iter()
                .filter(|b| b.runtime == c.runtime && group_of(&b.axes) == group_of(&c.axes))
                .filter_map(|b| Some((b.concurrency.filter(|v| *v > 0)?, b.rss_max_bytes?)))
                .min_by_key(|(conc, _)| *conc)
        })
        .collect();
    for (cell, base) in cells.iter_mut().zip(base) {
        let (Some((c0, rss0)), Some(c), Some(rss)) = (base, cell.concurrency, cell.rss_max_bytes)
        else {
            continue;
        };
        if c - c0 >= MIN_CONNECTION_SPAN {
            let added = rss as f64 - rss0 as f64;
            cell.rss_per_1k_connections_bytes =
                Some((added.max(0.0) * 1000.0 / (c - c0) as f64).round() as u64);
        }
    }
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

/// Cells grouped by their point of the axes (the runtime-independent key).
pub fn by_axes(cells: &[CellSummary]) -> IndexMap<&str, Vec<&CellSummary>> {
    let mut groups: IndexMap<&str, Vec<&CellSummary>> = IndexMap::new();
    for c in cells {
        groups.entry(c.axes.as_str()).or_default().push(c);
    }
    groups
}

#[cfg(test)]
pub(crate) mod tests {
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
}
