//! The four figures a finding speaks about, one value per usable repeat of
//! each runtime at each point of the axes.
//!
//! Throughput and p99 are what a reader asks first; CPU per request (from
//! the service's cgroup or /proc) and memory (the service's peak RSS) are
//! what co-location with the load generator distorts least, and what a
//! finding on a shared host leads with.
use serde::Serialize;

use crate::results::model::{CellStatus, LoopMode, MeasurementRow};
use crate::stats::Better;

/// Service CPU milliseconds per successful request of one repeat.
pub fn cpu_ms_per_request(m: &MeasurementRow) -> Option<f64> {
    m.service_cpu_s
        .filter(|_| m.ok > 0)
        .map(|cpu| cpu * 1000.0 / m.ok as f64)
}

/// A figure findings are stated on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Measure {
    Throughput,
    P99,
    CpuPerRequest,
    Memory,
}

impl Measure {
    /// Report order on a host the generator did not crowd.
    pub const ALL: [Measure; 4] = [
        Measure::Throughput,
        Measure::P99,
        Measure::CpuPerRequest,
        Measure::Memory,
    ];
    /// Report order on a crowded host: what co-location distorts least first.
    pub const ROBUST_FIRST: [Measure; 4] = [
        Measure::CpuPerRequest,
        Measure::Memory,
        Measure::P99,
        Measure::Throughput,
    ];

    pub fn better(self) -> Better {
        match self {
            Measure::Throughput => Better::Higher,
            _ => Better::Lower,
        }
    }

    /// The figure's name in a sentence.
    pub fn label(self) -> &'static str {
        match self {
            Measure::Throughput => "throughput",
            Measure::P99 => "p99 latency",
            Measure::CpuPerRequest => "CPU per request",
            Measure::Memory => "memory (peak RSS)",
        }
    }

    /// The heading of the figure's findings.
    pub fn heading(self) -> &'static str {
        match self {
            Measure::Throughput => "Throughput",
            Measure::P99 => "p99 latency",
            Measure::CpuPerRequest => "CPU per request",
            Measure::Memory => "Memory (peak RSS)",
        }
    }

    /// What being better is, after "has": "more throughput", "a lower p99 latency".
    pub fn comparative(self) -> &'static str {
        match self {
            Measure::Throughput => "more throughput",
            Measure::P99 => "a lower p99 latency",
            Measure::CpuPerRequest => "a lower CPU cost per request",
            Measure::Memory => "a smaller memory footprint",
        }
    }

    /// Whether co-location with the load generator distorts it little.
    pub fn robust(self) -> bool {
        matches!(self, Measure::CpuPerRequest | Measure::Memory)
    }

    fn of_repeat(self, m: &MeasurementRow) -> Option<f64> {
        let value = match self {
            Measure::Throughput => Some(m.throughput_rps),
            Measure::P99 => Some(m.latency_p99_ms),
            Measure::CpuPerRequest => cpu_ms_per_request(m),
            Measure::Memory => m.service_rss_max_bytes.map(|b| b as f64),
        };
        value.filter(|v| v.is_finite() && *v > 0.0)
    }
}

/// One runtime's usable repeats at one point of the axes.
#[derive(Debug, Clone)]
pub struct PointRepeats<'r> {
    pub runtime: &'r str,
    pub axes: &'r str,
    /// Per measure, in [`Measure::ALL`] order.
    pub values: [Vec<f64>; 4],
    /// The round (repeat number) of each value, aligned with `values`.
    pub rounds: [Vec<u32>; 4],
    /// Open loop: the offered rate fixes the throughput, so it says
    /// nothing about the service and no finding is stated on it.
    pub open_loop: bool,
}

impl PointRepeats<'_> {
    pub fn of(&self, measure: Measure) -> &[f64] {
        &self.values[measure as usize]
    }

    /// The last round with a value of `measure` (0 without one).
    pub fn last_round(&self, measure: Measure) -> u32 {
        self.rounds[measure as usize]
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
    }

    /// The values of `measure` from rounds up to `last`.
    pub fn until(&self, measure: Measure, last: u32) -> Vec<f64> {
        let m = measure as usize;
        (self.values[m].iter().zip(&self.rounds[m]))
            .filter(|(_, r)| **r <= last)
            .map(|(v, _)| *v)
            .collect()
    }
}

/// Every runtime's points, in run order; failed repeats left out.
pub fn point_repeats(rows: &[MeasurementRow]) -> Vec<PointRepeats<'_>> {
    let mut out: Vec<PointRepeats> = Vec::new();
    for m in rows.iter().filter(|m| m.status != CellStatus::Failed) {
        let index = match out
            .iter()
            .position(|p| p.runtime == m.runtime && p.axes == m.axes)
        {
            Some(i) => i,
            None => {
                out.push(PointRepeats {
                    runtime: &m.runtime,
                    axes: &m.axes,
                    values: Default::default(),
                    rounds: Default::default(),
                    open_loop: false,
                });
                out.len() - 1
            }
        };
        let point = &mut out[index];
        point.open_loop |= m.mode == LoopMode::Open;
        for measure in Measure::ALL {
            if let Some(v) = measure.of_repeat(m) {
                point.values[measure as usize].push(v);
                point.rounds[measure as usize].push(m.repeat);
            }
        }
    }
    out
}
