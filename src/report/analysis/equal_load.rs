//! Latency at equal offered load: the `equal_load` cells (open loop, every
//! runtime at the same rates, fractions of the slowest runtime's
//! closed-loop peak) side by side, with the peaks the rates came from.
//!
//! The closed-loop "p99 at peak" compares each runtime at its own peak
//! concurrency, where by Little's law the runtime that peaks at the higher
//! concurrency shows the higher latency whatever its service time. At an
//! equal offered rate that confound is gone.
use serde::Serialize;

use crate::report::analysis::cells::CellSummary;
use crate::results::read::run_data::RunData;
use crate::results::rows::derived_rates::{OF_PEAK_AXIS, RuntimePeak, group_of};

/// One group of the other axes (e.g. `payload=128`) at equal load.
#[derive(Debug, Clone, Serialize)]
pub struct EqualLoadGroup {
    /// `payload=128`; empty when concurrency was the only axis.
    pub group: String,
    pub payload: Option<i64>,
    /// The runtime whose closed-loop peak the rates are fractions of.
    pub slowest: Option<String>,
    pub base_rps: Option<f64>,
    /// Every runtime's closed-loop peak in the group (derived-rates.json).
    pub peaks: Vec<RuntimePeak>,
    pub rows: Vec<EqualLoadRow>,
}

/// One fraction of the peak: the rate offered and each runtime's answer.
#[derive(Debug, Clone, Serialize)]
pub struct EqualLoadRow {
    pub of_peak: f64,
    /// The rate offered to every runtime (req/s).
    pub rate: Option<f64>,
    /// Aligned with `Summary::runtimes`: median p99 over repeats, ms.
    pub p99_ms: Vec<Option<f64>>,
    /// Aligned with `Summary::runtimes`: median achieved throughput.
    pub achieved_rps: Vec<Option<f64>>,
}

/// The fraction of an `equal_load` cell's axes (`payload=1,of_peak=0.5` -> 0.5).
pub fn of_peak(axes: &str) -> Option<f64> {
    axes.split(',')
        .find_map(|part| part.strip_prefix(OF_PEAK_AXIS)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
}

/// The equal-load groups of a run, in the order its cells ran; empty
/// when it ran no `equal_load` cell.
pub fn equal_load(
    run: &RunData,
    runtimes: &[String],
    cells: &[CellSummary],
) -> Vec<EqualLoadGroup> {
    let open: Vec<(&CellSummary, f64)> = cells
        .iter()
        .filter_map(|c| Some((c, of_peak(&c.axes)?)))
        .collect();
    let mut groups: Vec<EqualLoadGroup> = Vec::new();
    for (cell, fraction) in &open {
        let group = group_of(&cell.axes);
        let index = match groups.iter().position(|g| g.group == group) {
            Some(i) => i,
            None => {
                let derived = run.derived_rates.as_ref().and_then(|d| d.group(&group));
                groups.push(EqualLoadGroup {
                    payload: cell.payload,
                    slowest: derived.map(|d| d.slowest.clone()),
                    base_rps: derived.map(|d| d.base_rps),
                    peaks: derived.map(|d| d.peaks.clone()).unwrap_or_default(),
                    group,
                    rows: Vec::new(),
                });
                groups.len() - 1
            }
        };
        let g = &mut groups[index];
        if g.rows.iter().any(|r| r.of_peak == *fraction) {
            continue;
        }
        let at = |f: fn(&CellSummary) -> Option<f64>| -> Vec<Option<f64>> {
            runtimes
                .iter()
                .map(|rt| {
                    open.iter()
                        .find(|(c, fr)| {
                            &c.runtime == rt && fr == fraction && group_of(&c.axes) == g.group
                        })
                        .and_then(|(c, _)| f(c))
                })
                .collect()
        };
        let rate = run
            .derived_rates
            .as_ref()
            .and_then(|d| d.rate(&g.group, *fraction))
            .or_else(|| target_rate(run, &cell.config_id));
        g.rows.push(EqualLoadRow {
            of_peak: *fraction,
            rate,
            p99_ms: at(|c| c.p99_ms),
            achieved_rps: at(|c| c.rps_median),
        });
    }
    for g in &mut groups {
        g.rows.sort_by(|a, b| a.of_peak.total_cmp(&b.of_peak));
    }
    groups
}

/// The rate a configuration was offered, from its rows (a run without derived-rates.json).
fn target_rate(run: &RunData, config_id: &str) -> Option<f64> {
    run.measurements
        .iter()
        .find(|m| m.config_id == config_id)
        .and_then(|m| m.target_rps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fraction_is_read_from_the_axes() {
        assert_eq!(of_peak("payload=1,of_peak=0.5"), Some(0.5));
        assert_eq!(of_peak("of_peak=1"), Some(1.0));
        assert_eq!(of_peak("payload=1,concurrency=8"), None);
    }
}
