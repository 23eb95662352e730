//! Per-configuration series: one point per run, with the repeat as the unit.
//!
//! A run's point for a configuration is the geometric mean of its usable
//! repeats (status ok or suspect; failed repeats measured nothing). Its 95%
//! interval is a t interval on the log mean, whose variance is the pooled
//! between-repeat log variance of that runtime across all its
//! configurations in that run (`effect::PooledVariance`): with two repeats a
//! configuration's own variance has one degree of freedom, the runtime's
//! pool has one per configuration.
use indexmap::IndexMap;
use serde::Serialize;

use crate::results::RunData;
use crate::results::model::{CellStatus, MeasurementRow};
use crate::stats::RunRepeats;
use crate::stats::effect::{PooledVariance, t_quantile};

/// Confidence level of a point's interval.
pub const POINT_LEVEL: f64 = 0.95;

/// The metrics a history follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Successful requests per second: higher is better.
    Throughput,
    /// 99th percentile latency in ms: lower is better.
    P99,
}

impl Metric {
    pub const ALL: [Metric; 2] = [Metric::Throughput, Metric::P99];

    pub fn value(self, row: &MeasurementRow) -> f64 {
        match self {
            Metric::Throughput => row.throughput_rps,
            Metric::P99 => row.latency_p99_ms,
        }
    }

    /// Whether a ratio new/old above 1 is an improvement.
    pub fn higher_is_better(self) -> bool {
        matches!(self, Metric::Throughput)
    }

    /// Whether going from `before` to `after` is a change for the worse.
    pub fn is_worse(self, before: f64, after: f64) -> bool {
        if self.higher_is_better() {
            after < before
        } else {
            after > before
        }
    }

    /// The same metric as the verdict rule names it.
    pub fn stats(self) -> crate::stats::Metric {
        match self {
            Metric::Throughput => crate::stats::Metric::Throughput,
            Metric::P99 => crate::stats::Metric::P99,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Metric::Throughput => "throughput",
            Metric::P99 => "p99 latency",
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Metric::Throughput => "req/s",
            Metric::P99 => "ms",
        }
    }
}

/// One run's value of one configuration and metric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// Index of the run in the history's runs (oldest first).
    pub run: usize,
    pub run_id: String,
    /// Geometric mean of the usable repeats.
    pub value: f64,
    /// The 95% interval of `value`; none when the run has no repeat noise to
    /// estimate (one repeat everywhere).
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    /// The usable repeats' values.
    pub repeats: Vec<f64>,
    /// The pooled between-repeat noise of the runtime in this run.
    #[serde(skip)]
    pub noise: Option<PooledVariance>,
}

/// A configuration's points for one metric, oldest first. A run without a
/// usable repeat of the configuration has no point.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub config_id: String,
    pub runtime: String,
    pub axes: String,
    pub metric: Metric,
    pub points: Vec<Point>,
    /// Measured in open loop (the newest run's mode): throughput is then
    /// the offered rate and is not judged.
    pub open_loop: bool,
    /// A candidate/control ratio (`ratio`), not a runtime's own figure.
    pub ratio: bool,
}

impl Series {
    pub fn values(&self) -> Vec<f64> {
        self.points.iter().map(|p| p.value).collect()
    }
}

fn usable(row: &MeasurementRow) -> bool {
    row.status != CellStatus::Failed
}

/// Every configuration of the runs (the newest run's order first, then
/// configurations only older runs had), each metric a series.
pub fn build(runs: &[RunData]) -> Vec<Series> {
    // config id -> (runtime, axes, open loop, a ratio)
    let mut configs: IndexMap<String, (String, String, bool, bool)> = IndexMap::new();
    for run in runs.iter().rev() {
        for row in &run.measurements {
            configs.entry(row.config_id.clone()).or_insert((
                row.runtime.clone(),
                row.axes.clone(),
                row.mode == crate::results::model::LoopMode::Open,
                false,
            ));
        }
    }
    // Then the candidate/control ratios of runs with `controls:` (`ratio`).
    for run in runs.iter().rev() {
        for ratio in super::ratio::configs(run) {
            configs
                .entry(ratio.config_id)
                .or_insert((ratio.runtime, ratio.axes, false, true));
        }
    }
    let per_run: Vec<RunValues> = runs.iter().map(RunValues::of).collect();
    let mut series = Vec::new();
    for (config_id, (runtime, axes, open_loop, ratio)) in &configs {
        for metric in Metric::ALL {
            let points = runs
                .iter()
                .zip(&per_run)
                .enumerate()
                .filter_map(|(i, (run, values))| values.point(i, run, config_id, runtime, metric))
                .collect();
            series.push(Series {
                config_id: config_id.to_string(),
                runtime: runtime.to_string(),
                axes: axes.to_string(),
                metric,
                points,
                open_loop: *open_loop,
                ratio: *ratio,
            });
        }
    }
    series
}

