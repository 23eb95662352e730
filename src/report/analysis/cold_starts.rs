//! The report's view of startup beyond the measured starts: the cold starts
//! (`startup.repeats`, lifecycle phase `startup`) as median and range per
//! runtime of each of the three times, and the starts whose log hit its cap.
use serde::Serialize;

use crate::results::{LifecycleRow, Phase};
use crate::stats::spread::Spread;

/// One runtime's cold starts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColdStartRow {
    pub runtime: String,
    /// Cold starts that completed (all three times recorded).
    pub starts: usize,
    /// Cold starts that did not complete.
    pub failed: usize,
    /// Spawn -> the port accepts (median, min, max, ... in ms).
    pub port_ms: Option<Spread>,
    /// Spawn -> the first 200 from health.
    pub healthy_ms: Option<Spread>,
    /// Spawn -> the first successful workload request.
    pub first_request_ms: Option<Spread>,
}

/// The cold starts of every runtime that has any, runtimes in `order` first.
pub fn cold_starts(lifecycle: &[LifecycleRow], order: &[String]) -> Vec<ColdStartRow> {
    let rows: Vec<&LifecycleRow> = lifecycle
        .iter()
        .filter(|l| l.phase == Phase::Startup)
        .collect();
    runtimes_of(&rows, order)
        .into_iter()
        .map(|runtime| {
            let mine: Vec<&&LifecycleRow> = rows.iter().filter(|l| l.runtime == runtime).collect();
            let complete: Vec<&&LifecycleRow> = mine
                .iter()
                .copied()
                .filter(|l| l.first_request_ms.is_some())
                .collect();
            let spread = |f: fn(&LifecycleRow) -> Option<f64>| {
                let values: Vec<f64> = complete.iter().filter_map(|l| f(l)).collect();
                Spread::of(&values)
            };
            ColdStartRow {
                starts: complete.len(),
                failed: mine.len() - complete.len(),
                port_ms: spread(|l| l.port_ms),
                healthy_ms: spread(|l| l.startup_ms),
                first_request_ms: spread(|l| l.first_request_ms),
                runtime,
            }
        })
        .collect()
}

/// One runtime whose log was cut by the cap in at least one start.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogCapRow {
    pub runtime: String,
    /// Starts (of any phase) whose log lost bytes.
    pub starts: usize,
    pub dropped_bytes: u64,
}

/// Runtimes whose service or training log hit the cap.
pub fn log_caps(lifecycle: &[LifecycleRow], order: &[String]) -> Vec<LogCapRow> {
    let capped: Vec<&LifecycleRow> = lifecycle
        .iter()
        .filter(|l| l.log_dropped_bytes > 0)
        .collect();
    runtimes_of(&capped, order)
        .into_iter()
        .map(|runtime| {
            let mine: Vec<&&LifecycleRow> =
                capped.iter().filter(|l| l.runtime == runtime).collect();
            LogCapRow {
                starts: mine.len(),
                dropped_bytes: mine.iter().map(|l| l.log_dropped_bytes).sum(),
                runtime,
            }
        })
        .collect()
}

/// The runtimes of `rows`: those in `order` first, then the others as met.
fn runtimes_of(rows: &[&LifecycleRow], order: &[String]) -> Vec<String> {
    let mut names: Vec<String> = order
        .iter()
        .filter(|r| rows.iter().any(|l| &l.runtime == *r))
        .cloned()
        .collect();
    for l in rows {
        if !names.contains(&l.runtime) {
            names.push(l.runtime.clone());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(runtime: &str, port: f64, healthy: f64, first: Option<f64>) -> LifecycleRow {
        LifecycleRow {
            runtime: runtime.into(),
            phase: Phase::Startup,
            port_ms: Some(port),
            startup_ms: Some(healthy),
            first_request_ms: first,
            ..Default::default()
        }
    }

    #[test]
    fn median_and_range_of_each_time_over_the_completed_cold_starts() {
        let run = vec![
            start("go", 9.0, 10.0, Some(11.0)),
            start("go", 12.0, 13.0, Some(15.0)),
            start("go", 10.0, 11.0, Some(12.0)),
            start("go", 500.0, 900.0, None),
            LifecycleRow {
                runtime: "go".into(),
                phase: Phase::Measure,
                startup_ms: Some(99.0),
                ..Default::default()
            },
        ];
        let rows = cold_starts(&run, &["go".into()]);
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].starts, rows[0].failed), (3, 1));
        let healthy = rows[0].healthy_ms.unwrap();
        assert_eq!(
            (healthy.n, healthy.median, healthy.min, healthy.max),
            (3, 11.0, 10.0, 13.0)
        );
        assert_eq!(rows[0].port_ms.unwrap().median, 10.0);
        assert_eq!(rows[0].first_request_ms.unwrap().max, 15.0);
    }

    #[test]
    fn only_starts_that_lost_log_bytes_are_listed() {
        let mut capped = start("jvm", 1.0, 2.0, Some(3.0));
        capped.log_dropped_bytes = 1000;
        let mut again = capped.clone();
        again.phase = Phase::Measure;
        let run = vec![start("go", 1.0, 2.0, Some(3.0)), capped, again];
        assert_eq!(
            log_caps(&run, &["go".into(), "jvm".into()]),
            [LogCapRow {
                runtime: "jvm".into(),
                starts: 2,
                dropped_bytes: 2000
            }]
        );
    }
}
