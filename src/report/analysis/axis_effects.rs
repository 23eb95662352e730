//! What switching one axis does to each runtime: request logging on
//! (`log: ["false", "true"]`), metrics on, another JDK. The 2020 study's
//! main finding was such a switch (logging was the main cost), and it
//! differs by runtime, so the question is per runtime: "what does turning
//! logging on cost Helidon, and what does it cost Go-Kit?".
//!
//! For each axis that is a switch (not the workload's `scenario`, nor the
//! load's `payload` and `concurrency`, whose effects are the report's other
//! tables), each of its values after the first, and each runtime: over the
//! points of that runtime that differ only in this axis (`log=false` against
//! `log=true`, every other axis equal), the runtime-pair rule
//! ([`crate::report::analysis::pairs::PAIR_RULE`]) with the runtime held and the axis value as
//! the side: the ratio to/from is the geometric mean of those points'
//! ratios, its 95% interval a t interval over them, and a point counts for a
//! side when its own interval from the repeats (the runtime's pooled noise)
//! lies on that side of 1. Throughput, p99 and requests per service
//! CPU-second: a switch can cost CPU that a many-core host hides from
//! throughput (the study saw Java offload logging to other cores).
use crate::stats::findings::axis_parts as parts;
use serde::Serialize;

use crate::report::analysis::efficiency::EfficiencyRepeats;
use crate::report::analysis::pairs::pair_figures;
use crate::stats::effect::PooledVariance;
use crate::stats::{Better, Metric, RunNoise, RunRepeats};

/// Axes whose effect is not a switch's: the workload and the load's shape.
const NOT_SWITCHES: [&str; 3] = ["scenario", "payload", "concurrency"];

/// What a switch without a point on both sides (or without CPU figures) says.
const NO_POINTS: &str = "no point measured on both sides";

/// One measure of one switch for one runtime: `to` over `from`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SwitchMeasure {
    /// Points measured on both sides.
    pub points: usize,
    pub ratio: Option<f64>,
    /// Its 95% interval over the points; none with fewer than 2.
    pub ratio_lo: Option<f64>,
    pub ratio_hi: Option<f64>,
    /// `x0.512 [0.301, 0.871] over 4 cells (log=true ahead in 0, log=false in 4, 0 ties)`.
    pub sentence: String,
}

/// One axis switched from its first value to another, for one runtime.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AxisEffect {
    pub axis: String,
    pub from: String,
    pub to: String,
    pub runtime: String,
    pub throughput: SwitchMeasure,
    pub p99: SwitchMeasure,
    pub rps_per_cpu_s: SwitchMeasure,
}

fn value_of<'a>(axes: &'a str, axis: &str) -> Option<&'a str> {
    parts(axes)
        .into_iter()
        .find_map(|(k, v)| (k == axis).then_some(v))
}

/// `axes` with `axis` set to `value`.
fn with_value(axes: &str, axis: &str, value: &str) -> String {
    parts(axes)
        .into_iter()
        .map(|(k, v)| format!("{k}={}", if k == axis { value } else { v }))
        .collect::<Vec<_>>()
        .join(",")
}

/// The switch axes and their values, in the order the run's configurations
/// first show them (the spec's order: the first value is the baseline).
fn switches(repeats: &RunRepeats) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for config in repeats.values() {
        for (k, v) in parts(&config.axes) {
            if NOT_SWITCHES.contains(&k) {
                continue;
            }
            let i = match out.iter().position(|(axis, _)| axis == k) {
                Some(i) => i,
                None => {
                    out.push((k.to_string(), Vec::new()));
                    out.len() - 1
                }
            };
            if !out[i].1.iter().any(|x| x == v) {
                out[i].1.push(v.to_string());
            }
        }
    }
    out.retain(|(_, values)| values.len() > 1);
    out
}

/// Every switch x later value x runtime that has a point on both sides.
pub(crate) fn axis_effects(
    runtimes: &[String],
    repeats: &RunRepeats,
    noise: &RunNoise,
    efficiency: &[EfficiencyRepeats],
) -> Vec<AxisEffect> {
    let mut out = Vec::new();
    for (axis, values) in switches(repeats) {
        let from = &values[0];
        for to in &values[1..] {
            for rt in runtimes {
                // Each point of `rt` at `from`, with its twin at `to`.
                let twins: Vec<(&str, String)> = repeats
                    .values()
                    .filter(|c| &c.runtime == rt && value_of(&c.axes, &axis) == Some(from))
                    .map(|c| (c.axes.as_str(), with_value(&c.axes, &axis, to)))
                    .filter(|(_, twin)| {
                        repeats
                            .values()
                            .any(|c| &c.runtime == rt && &c.axes == twin)
                    })
                    .collect();
                if twins.is_empty() {
                    continue;
                }
                let (a, b) = (format!("{axis}={from}"), format!("{axis}={to}"));
                let of = |metric: Metric| {
                    let config = |axes: &str| {
                        repeats
                            .values()
                            .find(|c| &c.runtime == rt && c.axes == axes)
                            .map_or(&[][..], |c| c.of(metric))
                    };
                    let pool = noise.get(rt, metric);
                    let cells = twins.iter().map(|(x, y)| (config(x), config(y)));
                    measure(
                        pair_figures(cells, (pool, pool), metric.better()),
                        &a,
                        &b,
                        metric.better(),
                    )
                };
                let efficiency_of = |axes: &str| {
                    efficiency
                        .iter()
                        .find(|r| r.runtime == rt && r.axes == axes)
                        .map_or(&[][..], |r| r.values.as_slice())
                };
                let pool = PooledVariance::of(
                    efficiency
                        .iter()
                        .filter(|r| r.runtime == rt)
                        .map(|r| r.values.as_slice()),
                );
                let cells = twins
                    .iter()
                    .map(|(x, y)| (efficiency_of(x), efficiency_of(y)));
                out.push(AxisEffect {
                    axis: axis.clone(),
                    from: from.clone(),
                    to: to.clone(),
                    runtime: rt.clone(),
                    throughput: of(Metric::Throughput),
                    p99: of(Metric::P99),
                    rps_per_cpu_s: measure(
                        pair_figures(cells, (pool, pool), Better::Higher),
                        &a,
                        &b,
                        Better::Higher,
                    ),
                });
            }
        }
    }
    out
}

