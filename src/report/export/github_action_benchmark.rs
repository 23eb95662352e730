//! github-action-benchmark's custom formats: a JSON array of `{ name, unit,
//! value, range, extra }` (its src/extract.ts `BenchmarkResult`), one file
//! per direction, as the action takes one `tool` per step:
//! `customBiggerIsBetter` holds throughput, `customSmallerIsBetter` the
//! p50 and p99 latency. The value is the geometric mean of the usable
//! repeats; `range` is `± x`, the wider side of its 95% interval (left out
//! with one repeat); `extra` names the runtime, repeats and run.
use serde::Serialize;

use super::{Exported, ExportedConfig};
use crate::stats::Metric;

#[derive(Serialize)]
struct Entry {
    name: String,
    unit: &'static str,
    value: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    range: Option<String>,
    extra: String,
}

fn entry(run: &Exported, c: &ExportedConfig, metric: Metric) -> Entry {
    let figure = c.figure(metric);
    let (name, unit) = match metric {
        Metric::Throughput => (c.config_id.clone(), "req/s"),
        Metric::P50 => (format!("{} p50", c.config_id), "ms"),
        Metric::P99 => (format!("{} p99", c.config_id), "ms"),
    };
    Entry {
        name,
        unit,
        value: figure.mean,
        range: figure
            .interval
            .map(|(lo, hi)| format!("± {}", (figure.mean - lo).max(hi - figure.mean))),
        extra: format!(
            "runtime: {}\nrepeats: {}\nrun: {} ({})",
            c.runtime,
            figure.repeats.len(),
            run.run_id,
            run.experiment
        ),
    }
}

fn render(run: &Exported, metrics: &[Metric]) -> String {
    let entries: Vec<Entry> = run
        .configs
        .iter()
        .flat_map(|c| metrics.iter().map(move |&m| entry(run, c, m)))
        .collect();
    serde_json::to_string_pretty(&entries).expect("plain data serializes") + "\n"
}

/// `tool: customBiggerIsBetter`.
pub fn bigger(run: &Exported) -> String {
    render(run, &[Metric::Throughput])
}

/// `tool: customSmallerIsBetter`.
pub fn smaller(run: &Exported) -> String {
    render(run, &[Metric::P50, Metric::P99])
}
