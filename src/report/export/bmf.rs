//! Bencher Metric Format: `{ benchmark: { measure: { value, lower_value,
//! upper_value } } }`, one benchmark per configuration (its config id),
//! measures `throughput` (req/s, Bencher's built-in operations/second),
//! `latency-p50` and `latency-p99` (nanoseconds, the unit of Bencher's
//! built-in `latency`; Bencher creates a measure the first time it sees
//! its slug). The value is the geometric mean of the usable repeats, the
//! bounds its 95% interval (left out with one repeat).
use indexmap::IndexMap;
use serde::Serialize;

use super::{Exported, Figure};
use crate::stats::Metric;

#[derive(Serialize)]
struct Measure {
    value: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    lower_value: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    upper_value: Option<f64>,
}

/// The measure slug of a metric and its factor from runner's unit.
fn slug(metric: Metric) -> (&'static str, f64) {
    match metric {
        Metric::Throughput => ("throughput", 1.0),
        Metric::P50 => ("latency-p50", 1e6),
        Metric::P99 => ("latency-p99", 1e6),
    }
}

fn measure(figure: &Figure, factor: f64) -> Measure {
    Measure {
        value: figure.mean * factor,
        lower_value: figure.interval.map(|(lo, _)| lo * factor),
        upper_value: figure.interval.map(|(_, hi)| hi * factor),
    }
}

pub fn render(run: &Exported) -> String {
    let document: IndexMap<&str, IndexMap<&str, Measure>> = run
        .configs
        .iter()
        .map(|c| {
            let measures = Metric::ALL
                .iter()
                .map(|&m| {
                    let (name, factor) = slug(m);
                    (name, measure(c.figure(m), factor))
                })
                .collect();
            (c.config_id.as_str(), measures)
        })
        .collect();
    serde_json::to_string_pretty(&document).expect("plain data serializes") + "\n"
}