/// The series of runs already grouped into repeats (oldest first), as the
/// calibration draws them: points without intervals, run ids `run-<i>`.
pub fn from_repeats(runs: &[RunRepeats]) -> Vec<Series> {
    let Some(newest) = runs.last() else {
        return Vec::new();
    };
    let mut series = Vec::new();
    for (config_id, config) in newest {
        for metric in Metric::ALL {
            let points = runs
                .iter()
                .enumerate()
                .filter_map(|(i, run)| {
                    let repeats = run.get(config_id)?.of(metric.stats()).to_vec();
                    let value = crate::stats::log_mean(&repeats)?.exp();
                    Some(Point {
                        run: i,
                        run_id: format!("run-{i}"),
                        value,
                        lo: None,
                        hi: None,
                        repeats,
                        noise: None,
                    })
                })
                .collect();
            series.push(Series {
                config_id: config_id.clone(),
                runtime: config.runtime.clone(),
                axes: config.axes.clone(),
                metric,
                points,
                open_loop: config.open_loop,
                ratio: false,
            });
        }
    }
    series
}

/// One run's usable repeat values by (config, metric), and each runtime's
/// pooled noise by metric.
struct RunValues {
    repeats: IndexMap<(String, Metric), Vec<f64>>,
    noise: IndexMap<(String, Metric), PooledVariance>,
}

impl RunValues {
    fn of(run: &RunData) -> Self {
        let mut repeats: IndexMap<(String, Metric), Vec<f64>> = IndexMap::new();
        let mut runtime_groups: IndexMap<(String, Metric), Vec<Vec<f64>>> = IndexMap::new();
        for metric in Metric::ALL {
            let mut by_config: IndexMap<(&str, &str), Vec<f64>> = IndexMap::new();
            for row in run.measurements.iter().filter(|r| usable(r)) {
                let v = metric.value(row);
                if v > 0.0 && v.is_finite() {
                    by_config
                        .entry((row.config_id.as_str(), row.runtime.as_str()))
                        .or_default()
                        .push(v);
                }
            }
            let ratios = super::ratio::values(run, |r| metric.value(r))
                .into_iter()
                .map(|(ratio, values)| ((ratio.config_id, ratio.runtime), values));
            let own = by_config.into_iter().map(|((config, runtime), values)| {
                ((config.to_string(), runtime.to_string()), values)
            });
            for ((config, runtime), values) in own.chain(ratios) {
                runtime_groups
                    .entry((runtime, metric))
                    .or_default()
                    .push(values.clone());
                repeats.insert((config, metric), values);
            }
        }
        let noise = runtime_groups
            .into_iter()
            .filter_map(|(key, groups)| {
                PooledVariance::of(groups.iter().map(Vec::as_slice)).map(|v| (key, v))
            })
            .collect();
        RunValues { repeats, noise }
    }

