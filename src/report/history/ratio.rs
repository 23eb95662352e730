//! The candidate/control ratio of a run with `controls:`, followed over
//! nights like a configuration of its own: per candidate configuration and
//! metric, one value per repeat, the candidate's repeat over the control's
//! repeat of the same number at the same axes. The two were measured side
//! by side (the alternating order a spec with `controls` runs in), so what
//! moves the host from one night to the next cancels in every value. It is
//! named
//! `<candidate> vs <control>/<axes>`; throughput's ratio is better higher,
//! p99's lower, as the metrics themselves. Its tests are series.rs's (they
//! need a run).
use std::collections::HashMap;

use indexmap::IndexMap;

use crate::results::RunData;
use crate::results::model::{CellStatus, MeasurementRow};

/// The runtime a ratio series is filed under.
pub fn ratio_runtime(candidate: &str, control: &str) -> String {
    format!("{candidate} vs {control}")
}

/// One ratio series of a run: its configuration id, runtime and axes, and
/// the pair it divides.
pub struct RatioConfig {
    pub config_id: String,
    pub runtime: String,
    pub axes: String,
    candidate: String,
    control: String,
}

/// The run's rows by (runtime, axes, repeat), read once: both functions
/// below look rows up by that key for every ratio and repeat.
fn rows_by_key(run: &RunData) -> HashMap<(&str, &str, u32), &MeasurementRow> {
    run.measurements
        .iter()
        .map(|r| ((r.runtime.as_str(), r.axes.as_str(), r.repeat), r))
        .collect()
}

/// Every ratio the run's controls make: one per candidate configuration
/// whose axes the control measured too, in the run's order.
pub fn configs(run: &RunData) -> Vec<RatioConfig> {
    let measured: std::collections::HashSet<(&str, &str)> = run
        .measurements
        .iter()
        .map(|r| (r.runtime.as_str(), r.axes.as_str()))
        .collect();
    let mut out: IndexMap<String, RatioConfig> = IndexMap::new();
    for (candidate, control) in &run.controls {
        for row in run.measurements.iter().filter(|r| &r.runtime == candidate) {
            if !measured.contains(&(control.as_str(), row.axes.as_str())) {
                continue;
            }
            let runtime = ratio_runtime(candidate, control);
            let config_id = format!("{runtime}/{}", row.axes);
            out.entry(config_id.clone()).or_insert(RatioConfig {
                config_id,
                runtime,
                axes: row.axes.clone(),
                candidate: candidate.clone(),
                control: control.clone(),
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
    let rows = rows_by_key(run);
    let value = |runtime: &str, axes: &str, repeat: u32| {
        rows.get(&(runtime, axes, repeat))
            .filter(|r| usable(r))
            .map(|r| metric(r))
            .filter(|v| *v > 0.0 && v.is_finite())
    };
    let mut out = Vec::new();
    for config in configs(run) {
        let mut repeats: Vec<u32> = rows
            .keys()
            .filter(|(runtime, axes, _)| *runtime == config.candidate && *axes == config.axes)
            .map(|(_, _, repeat)| *repeat)
            .collect();
        repeats.sort_unstable();
        let ratios: Vec<f64> = repeats
            .into_iter()
            .filter_map(|n| {
                let (candidate, control) = (config.candidate.as_str(), config.control.as_str());
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
