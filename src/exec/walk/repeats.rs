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
//! `until: decided` judges runtimes, not configurations: at the end of each
//! round from `min` on (every configuration still going has the same number
//! of repeats), the findings family (stats::findings) is
//! answered on every recorded row of those runtimes, at the level that holds
//! over all the looks the design may take, and a runtime whose questions on
//! throughput, CPU per request and memory are all settled
//! (`findings::settle`) gets no more rounds; the others go on to `max`.
//!
//! The decision depends only on the recorded rows, so a resumed run
//! (`--resume`) replays measurements.csv round by round and decides exactly
//! as the interrupted run would have; a recorded cell is never measured again.
use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;

use crate::plan::{Cell, Plan, RepeatPolicy};
use crate::results::{CellStatus, MeasurementRow, RepeatsRow, RepeatsStop, RepeatsUntil};
use crate::stats::effect::MeanInterval;
use crate::stats::findings::{family_of, looks, settle};

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
    /// The recorded rows themselves, for `until: decided` (the findings
    /// need every figure); empty for the other policies.
    rows: Vec<MeasurementRow>,
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
            // Decided at the round's look (`Repeats::look`), or at `max`.
            RepeatPolicy::Decided { max, .. } => (n >= max).then_some(RepeatsStop::Max),
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
                    rows: Vec::new(),
                    stop: None,
                });
        }
        let mut repeats = Repeats { configs };
        // A profiled repeat is no repeat of the statistics. Rows replay in
        // repeat order, so every round's look sees what it saw first time.
        let mut replay: Vec<&MeasurementRow> = recorded.iter().filter(|r| !r.profiled).collect();
        replay.sort_by_key(|r| r.repeat);
        for row in replay {
            repeats.record(row);
        }
        repeats
    }

    /// Whether `cell` is still wanted: its configuration has not stopped.
    pub fn wants(&self, cell: &Cell) -> bool {
        self.configs
            .get(&cell.config_id)
            .is_none_or(|c| c.stop.is_none())
    }

    /// Counts a recorded cell: the configurations that stop with it (its
    /// own, or with `until: decided` every one the round's look settles).
    pub fn record(&mut self, row: &MeasurementRow) -> Vec<Stopped> {
        let Some(config) = self.configs.get_mut(&row.config_id) else {
            return Vec::new();
        };
        config.measured.insert(row.repeat, usable_throughput(row));
        if matches!(config.policy, RepeatPolicy::Decided { .. }) {
            config.rows.push(row.clone());
        }
        if config.stop.is_some() {
            return Vec::new();
        }
        config.stop = config.decide();
        let mut stopped: Vec<String> = config
            .stop
            .map(|_| row.config_id.clone())
            .into_iter()
            .collect();
        if matches!(config.policy, RepeatPolicy::Decided { .. }) {
            stopped.extend(self.look());
        }
        stopped.iter().map(|id| self.stopped(id)).collect()
    }

    fn stopped(&self, id: &str) -> Stopped {
        let config = &self.configs[id];
        Stopped {
            config_id: id.to_string(),
            stop: config.stop.unwrap_or(RepeatsStop::Interrupted),
            repeats: config.measured.len() as u32,
            half_width: config.interval().map(|i| i.half_width),
        }
    }

    /// `until: decided`: at the end of a round (every configuration still
    /// going has the same number of repeats, at least `min`), the runtimes
    /// whose findings are all settled stop. Their ids, when any.
    fn look(&mut self) -> Vec<String> {
        let deciding = || {
            self.configs.values().filter_map(|c| match c.policy {
                RepeatPolicy::Decided { min, max } => Some((c, min, max)),
                _ => None,
            })
        };
        let going: Vec<u32> = deciding()
            .filter(|(c, _, _)| c.stop.is_none())
            .map(|(c, _, _)| c.measured.len() as u32)
            .collect();
        let round = going.first().copied().unwrap_or(0);
        let (min, max) = deciding().fold((u32::MAX, 0), |(lo, hi), (_, min, max)| {
            (lo.min(min), hi.max(max))
        });
        if going.is_empty() || going.iter().any(|n| *n != round) || round < min {
            return Vec::new();
        }
        let mut runtimes: Vec<String> = Vec::new();
        let mut rows: Vec<MeasurementRow> = Vec::new();
        for (c, _, _) in deciding() {
            if !runtimes.contains(&c.runtime) {
                runtimes.push(c.runtime.clone());
            }
            rows.extend(c.rows.iter().cloned());
        }
        let family = family_of(&runtimes, &rows, looks(min, max));
        let open = settle::open_runtimes(&family, max);
        let mut stopped = Vec::new();
        for (id, c) in self.configs.iter_mut() {
            let deciding = matches!(c.policy, RepeatPolicy::Decided { .. });
            if deciding && c.stop.is_none() && !open.contains(&c.runtime) {
                c.stop = Some(RepeatsStop::Decided);
                stopped.push(id.clone());
            }
        }
        stopped
    }

    /// repeats.csv: one row per configuration. Those not stopped are
    /// `skipped` when their runtime is in `skipped`, else `interrupted`.
    pub fn rows(&self, skipped: &BTreeSet<&str>) -> Vec<RepeatsRow> {
        self.configs
            .iter()
            .map(|(id, c)| {
                let interval = c.interval();
                let (target_ci, until) = match c.policy {
                    RepeatPolicy::Fixed { .. } => (None, None),
                    RepeatPolicy::Adaptive { target_ci, .. } => (Some(target_ci), None),
                    RepeatPolicy::Decided { .. } => (None, Some(RepeatsUntil::Decided)),
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
                    until,
                }
            })
            .collect()
    }
}

/// The throughput of a usable (`ok` or `suspect`) row, as compare counts it.
fn usable_throughput(row: &MeasurementRow) -> Option<f64> {
    (row.status != CellStatus::Failed && row.throughput_rps > 0.0).then_some(row.throughput_rps)
}
