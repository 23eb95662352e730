//! The candidate/control ratio of a run with `controls:`, followed over
//! nights like a configuration of its own: per candidate configuration and
//! metric, one value per repeat, the candidate's repeat over the control's
//! repeat of the same number at the same axes. The two were measured side
//! by side (the interleaved order that `controls` requires), so what moves
//! the host from one night to the next cancels in every value, and the
//! series is far steadier than either runtime's own. It is named
//! `<candidate> vs <control>/<axes>`; throughput's ratio is better higher,
//! p99's lower, as the metrics themselves. Its tests are series.rs's (they
//! need a run).
use indexmap::IndexMap;

use crate::results::RunData;
use crate::results::model::{CellStatus, MeasurementRow};

/// The runtime a ratio series is filed under.
pub fn ratio_runtime(candidate: &str, control: &str) -> String {
    format!("{candidate} vs {control}")
}

/// One ratio series of a run: its configuration id, runtime and axes.
pub struct RatioConfig {
    pub config_id: String,
    pub runtime: String,
    pub axes: String,
}

/// Every ratio the run's controls make: one per candidate configuration
/// whose axes the control measured too, in the run's order.
pub fn configs(run: &RunData) -> Vec<RatioConfig> {
    let mut out: IndexMap<String, RatioConfig> = IndexMap::new();
    for (candidate, control) in &run.controls {
        let measured = |runtime: &str, axes: &str| {
            run.measurements
                .iter()
                .any(|r| r.runtime == runtime && r.axes == axes)
        };
        for row in run.measurements.iter().filter(|r| &r.runtime == candidate) {
            if !measured(control, &row.axes) {
                continue;
            }
            let runtime = ratio_runtime(candidate, control);
            let config_id = format!("{runtime}/{}", row.axes);
            out.entry(config_id.clone()).or_insert(RatioConfig {
                config_id,
                runtime,
                axes: row.axes.clone(),
            });
        }
    }
    out.into_values().collect()
}

/// Per ratio of [`configs`], the ratios of the figure `metric` reads from a
/// row, repeat by repeat (a repeat either side failed or did not measure
/// leaves no value).
pub fn values(
    run: &RunData,
    metric: impl Fn(&MeasurementRow) -> f64,
) -> Vec<(RatioConfig, Vec<f64>)> {
    let value = |runtime: &str, axes: &str, repeat: u32| {
        run.measurements
            .iter()
            .find(|r| r.runtime == runtime && r.axes == axes && r.repeat == repeat)
            .filter(|r| usable(r))
            .map(&metric)
            .filter(|v| *v > 0.0 && v.is_finite())
    };
    let mut out = Vec::new();
    for config in configs(run) {
        let Some((candidate, control)) = run
            .controls
            .iter()
            .find(|(a, b)| ratio_runtime(a, b) == config.runtime)
        else {
            continue;
        };
        let mut repeats: Vec<u32> = run
            .measurements
            .iter()
            .filter(|r| &r.runtime == candidate && r.axes == config.axes)
            .map(|r| r.repeat)
            .collect();
        repeats.sort_unstable();
        repeats.dedup();
        let ratios: Vec<f64> = repeats
            .into_iter()
            .filter_map(|n| {
                Some(value(candidate, &config.axes, n)? / value(control, &config.axes, n)?)
            })
            .collect();
        if !ratios.is_empty() {
            out.push((config, ratios));
        }
    }
    out
}

fn usable(row: &MeasurementRow) -> bool {
    row.status != CellStatus::Failed && !row.profiled
}
