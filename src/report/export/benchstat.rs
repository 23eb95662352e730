//! Go's benchmark text format (golang.org/x/perf/benchfmt), which benchstat
//! reads: configuration lines (`key: value`: what makes runs comparable,
//! never the run id or start time, which benchstat would take for a
//! difference and put each run in a table of its own), `Unit`
//! metadata lines saying which way each unit improves, then one result
//! line per usable repeat, `BenchmarkExperiment/runtime=…/axis=value…
//! 1 <req/s> req/s <p50> p50-ms <p99> p99-ms`. The sub-name keys let
//! benchstat pivot: `benchstat -col /runtime run.txt`.
use super::{Exported, ExportedConfig};
use crate::stats::Metric;

const UNITS: [(Metric, &str, &str); 3] = [
    (Metric::Throughput, "req/s", "higher"),
    (Metric::P50, "p50-ms", "lower"),
    (Metric::P99, "p99-ms", "lower"),
];

pub fn render(run: &Exported) -> String {
    let mut out = String::new();
    for (key, value) in [
        ("experiment", &run.experiment),
        ("host", &run.hostname),
        ("cpu", &run.cpu_model),
        ("kernel", &run.kernel),
        ("spec-sha256", &run.spec_hash),
        ("runner-version", &run.runner_version),
    ] {
        out.push_str(&format!("{key}: {}\n", one_line(value)));
    }
    for (_, unit, better) in UNITS {
        out.push_str(&format!("Unit {unit} better={better}\n"));
    }
    for c in &run.configs {
        let name = name(&run.experiment, c);
        for repeat in 0..c.figure(Metric::Throughput).repeats.len() {
            let values: Vec<String> = UNITS
                .iter()
                .map(|&(m, unit, _)| format!("{} {unit}", c.figure(m).repeats[repeat]))
                .collect();
            out.push_str(&format!("{name} 1 {}\n", values.join(" ")));
        }
    }
    out
}

/// `BenchmarkQuickstart/runtime=go-stdlib/payload=7/concurrency=12`: the
/// experiment (first letter upper case, as Go names benchmarks after
/// `Benchmark`), then the runtime and each axis as `/key=value`.
fn name(experiment: &str, c: &ExportedConfig) -> String {
    let mut chars = experiment.chars();
    let mut out = String::from("Benchmark");
    if let Some(first) = chars.next() {
        out.extend(first.to_uppercase());
        out.push_str(chars.as_str());
    }
    let mut parts = vec![("runtime", c.runtime.as_str())];
    parts.extend(c.axes.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    for (key, value) in parts {
        out.push_str(&format!("/{}={}", part(key), part(value)));
    }
    out
}

/// A name part: no white space (it ends the name) and no `/` (it starts
/// a sub-name).
fn part(text: &str) -> String {
    text.chars()
        .map(|ch| {
            if ch.is_whitespace() || ch == '/' {
                '_'
            } else {
                ch
            }
        })
        .collect()
}

/// A configuration value on one line.
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}
