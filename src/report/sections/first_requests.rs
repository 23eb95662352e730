//! The first requests of a fresh service (first-requests.csv,
//! `startup.first_requests`) beside its steady state: per runtime, the
//! first request's latency (median over its fresh starts, with the range),
//! the median of requests 2–10 and of 11–100 (pooled over the starts), the
//! steady p50 of its measured windows (median over its cells' rows) and the
//! ratio of each to that p50.
use serde::Serialize;

use crate::report::error::ReportError;
use crate::results::read::run_data::RunData;
use crate::results::{CellStatus, FIRST_REQUESTS_FILE, FirstRequestRow, read_csv};
use crate::stats::spread::{Spread, median};

/// The groups after the first request, by request number (inclusive).
const EARLY: (u32, u32) = (2, 10);
const LATER: (u32, u32) = (11, 100);

/// One runtime's first requests, as the templates see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FirstRequestsRow {
    pub runtime: String,
    /// Fresh starts with a first request (cold starts and measured starts).
    pub starts: usize,
    /// Request 1 of each start: median, range.
    pub first_ms: Option<Spread>,
    /// Median of requests 2–10 and of 11–100 over every start.
    pub early_ms: Option<f64>,
    pub later_ms: Option<f64>,
    /// Median of the runtime's measured windows' p50 (failed rows left out).
    pub steady_p50_ms: Option<f64>,
    /// Each figure over `steady_p50_ms`: how many times slower than steady.
    pub first_ratio: Option<f64>,
    pub early_ratio: Option<f64>,
    pub later_ratio: Option<f64>,
}

/// Reads first-requests.csv (absent in runs without `startup.first_requests`).
pub fn view(run: &RunData, order: &[String]) -> Result<Vec<FirstRequestsRow>, ReportError> {
    let rows: Vec<FirstRequestRow> =
        read_csv(&run.dir.join(FIRST_REQUESTS_FILE))?.unwrap_or_default();
    let steady = |runtime: &str| {
        let p50: Vec<f64> = run
            .measurements
            .iter()
            .filter(|m| m.runtime == runtime && m.status != CellStatus::Failed && !m.profiled)
            .map(|m| m.latency_p50_ms)
            .collect();
        median(&p50)
    };
    Ok(view_of(&rows, order, steady))
}

/// The rows of `rows`, runtimes in `order` first, then in order of appearance.
pub fn view_of(
    rows: &[FirstRequestRow],
    order: &[String],
    steady_p50_ms: impl Fn(&str) -> Option<f64>,
) -> Vec<FirstRequestsRow> {
    let mut names: Vec<&str> = order
        .iter()
        .map(String::as_str)
        .filter(|name| rows.iter().any(|r| r.runtime == *name))
        .collect();
    for r in rows {
        if !names.contains(&r.runtime.as_str()) {
            names.push(&r.runtime);
        }
    }
    names
        .into_iter()
        .map(|name| {
            let mine: Vec<&FirstRequestRow> = rows.iter().filter(|r| r.runtime == name).collect();
            let group = |(from, to): (u32, u32)| {
                let v: Vec<f64> = mine
                    .iter()
                    .filter(|r| (from..=to).contains(&r.request))
                    .map(|r| r.latency_ms)
                    .collect();
                median(&v)
            };
            let first: Vec<f64> = mine
                .iter()
                .filter(|r| r.request == 1)
                .map(|r| r.latency_ms)
                .collect();
            let first_ms = Spread::of(&first);
            let (early_ms, later_ms) = (group(EARLY), group(LATER));
            let steady = steady_p50_ms(name);
            let ratio = |v: Option<f64>| match (v, steady) {
                (Some(v), Some(s)) if s > 0.0 => Some(v / s),
                _ => None,
            };
            FirstRequestsRow {
                runtime: name.to_string(),
                starts: first.len(),
                first_ratio: ratio(first_ms.map(|s| s.median)),
                early_ratio: ratio(early_ms),
                later_ratio: ratio(later_ms),
                first_ms,
                early_ms,
                later_ms,
                steady_p50_ms: steady,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Phase;

    fn row(runtime: &str, start_index: u32, request: u32, latency_ms: f64) -> FirstRequestRow {
        FirstRequestRow {
            runtime: runtime.into(),
            phase: Phase::Startup,
            start_index,
            request,
            latency_ms,
        }
    }

    #[test]
    fn groups_the_first_requests_and_divides_by_the_steady_p50() {
        let mut rows = Vec::new();
        for start in 1..=3 {
            // Request 1: 40, 50, 60 ms; 2-10: 4 ms; 11-100: 1 ms.
            rows.push(row("java", start, 1, 30.0 + 10.0 * start as f64));
            rows.extend((2..=10).map(|k| row("java", start, k, 4.0)));
            rows.extend((11..=100).map(|k| row("java", start, k, 1.0)));
        }
        rows.push(row("go", 1, 1, 0.5));
        rows.push(row("go", 1, 2, 0.3));
        let order = ["go".to_string(), "java".to_string()];
        let steady = |rt: &str| Some(if rt == "java" { 0.5 } else { 0.25 });
        let view = view_of(&rows, &order, steady);
        assert_eq!(view.len(), 2);
        let (go, java) = (&view[0], &view[1]);
        assert_eq!((go.runtime.as_str(), java.runtime.as_str()), ("go", "java"));
        assert_eq!(java.starts, 3);
        let first = java.first_ms.unwrap();
        assert_eq!((first.median, first.min, first.max), (50.0, 40.0, 60.0));
        assert_eq!((java.early_ms, java.later_ms), (Some(4.0), Some(1.0)));
        assert_eq!(java.first_ratio, Some(100.0));
        assert_eq!(java.early_ratio, Some(8.0));
        assert_eq!(java.later_ratio, Some(2.0));
        // Fewer than 11 requests: no later group, and its ratio is empty.
        assert_eq!(
            (go.early_ms, go.later_ms, go.later_ratio),
            (Some(0.3), None, None)
        );
        assert_eq!(go.first_ratio, Some(2.0));
    }

    #[test]
    fn no_steady_window_leaves_the_ratios_empty() {
        let view = view_of(&[row("a", 1, 1, 3.0)], &[], |_| None);
        assert_eq!(view[0].first_ratio, None);
        assert_eq!(view[0].starts, 1);
    }
}
