//! OpenMetrics text exposition: one gauge family per metric, a sample per
//! configuration labelled with the experiment, run, runtime, config id and
//! each axis, values in base units (seconds), `# EOF` at the end. For a
//! textfile collector or a pushgateway that keeps a run's figures beside
//! the service's own.
use super::{Exported, ExportedConfig};
use crate::stats::Metric;

/// Labels every sample has; an axis with one of these names is prefixed `axis_`.
const FIXED_LABELS: [&str; 4] = ["experiment", "run", "runtime", "config"];

struct Family {
    name: &'static str,
    unit: Option<&'static str>,
    help: &'static str,
    value: fn(&ExportedConfig) -> f64,
}

const FAMILIES: [Family; 4] = [
    Family {
        name: "runner_throughput_requests_per_second",
        unit: Some("requests_per_second"),
        help: "Successful requests per second: geometric mean of the usable repeats.",
        value: |c| c.figure(Metric::Throughput).mean,
    },
    Family {
        name: "runner_latency_p50_seconds",
        unit: Some("seconds"),
        help: "Median latency (coordinated-omission corrected): geometric mean of the usable repeats.",
        value: |c| c.figure(Metric::P50).mean / 1e3,
    },
    Family {
        name: "runner_latency_p99_seconds",
        unit: Some("seconds"),
        help: "99th percentile latency (coordinated-omission corrected): geometric mean of the usable repeats.",
        value: |c| c.figure(Metric::P99).mean / 1e3,
    },
    Family {
        name: "runner_usable_repeats",
        unit: None,
        help: "Repeats of the configuration that the figures above are taken over.",
        value: |c| c.figure(Metric::Throughput).repeats.len() as f64,
    },
];

pub fn render(run: &Exported) -> String {
    let mut out = String::new();
    for family in &FAMILIES {
        out.push_str(&format!("# TYPE {} gauge\n", family.name));
        if let Some(unit) = family.unit {
            out.push_str(&format!("# UNIT {} {unit}\n", family.name));
        }
        out.push_str(&format!("# HELP {} {}\n", family.name, family.help));
        for c in &run.configs {
            out.push_str(&format!(
                "{}{{{}}} {}\n",
                family.name,
                labels(run, c),
                (family.value)(c)
            ));
        }
    }
    out.push_str("# EOF\n");
    out
}

fn labels(run: &Exported, c: &ExportedConfig) -> String {
    let mut pairs: Vec<(String, &str)> = vec![
        ("experiment".into(), run.experiment.as_str()),
        ("run".into(), run.run_id.as_str()),
        ("runtime".into(), c.runtime.as_str()),
        ("config".into(), c.config_id.as_str()),
    ];
    for (name, value) in &c.axes {
        pairs.push((label_name(name), value.as_str()));
    }
    pairs
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
        .collect::<Vec<_>>()
        .join(",")
}

/// An axis name as a label name: `[a-zA-Z_][a-zA-Z0-9_]*`, never one of
/// the fixed labels and never `__`-prefixed (reserved).
fn label_name(axis: &str) -> String {
    let mut name: String = axis
        .chars()
        .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '_' })
        .collect();
    if name.is_empty() || name.starts_with(|ch: char| ch.is_ascii_digit()) || name.starts_with("__")
    {
        name.insert_str(0, "axis_");
    }
    if FIXED_LABELS.contains(&name.as_str()) {
        name.insert_str(0, "axis_");
    }
    name
}

/// A label value: backslash, double quote and line feed escaped.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_names_become_label_names() {
        assert_eq!(label_name("payload"), "payload");
        assert_eq!(label_name("log-level"), "log_level");
        assert_eq!(label_name("runtime"), "axis_runtime");
        assert_eq!(label_name("1st"), "axis_1st");
        assert_eq!(label_name("__x"), "axis___x");
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
