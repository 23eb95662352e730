//! A run's repeats as the verdict rules read them: one value per usable
//! repeat, per configuration and metric, and each runtime's pooled
//! between-repeat noise. compare, history and `runner plan`'s design figures
//! all start from these.
use indexmap::IndexMap;
use serde::Serialize;

use super::effect::{Effect, PooledVariance};
use super::moderated::Prior;
use crate::results::model::{CellStatus, LoopMode, MeasurementRow};

/// Which way a metric improves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
}

/// Which of two sides an interval of the ratio B/A puts ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ahead {
    A,
    B,
    /// The interval holds 1.
    Neither,
}

impl Better {
    /// The side ahead on this metric by the interval `[lo, hi]` of B/A:
    /// one that excludes 1, read the way the metric improves.
    pub fn ahead(self, lo: f64, hi: f64) -> Ahead {
        let (b_higher, b_lower) = (lo > 1.0, hi < 1.0);
        let (b_better, a_better) = match self {
            Better::Higher => (b_higher, b_lower),
            Better::Lower => (b_lower, b_higher),
        };
        match (a_better, b_better) {
            (true, _) => Ahead::A,
            (_, true) => Ahead::B,
            _ => Ahead::Neither,
        }
    }
}

/// The metrics of a repeat that compare reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// Successful requests per second.
    Throughput,
    /// Median latency (coordinated-omission corrected in open loop).
    P50,
    /// 99th percentile latency.
    P99,
}

impl Metric {
    pub const ALL: [Metric; 3] = [Metric::Throughput, Metric::P50, Metric::P99];

    pub fn better(self) -> Better {
        match self {
            Metric::Throughput => Better::Higher,
            Metric::P50 | Metric::P99 => Better::Lower,
        }
    }

    /// The unadjusted one-sided p of `effect` for "B is worse" (`worse`)
    /// or "B is better", whichever way this metric improves.
    pub fn one_sided_p(self, effect: &Effect, worse: bool) -> f64 {
        let lower_is_worse = self.better() == Better::Higher;
        if lower_is_worse == worse {
            effect.p_lower
        } else {
            effect.p_higher
        }
    }

    /// One repeat's value of this metric.
    pub fn of_repeat(self, m: &MeasurementRow) -> f64 {
        match self {
            Metric::Throughput => m.throughput_rps,
            Metric::P50 => m.latency_p50_ms,
            Metric::P99 => m.latency_p99_ms,
        }
    }
}

/// One configuration's usable repeats in one run.
#[derive(Debug, Clone, Default)]
pub struct ConfigRepeats {
    pub runtime: String,
    pub axes: String,
    /// Per metric (in [`Metric::ALL`] order): one value per usable repeat.
    pub values: [Vec<f64>; 3],
    /// Repeats recorded `failed` (left out of the values).
    pub failed: usize,
    /// Open loop: the offered rate fixes the throughput, which then says
    /// nothing about the service; only latency is judged.
    pub open_loop: bool,
    /// Per metric: the runs the values come from, as indices into the
    /// experiment's history (a history baseline pools the runs of a regime,
    /// which may differ by metric); empty for one run read on its own.
    pub at: [Vec<usize>; 3],
}

impl ConfigRepeats {
    pub fn of(&self, metric: Metric) -> &[f64] {
        &self.values[metric as usize]
    }

    pub fn usable(&self) -> usize {
        self.values[0].len()
    }

    /// The runs the values of `metric` come from (at least one).
    pub fn runs(&self, metric: Metric) -> usize {
        self.at[metric as usize].len().max(1)
    }
}

/// Every configuration of one run, by config id, in run order.
pub type RunRepeats = IndexMap<String, ConfigRepeats>;

/// Groups measurement rows into usable repeats per configuration (failed
/// repeats are counted, not used).
pub fn run_repeats(rows: &[MeasurementRow]) -> RunRepeats {
    let mut out = RunRepeats::new();
    for m in rows {
        let entry = out
            .entry(m.config_id.clone())
            .or_insert_with(|| ConfigRepeats {
                runtime: m.runtime.clone(),
                axes: m.axes.clone(),
                open_loop: m.mode == LoopMode::Open,
                ..Default::default()
            });
        if m.status == CellStatus::Failed {
            entry.failed += 1;
            continue;
        }
        for metric in Metric::ALL {
            entry.values[metric as usize].push(metric.of_repeat(m));
        }
    }
    out
}

/// Each runtime's between-repeat noise per metric, in one run: the pool of
/// its configurations and the prior that moderates each configuration's own.
#[derive(Debug, Clone, Default)]
pub struct RunNoise {
    by_runtime: IndexMap<String, [Option<Prior>; 3]>,
}

impl RunNoise {
    pub fn of(run: &RunRepeats) -> Self {
        let mut by_runtime = IndexMap::new();
        let runtimes: Vec<&str> = run.values().map(|c| c.runtime.as_str()).collect();
        for rt in runtimes {
            if by_runtime.contains_key(rt) {
                continue;
            }
            let pools = Metric::ALL.map(|metric| {
                Prior::fit(
                    run.values()
                        .filter(|c| c.runtime == rt)
                        .map(|c| c.of(metric)),
                )
            });
            by_runtime.insert(rt.to_string(), pools);
        }
        RunNoise { by_runtime }
    }

    /// The runtime's pooled noise (every configuration alike): what the
    /// descriptive sections and the design figures use.
    pub fn get(&self, runtime: &str, metric: Metric) -> Option<PooledVariance> {
        self.by_runtime.get(runtime)?[metric as usize].map(|p| p.pooled)
    }

    /// One configuration's noise, its own moderated toward the runtime's
    /// (stats::moderated): what a verdict uses.
    pub fn moderated(
        &self,
        runtime: &str,
        metric: Metric,
        values: &[f64],
    ) -> Option<PooledVariance> {
        self.prior(runtime, metric).map(|p| p.moderate(values))
    }

    /// The runtime's prior for `metric`.
    pub fn prior(&self, runtime: &str, metric: Metric) -> Option<Prior> {
        self.by_runtime.get(runtime)?[metric as usize]
    }

    pub fn runtimes(&self) -> impl Iterator<Item = &str> {
        self.by_runtime.keys().map(String::as_str)
    }
}