fn measure(
    f: crate::report::analysis::pairs::PairFigures,
    a: &str,
    b: &str,
    better: Better,
) -> SwitchMeasure {
    SwitchMeasure {
        points: f.cells,
        ratio: f.ratio,
        ratio_lo: f.ratio_lo,
        ratio_hi: f.ratio_hi,
        sentence: f.sentence(a, b, better, NO_POINTS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::analysis::cells::tests::row;
    use crate::report::analysis::efficiency::efficiency_repeats;
    use crate::results::CellStatus::Ok;
    use crate::results::MeasurementRow;
    use crate::stats::run_repeats;

    /// Three repeats of `rt` at `axes` around `rps` (p99 = 1000 / req/s).
    fn repeats_of(rt: &str, axes: &str, rps: f64) -> Vec<MeasurementRow> {
        (1..=3)
            .map(|r| {
                let rps = rps * (1.0 + 0.01 * f64::from(r));
                let mut m = row(rt, axes, r, rps, Ok);
                m.latency_p99_ms = 1000.0 / rps;
                m
            })
            .collect()
    }

    #[test]
    fn logging_halves_one_runtime_and_not_the_other_and_each_is_told_apart() {
        let mut rows = Vec::new();
        for metrics in ["false", "true"] {
            rows.extend(repeats_of(
                "go",
                &format!("log=false,metrics={metrics},concurrency=100"),
                1000.0,
            ));
            rows.extend(repeats_of(
                "go",
                &format!("log=true,metrics={metrics},concurrency=100"),
                990.0,
            ));
            rows.extend(repeats_of(
                "java",
                &format!("log=false,metrics={metrics},concurrency=100"),
                2000.0,
            ));
            rows.extend(repeats_of(
                "java",
                &format!("log=true,metrics={metrics},concurrency=100"),
                1000.0,
            ));
        }
        let repeats = run_repeats(&rows);
        let noise = RunNoise::of(&repeats);
        let efficiency = efficiency_repeats(&rows);
        let runtimes = ["go".to_string(), "java".to_string()];
        let effects = axis_effects(&runtimes, &repeats, &noise, &efficiency);
        // log and metrics are switches; concurrency (one value anyway) is not.
        let keys: Vec<(&str, &str, &str, &str)> = effects
            .iter()
            .map(|e| {
                (
                    e.axis.as_str(),
                    e.from.as_str(),
                    e.to.as_str(),
                    e.runtime.as_str(),
                )
            })
            .collect();
        assert_eq!(
            keys,
            [
                ("log", "false", "true", "go"),
                ("log", "false", "true", "java"),
                ("metrics", "false", "true", "go"),
                ("metrics", "false", "true", "java"),
            ]
        );
        let java_log = &effects[1];
        assert_eq!(java_log.throughput.points, 2);
        assert!(
            (java_log.throughput.ratio.unwrap() - 0.5).abs() < 1e-3,
            "{java_log:?}"
        );
        assert!(
            java_log
                .throughput
                .sentence
                .contains("log=true ahead in 0, log=false in 2"),
            "{}",
            java_log.throughput.sentence
        );
        assert!(
            (java_log.p99.ratio.unwrap() - 2.0).abs() < 1e-2,
            "{java_log:?}"
        );
        let go_log = &effects[0];
        assert!(
            (go_log.throughput.ratio.unwrap() - 0.99).abs() < 1e-3,
            "{go_log:?}"
        );
        // Metrics changed nothing here.
        assert!((effects[3].throughput.ratio.unwrap() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_runtime_without_both_sides_has_no_row_and_one_value_is_no_switch() {
        let mut rows = repeats_of("go", "jdk=17,log=false", 1000.0);
        rows.extend(repeats_of("java", "jdk=25,log=false", 900.0));
        rows.extend(repeats_of("java", "jdk=25,log=true", 450.0));
        let repeats = run_repeats(&rows);
        let effects = axis_effects(
            &["go".into(), "java".into()],
            &repeats,
            &RunNoise::of(&repeats),
            &efficiency_repeats(&rows),
        );
        // jdk has two values, but no runtime ran both: no row; log: java only.
        assert_eq!(effects.len(), 1, "{effects:?}");
        assert_eq!(
            (effects[0].axis.as_str(), effects[0].runtime.as_str()),
            ("log", "java")
        );
        assert_eq!(
            with_value("jdk=25,log=false", "log", "true"),
            "jdk=25,log=true"
        );
    }
}
