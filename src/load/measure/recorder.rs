//! Per-worker measurements: latency histograms, error counts and the
//! per-second timeline. Memory is constant however long the run: histograms
//! have fixed bounds, and each finished second is sent to the collector
//! (which merges workers and keeps only p50/p99) instead of being kept.

use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::load::control::LoadControl;
use crate::load::error::{ErrorClass, ErrorCounts};

/// Largest latency recorded exactly, in microseconds (1 hour); larger ones are clamped.
pub const MAX_LATENCY_US: u64 = 3_600_000_000;
/// Precision of the run's histograms (0.1%).
const SIGFIG: u8 = 3;
/// Precision of the per-second histograms (1%): enough for a timeline, 8x smaller.
const TIMELINE_SIGFIG: u8 = 2;
/// Live counters are published every this many requests (not per request:
/// a shared atomic per request would bounce a cache line between workers).
const PUBLISH_EVERY: u64 = 64;

pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, SIGFIG)
        .expect("static histogram bounds are valid")
}

fn new_timeline_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, TIMELINE_SIGFIG)
        .expect("static histogram bounds are valid")
}

/// One worker's view of one second of the measured window.
#[derive(Debug)]
pub struct SecondSample {
    pub worker: usize,
    pub second: u64,
    /// Requests completed with the expected status.
    pub ok: u64,
    pub errors: u64,
    pub latency: Histogram<u64>,
}

/// Everything one worker measured; merged by the engine.
pub struct Recorder {
    worker: usize,
    measure_start: Instant,
    pub latency: Histogram<u64>,
    pub service_time: Histogram<u64>,
    /// `latency` plus every timed-out request at the latency it had when it
    /// was given up: the percentiles a user sees when timeouts are answers.
    pub latency_with_timeouts: Histogram<u64>,
    /// Measured requests sent; those neither answered nor failed inside the
    /// window (`begun - ok - errors`) were still in flight when it closed.
    pub begun: u64,
    pub ok: u64,
    pub errors: ErrorCounts,
    /// Open loop: measured requests sent, and how many left > 1 ms after their intended time.
    pub sent: u64,
    pub late: u64,
    second: Option<SecondSample>,
    /// Dropped by `finish`: the collector stops listening when all workers have finished.
    timeline: Option<Sender<SecondSample>>,
    control: LoadControl,
    unpublished_ok: u64,
    unpublished_errors: u64,
    /// The same outcomes again per workload request (a mix's rows).
    pub per_request: crate::load::measure::per_request::PerRequest,
}

/// A send this much after its intended time counts as late (open loop).
pub const LATE_AFTER: Duration = Duration::from_millis(1);

fn micros(d: Duration) -> u64 {
    d.as_micros().min(MAX_LATENCY_US as u128) as u64
}

impl Recorder {
    pub fn new(
        worker: usize,
        measure_start: Instant,
        timeline: Sender<SecondSample>,
        control: LoadControl,
    ) -> Self {
        Recorder {
            worker,
            measure_start,
            latency: new_histogram(),
            service_time: new_histogram(),
            latency_with_timeouts: new_histogram(),
            begun: 0,
            ok: 0,
            errors: ErrorCounts::default(),
            sent: 0,
            late: 0,
            second: None,
            timeline: Some(timeline),
            control,
            unpublished_ok: 0,
            unpublished_errors: 0,
            per_request: Default::default(),
        }
    }

    /// A measured request is starting (both loops).
    pub fn on_begin(&mut self) {
        self.begun += 1;
    }

    /// A measured request is being sent `sent`, intended at `intended`.
    pub fn on_send(&mut self, intended: Instant, sent: Instant) {
        self.sent += 1;
        if sent.saturating_duration_since(intended) > LATE_AFTER {
            self.late += 1;
        }
    }

    /// A measured request completed with the expected status.
    /// Latency counts from `intended` (= `sent` in closed loop).
    pub fn on_ok(&mut self, intended: Instant, sent: Instant, done: Instant) {
        let latency = micros(done.saturating_duration_since(intended));
        self.latency.saturating_record(latency);
        self.latency_with_timeouts.saturating_record(latency);
        self.service_time
            .saturating_record(micros(done.saturating_duration_since(sent)));
        self.ok += 1;
        let s = self.second_for(done);
        s.ok += 1;
        s.latency.saturating_record(latency);
        self.unpublished_ok += 1;
        self.maybe_publish();
    }

    /// A measured request failed.
    pub fn on_error(&mut self, class: ErrorClass, done: Instant) {
        self.errors.record(class);
        self.second_for(done).errors += 1;
        self.unpublished_errors += 1;
        // Errors are rare and worth seeing at once in a progress display.
        self.publish();
    }

    /// A measured request intended at `intended` was given up at `done`
    /// (connect or request timeout): an error, and a latency of its own.
    pub fn on_timeout(&mut self, class: ErrorClass, intended: Instant, done: Instant) {
        self.latency_with_timeouts
            .saturating_record(micros(done.saturating_duration_since(intended)));
        self.on_error(class, done);
    }

    /// Requests begun in the window and not completed inside it.
    pub fn in_flight(&self) -> u64 {
        self.begun.saturating_sub(self.ok + self.errors.total())
    }

    /// Sends the last partial second and publishes counters; call once at the end.
    pub fn finish(&mut self) {
        if let Some(s) = self.second.take() {
            self.send(s);
        }
        self.timeline = None;
        self.publish();
    }

    fn second_for(&mut self, at: Instant) -> &mut SecondSample {
        let second = at.saturating_duration_since(self.measure_start).as_secs();
        if self.second.as_ref().is_some_and(|s| s.second != second) {
            let finished = self.second.take().expect("checked above");
            self.send(finished);
        }
        self.second.get_or_insert_with(|| SecondSample {
            worker: self.worker,
            second,
            ok: 0,
            errors: 0,
            latency: new_timeline_histogram(),
        })
    }

    fn send(&self, sample: SecondSample) {
        if let Some(tx) = &self.timeline {
            // The collector only goes away once the run is over; losing a sample then is harmless.
            let _ = tx.send(sample);
        }
    }

    fn maybe_publish(&mut self) {
        if self.unpublished_ok + self.unpublished_errors >= PUBLISH_EVERY {
            self.publish();
        }
    }

    fn publish(&mut self) {
        self.control
            .add(self.unpublished_ok, self.unpublished_errors);
        self.unpublished_ok = 0;
        self.unpublished_errors = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorder() -> Recorder {
        let (tx, _rx) = std::sync::mpsc::channel();
        Recorder::new(0, Instant::now(), tx, LoadControl::new())
    }

    #[test]
    fn timeouts_count_at_their_latency_only_in_the_timeout_histogram() {
        let mut r = recorder();
        let t0 = Instant::now();
        for _ in 0..3 {
            r.on_begin();
        }
        r.on_ok(t0, t0, t0 + Duration::from_millis(2));
        r.on_timeout(
            ErrorClass::RequestTimeout,
            t0,
            t0 + Duration::from_millis(500),
        );
        assert_eq!(r.latency.len(), 1);
        assert_eq!(r.latency_with_timeouts.len(), 2);
        assert!(r.latency_with_timeouts.max() >= 499_000);
        assert_eq!(r.errors.request_timeout, 1);
        // The third request began and never ended.
        assert_eq!(r.in_flight(), 1);
    }

    #[test]
    fn other_errors_have_no_latency() {
        let mut r = recorder();
        r.on_begin();
        r.on_error(ErrorClass::Reset, Instant::now());
        assert_eq!(r.latency_with_timeouts.len(), 0);
        assert_eq!(r.in_flight(), 0);
    }
}