    fn point(
        &self,
        run_index: usize,
        run: &RunData,
        config_id: &str,
        runtime: &str,
        metric: Metric,
    ) -> Option<Point> {
        let repeats = self.repeats.get(&(config_id.to_string(), metric))?;
        let logs: Vec<f64> = repeats.iter().map(|v| v.ln()).collect();
        let log_mean = logs.iter().sum::<f64>() / logs.len() as f64;
        let noise = self.noise.get(&(runtime.to_string(), metric)).copied();
        let half = noise.map(|v| {
            t_quantile(0.5 + POINT_LEVEL / 2.0, v.df) * (v.var / logs.len() as f64).sqrt()
        });
        Some(Point {
            run: run_index,
            run_id: run.status.run_id.clone(),
            value: log_mean.exp(),
            lo: half.map(|h| (log_mean - h).exp()),
            hi: half.map(|h| (log_mean + h).exp()),
            repeats: repeats.clone(),
            noise,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::{Environment, RunState, RunStatus};

    fn row(config: &str, runtime: &str, rps: f64, p99: f64, status: CellStatus) -> MeasurementRow {
        MeasurementRow {
            config_id: config.into(),
            runtime: runtime.into(),
            throughput_rps: rps,
            latency_p99_ms: p99,
            status,
            ..Default::default()
        }
    }

    fn run(id: &str, measurements: Vec<MeasurementRow>) -> RunData {
        RunData {
            dir: id.into(),
            status: RunStatus {
                state: RunState::Complete,
                run_id: id.into(),
                experiment: "x".into(),
                started_at: String::new(),
                updated_at: String::new(),
                cells_total: 0,
                cells_done: 0,
                quick_factor: None,
                spec_hash: String::new(),
                message: None,
                skipped_cells: Vec::new(),
            },
            environment: Environment::default(),
            schedule: Default::default(),
            controls: Vec::new(),
            pinning: None,
            derived_rates: None,
            trainings: Vec::new(),
            profiled: Vec::new(),
            profiles: Vec::new(),
            nmt: Vec::new(),
            configurations: vec![],
            lifecycle: vec![],
            measurements,
            repeats: vec![],
            title: None,
            description: None,
            report_templates: vec![],
        }
    }

    #[test]
    fn a_point_is_the_geometric_mean_of_usable_repeats_with_the_runtimes_pooled_interval() {
        let r = run(
            "r1",
            vec![
                row("go/c=1", "go", 100.0, 2.0, CellStatus::Ok),
                row("go/c=1", "go", 400.0, 8.0, CellStatus::Suspect),
                row("go/c=1", "go", 9999.0, 99.0, CellStatus::Failed),
                row("go/c=2", "go", 300.0, 1.0, CellStatus::Ok),
                row("go/c=2", "go", 300.0, 1.0, CellStatus::Ok),
            ],
        );
        let series = build(&[r]);
        assert_eq!(series.len(), 4);
        let tp = &series[0];
        assert_eq!(
            (tp.config_id.as_str(), tp.metric),
            ("go/c=1", Metric::Throughput)
        );
        let p = &tp.points[0];
        assert!((p.value - 200.0).abs() < 1e-9, "{p:?}");
        assert_eq!(p.repeats, [100.0, 400.0]);
        // Pool: c=1 has var of {ln 100, ln 400} = (ln 4)^2 / 2 on 1 df; c=2 adds 0 on 1 df.
        let var = (4f64.ln().powi(2) / 2.0) / 2.0;
        let half = t_quantile(0.975, 2.0) * (var / 2.0).sqrt();
        assert!(
            (p.lo.unwrap() - 200.0 * (-half).exp()).abs() < 1e-6,
            "{p:?}"
        );
        assert!((p.hi.unwrap() - 200.0 * half.exp()).abs() < 1e-6, "{p:?}");
    }

    #[test]
    fn a_run_without_usable_repeats_has_no_point_and_configs_follow_the_newest_run() {
        let old = run(
            "r1",
            vec![
                row("a", "go", 10.0, 1.0, CellStatus::Ok),
                row("b", "go", 10.0, 1.0, CellStatus::Ok),
            ],
        );
        let new = run(
            "r2",
            vec![
                row("b", "go", 11.0, 1.0, CellStatus::Ok),
                row("a", "go", 0.0, 0.0, CellStatus::Failed),
            ],
        );
        let series = build(&[old, new]);
        let ids: Vec<(&str, Metric)> = series
            .iter()
            .map(|s| (s.config_id.as_str(), s.metric))
            .collect();
        assert_eq!(
            ids,
            [
                ("b", Metric::Throughput),
                ("b", Metric::P99),
                ("a", Metric::Throughput),
                ("a", Metric::P99)
            ]
        );
        let a = &series[2];
        assert_eq!(a.points.len(), 1);
        assert_eq!((a.points[0].run, a.points[0].lo), (0, None));
        assert_eq!(
            series[0].points.iter().map(|p| p.run).collect::<Vec<_>>(),
            [0, 1]
        );
    }

    fn ratio_row(runtime: &str, axes: &str, repeat: u32, rps: f64) -> MeasurementRow {
        MeasurementRow {
            config_id: format!("{runtime}/{axes}"),
            runtime: runtime.into(),
            axes: axes.into(),
            repeat,
            throughput_rps: rps,
            latency_p99_ms: 1000.0 / rps,
            status: CellStatus::Ok,
            ..Default::default()
        }
    }

    #[test]
    fn a_candidate_over_its_control_is_a_series_of_ratios_repeat_by_repeat() {
        let mut night = run(
            "r",
            vec![
                ratio_row("new", "c=1", 1, 90.0),
                ratio_row("new", "c=1", 2, 80.0),
                ratio_row("old", "c=1", 1, 100.0),
                ratio_row("old", "c=1", 2, 100.0),
                ratio_row("new", "c=8", 1, 50.0),
            ],
        );
        night.controls = vec![("new".into(), "old".into())];
        let found = super::super::ratio::values(&night, |r| Metric::Throughput.value(r));
        assert_eq!(found.len(), 1, "c=8 has no control");
        assert_eq!(found[0].0.config_id, "new vs old/c=1");
        assert_eq!(found[0].1, vec![0.9, 0.8]);
        let series = build(&[night]);
        let ratio: Vec<&Series> = series.iter().filter(|s| s.ratio).collect();
        assert_eq!(ratio.len(), 2, "throughput and p99");
        assert_eq!(ratio[0].config_id, "new vs old/c=1");
        assert_eq!(ratio[0].points[0].repeats, vec![0.9, 0.8]);
        assert!((ratio[1].points[0].repeats[0] - 100.0 / 90.0).abs() < 1e-12);
    }
}
