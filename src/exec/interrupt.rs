//! SIGINT / SIGTERM to the runner: set a flag the executor checks between
//! steps (and that cancels a running load), so the service is stopped, no
//! partial row is written and the run is marked interrupted.
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex};

/// The interruption flag and which signal set it.
#[derive(Debug, Clone, Default)]
pub struct Interrupt {
    flag: Arc<AtomicBool>,
    signal: Arc<AtomicI32>,
    /// Set by [`Interrupt::stop_because`]: what stopped the run instead of a signal.
    reason: Arc<Mutex<Option<String>>>,
}

impl Interrupt {
    /// Registers SIGINT and SIGTERM handlers that set the flag. A second
    /// signal while the first is being handled exits at once with 130 (the
    /// guard processes then kill the services).
    pub fn install() -> std::io::Result<Interrupt> {
        let me = Interrupt::default();
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // Registered first, so it sees the flag as it was before this signal.
            signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&me.flag))?;
            signal_hook::flag::register(sig, Arc::clone(&me.flag))?;
            let which = Arc::clone(&me.signal);
            // SAFETY: the handler only performs an atomic store.
            unsafe {
                signal_hook::low_level::register(sig, move || which.store(sig, Ordering::SeqCst))?;
            }
        }
        Ok(me)
    }

    pub fn is_set(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// Sets the flag (as a signal would).
    pub fn trigger(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }

    /// Stops the run as a signal would, for `why` (a lost load host: the
    /// cell is not recorded, so `--resume` measures it once the host is back).
    pub fn stop_because(&self, why: String) {
        *self.reason.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
        self.trigger();
    }

    /// "SIGINT", "SIGTERM", the reason given to [`Interrupt::stop_because`],
    /// or "interrupted" when set by [`Interrupt::trigger`].
    pub fn describe(&self) -> String {
        if let Some(why) = self
            .reason
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
        {
            return why;
        }
        match self.signal.load(Ordering::SeqCst) {
            signal_hook::consts::SIGINT => "SIGINT".into(),
            signal_hook::consts::SIGTERM => "SIGTERM".into(),
            _ => "interrupted".into(),
        }
    }
}
