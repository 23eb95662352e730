//! Adaptive repeats: which planned repeats of a configuration are still
//! wanted, and why a configuration got no more.
//!
//! The plan has a cell for every repeat up to a runtime's `max`, in the
//! plan's order (interleaved: repeat 1 of everything, then repeat 2, ...).
//! Exec walks them as always and skips the cells of configurations that
//! have stopped, so the order and the restart policy are those of a fixed
//! design with fewer cells. After each recorded cell its configuration is
//! judged: with at least `min` repeats measured, it stops when the 95%
//! interval of its throughput (a t interval on the log repeat means,
//! [`MeanInterval`], the scale compare uses) is within `target_ci` of its
//! geometric mean; at `max` repeats it stops anyway.
//!
//! The interval uses the configuration's **own** repeats, not the runtime's
//! pooled between-repeat variance that compare uses. Pooled, the
//! half-width would be `t(pooled df) x sd_pooled / sqrt(n)`, the same for
//! every configuration with the same `n`: every configuration of a runtime
//! would stop at the same repeat, a noisy one would keep the quiet ones
//! going and the other way round, and the design would not be adaptive per
//! configuration at all. It would also stop on the assumption (a runtime's
//! relative noise does not depend on the configuration) that concurrency 1
//! and 96 visibly break on this host. The price of the own interval is a
//! large t with few repeats (4.30 at 3 repeats against ~2 pooled), so a
//! target is reached with more repeats; and, as with any stopping rule that
//! looks at the data, a configuration whose first repeats agree by chance
//! stops early with an interval that is too narrow: the achieved half-width
//! is recorded, and compare builds its own intervals from the repeats anyway.
//!
//! The decision depends only on the configuration's recorded rows, so a
//! resumed run (`--resume`) replays measurements.csv and decides exactly as
//! the interrupted run would have; a recorded cell is never measured again.
use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;

use crate::plan::{Cell, Plan, RepeatPolicy};
use crate::results::{CellStatus, MeasurementRow, RepeatsRow, RepeatsStop};
use crate::stats::effect::MeanInterval;

/// The interval level adaptive repeats stop on (compare's is the same).
pub const LEVEL: f64 = 0.95;

/// Every configuration of a plan: its repeats so far and whether it stopped.
#[derive(Debug)]
pub struct Repeats {
    /// By config id, in plan order of first appearance.
    configs: IndexMap<String, Config>,
}

#[derive(Debug)]
struct Config {
    runtime: String,
    policy: RepeatPolicy,
    /// The recorded repeats: repeat number -> throughput when usable.
    measured: BTreeMap<u32, Option<f64>>,
    stop: Option<RepeatsStop>,
}

impl Config {
    fn usable(&self) -> Vec<f64> {
        self.measured.values().flatten().copied().collect()
    }

    fn interval(&self) -> Option<MeanInterval> {
        MeanInterval::of(&self.usable(), LEVEL)
    }

    /// The stop rule, on the repeats recorded so far.
    fn decide(&self) -> Option<RepeatsStop> {
        let n = self.measured.len() as u32;
        match self.policy {
            RepeatPolicy::Fixed { repeats } => (n >= repeats).then_some(RepeatsStop::Fixed),
            RepeatPolicy::Adaptive {
                min,
                max,
                target_ci,
            } => {
                let narrow = self.interval().is_some_and(|i| i.half_width <= target_ci);
                if n >= min && narrow {
                    Some(RepeatsStop::Target)
                } else if n >= max {
                    Some(RepeatsStop::Max)
                } else {
                    None
                }
            }
        }
    }
}

/// A configuration that just stopped, for the progress line.
#[derive(Debug, Clone, PartialEq)]
pub struct Stopped {
    pub config_id: String,
    pub stop: RepeatsStop,
    pub repeats: u32,
    pub half_width: Option<f64>,
}

impl Repeats {
    /// The configurations of `plan`, with the rows already recorded
    /// (`--resume`) counted and judged.
    pub fn new(plan: &Plan, recorded: &[MeasurementRow]) -> Self {
        let mut configs = IndexMap::new();
        for cell in &plan.cells {
            configs
                .entry(cell.config_id.clone())
                .or_insert_with(|| Config {
                    runtime: cell.runtime.clone(),
                    policy: plan.repeats_of(&cell.runtime),
                    measured: BTreeMap::new(),
                    stop: None,
                });
        }
        // A profiled repeat is no repeat of the statistics.
        for row in recorded.iter().filter(|r| !r.profiled) {
            if let Some(config) = configs.get_mut(&row.config_id) {
                config.measured.insert(row.repeat, usable_throughput(row));
            }
        }
        for config in configs.values_mut() {
            config.stop = config.decide();
        }
        Repeats { configs }
    }

    /// Whether `cell` is still wanted: its configuration has not stopped.
    pub fn wants(&self, cell: &Cell) -> bool {
        self.configs
            .get(&cell.config_id)
            .is_none_or(|c| c.stop.is_none())
    }

    /// Counts a recorded cell; `Some` when its configuration stops with it.
    pub fn record(&mut self, row: &MeasurementRow) -> Option<Stopped> {
        let config = self.configs.get_mut(&row.config_id)?;
        config.measured.insert(row.repeat, usable_throughput(row));
        if config.stop.is_some() {
            return None;
        }
        config.stop = config.decide();
        let stop = config.stop?;
        Some(Stopped {
            config_id: row.config_id.clone(),
            stop,
            repeats: config.measured.len() as u32,
            half_width: config.interval().map(|i| i.half_width),
        })
    }

    /// repeats.csv: one row per configuration. Those not stopped are
    /// `skipped` when their runtime is in `skipped`, else `interrupted`.
    pub fn rows(&self, skipped: &BTreeSet<&str>) -> Vec<RepeatsRow> {
        self.configs
            .iter()
            .map(|(id, c)| {
                let interval = c.interval();
                let target_ci = match c.policy {
                    RepeatPolicy::Fixed { .. } => None,
                    RepeatPolicy::Adaptive { target_ci, .. } => Some(target_ci),
                };
                let unfinished = if skipped.contains(c.runtime.as_str()) {
                    RepeatsStop::Skipped
                } else {
                    RepeatsStop::Interrupted
                };
                RepeatsRow {
                    config_id: id.clone(),
                    runtime: c.runtime.clone(),
                    repeats: c.measured.len() as u32,
                    usable: c.measured.values().flatten().count() as u32,
                    min: c.policy.min(),
                    max: c.policy.max(),
                    target_ci,
                    throughput_rps: interval
                        .map(|i| i.mean)
                        .or_else(|| c.usable().first().copied()),
                    half_width: interval.map(|i| i.half_width),
                    stop: c.stop.unwrap_or(unfinished),
                }
            })
            .collect()
    }
}

/// The throughput of a usable (`ok` or `suspect`) row, as compare counts it.
fn usable_throughput(row: &MeasurementRow) -> Option<f64> {
    (row.status != CellStatus::Failed && row.throughput_rps > 0.0).then_some(row.throughput_rps)
}
