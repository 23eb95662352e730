//! [`LoadControl`]: what the caller shares with a running load (cancel, live counters).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// Cheap to clone; all clones see the same run. The executor keeps one to
/// cancel on Ctrl-C and to show progress while `run` blocks in another thread.
#[derive(Debug, Clone, Default)]
pub struct LoadControl {
    cancel: Arc<AtomicBool>,
    completed: Arc<AtomicU64>,
    errors: Arc<AtomicU64>,
    /// When the measured window opens, once the run knows it.
    window_start: Arc<OnceLock<Instant>>,
    /// When it ends, for a window of a fixed length.
    window_end: Arc<OnceLock<Instant>>,
}

impl LoadControl {
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the run to stop; `run` returns promptly with `was_cancelled`.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The flag itself, e.g. for `signal_hook::flag::register(SIGINT, ...)`.
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        self.cancel.clone()
    }

    /// When the measured window opens (after any connection ramp and warmup
    /// of the run), set as soon as the run knows it: a caller that reads the
    /// service's counters for the window reads them then, not at the run's
    /// start, or the ramp's load would count as the window's.
    pub fn window_start(&self) -> Option<Instant> {
        self.window_start.get().copied()
    }

    fn set_window_start(&self, at: Instant) {
        let _ = self.window_start.set(at);
    }

    /// When the measured window ends, for a run of a fixed duration (`None`
    /// for one bounded by a request count): a run returns some time after
    /// it (remote load hosts send their histograms back first), and the
    /// service's counters must not take that idle tail for the window's.
    pub fn window_end(&self) -> Option<Instant> {
        self.window_end.get().copied()
    }

    pub(crate) fn set_window(&self, start: Instant, end: Option<Instant>) {
        self.set_window_start(start);
        if let Some(end) = end {
            let _ = self.window_end.set(end);
        }
    }

    /// Requests completed with the expected status in the measured window so far.
    pub fn completed(&self) -> u64 {
        self.completed.load(Ordering::Relaxed)
    }

    /// Failed requests in the measured window so far.
    pub fn errors(&self) -> u64 {
        self.errors.load(Ordering::Relaxed)
    }

    pub(crate) fn add(&self, ok: u64, errors: u64) {
        if ok > 0 {
            self.completed.fetch_add(ok, Ordering::Relaxed);
        }
        if errors > 0 {
            self.errors.fetch_add(errors, Ordering::Relaxed);
        }
    }
}
