//! [`LoadControl`]: what the caller shares with a running load (cancel, live counters).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Cheap to clone; all clones see the same run. The executor keeps one to
/// cancel on Ctrl-C and to show progress while `run` blocks in another thread.
#[derive(Debug, Clone, Default)]
pub struct LoadControl {
    cancel: Arc<AtomicBool>,
    completed: Arc<AtomicU64>,
    errors: Arc<AtomicU64>,
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
