//! Figures per workload request (by its index in `LoadConfig::requests`), so
//! a mix's slow or failing request shows beside the cell's totals instead of
//! being averaged into them.
//!
//! Each worker keeps one [`RequestFigures`] per request, grown the first time
//! a request index is seen (never again per request), and the engine adds the
//! workers' together like the run's own histograms.

use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::load::measure::recorder::{MAX_LATENCY_US, new_histogram};

/// What one request of the workload got in the measured window.
#[derive(Debug, Clone)]
pub struct RequestFigures {
    /// Answers with the expected status.
    pub ok: u64,
    /// Every other outcome: wrong status, timeout, reset, refused connect...
    pub errors: u64,
    /// Microseconds, of the `ok` answers; from the intended send time in open
    /// loop, like the run's `latency`.
    pub latency: Histogram<u64>,
}

impl RequestFigures {
    fn new() -> Self {
        RequestFigures {
            ok: 0,
            errors: 0,
            latency: new_histogram(),
        }
    }
}

/// One worker's (or, merged, the run's) figures, indexed by request.
#[derive(Debug, Clone, Default)]
pub struct PerRequest(pub Vec<RequestFigures>);

impl PerRequest {
    fn at(&mut self, index: usize) -> &mut RequestFigures {
        if index >= self.0.len() {
            self.0.resize_with(index + 1, RequestFigures::new);
        }
        &mut self.0[index]
    }

    /// Request `index` answered with the expected status.
    pub fn on_ok(&mut self, index: usize, intended: Instant, done: Instant) {
        let figures = self.at(index);
        figures.ok += 1;
        let us = done.saturating_duration_since(intended);
        figures.latency.saturating_record(micros(us));
    }

    /// Request `index` failed (any error class).
    pub fn on_error(&mut self, index: usize) {
        self.at(index).errors += 1;
    }

    /// Adds `other`'s figures into these (same histogram bounds everywhere).
    pub fn add(&mut self, other: &PerRequest) {
        for (i, theirs) in other.0.iter().enumerate() {
            let mine = self.at(i);
            mine.ok += theirs.ok;
            mine.errors += theirs.errors;
            mine.latency
                .add(&theirs.latency)
                .expect("same histogram bounds");
        }
    }

    /// One entry per request of a workload of `requests` (those never sent
    /// get zeros), so rows line up with the workload.
    pub fn padded(mut self, requests: usize) -> Vec<RequestFigures> {
        if requests > 0 {
            self.at(requests - 1);
        }
        self.0
    }
}

fn micros(d: Duration) -> u64 {
    d.as_micros().min(MAX_LATENCY_US as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_kept_per_request_and_add_up_across_workers() {
        let t0 = Instant::now();
        let mut a = PerRequest::default();
        a.on_ok(1, t0, t0 + Duration::from_millis(2));
        a.on_error(1);
        let mut b = PerRequest::default();
        b.on_ok(0, t0, t0 + Duration::from_millis(10));
        b.on_ok(1, t0, t0 + Duration::from_millis(4));
        let mut run = PerRequest::default();
        run.add(&a);
        run.add(&b);
        let figures = run.padded(3);
        assert_eq!(figures.len(), 3, "the unsent third request has a row");
        assert_eq!((figures[0].ok, figures[0].errors), (1, 0));
        assert_eq!((figures[1].ok, figures[1].errors), (2, 1));
        assert_eq!((figures[2].ok, figures[2].errors), (0, 0));
        let max_ms = figures[1].latency.max() as f64 / 1000.0;
        assert!((3.9..4.1).contains(&max_ms), "{max_ms}");
    }
}
