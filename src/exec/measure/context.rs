//! What a cell needs from the run around it (`CellContext`), how a cell
//! ends, and the one guarded load: applied with the runner's interruption
//! and the service's death watched, live progress sent each second. Every
//! step that drives load against a service here (warmup, window, search,
//! first requests) goes through it.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use crate::exec::events::Event;
use crate::exec::interrupt::Interrupt;
use crate::load::{self, LoadControl, LoadError, LoadReport};
use crate::plan::Plan;
use crate::results::{MeasurementRow, RunDir};
use crate::service::Service;

/// How a cell ended.
#[derive(Debug)]
pub enum CellEnd {
    /// Measured: the row is `ok`, `suspect` or `failed` (load error).
    Recorded(Box<MeasurementRow>),
    /// The service died during the cell, or stopped answering its health
    /// check (hung): the row is `failed`, and the service is restarted.
    ServiceDied(Box<MeasurementRow>),
    /// The runner was interrupted: nothing is recorded for this cell.
    Interrupted,
}

/// What a cell needs from the run around it.
#[derive(Clone)]
pub struct CellContext<'a> {
    pub plan: &'a Plan,
    pub run: &'a RunDir,
    pub interrupt: &'a Interrupt,
    pub events: &'a Sender<Event>,
    /// Set when the runtime's training evidence was declared but not found.
    pub evidence_missing: Option<String>,
    /// The run's TLS certificates, when any start serves TLS
    /// ([`crate::exec::walk::certificates`]).
    pub tls: Option<&'a crate::certs::RunCertificates>,
}

/// Told when a cell's measured window opens and closes (the real driver
/// samples the dependencies of the cell's runtime over exactly that window).
pub trait WindowObserver {
    fn window_opened(&mut self);
    fn window_closed(&mut self);
}

/// An observer that does nothing.
pub struct NoObserver;

impl WindowObserver for NoObserver {
    fn window_opened(&mut self) {}
    fn window_closed(&mut self) {}
}

/// Applies `config`, cancelling it when the runner is interrupted or the
/// service's process tree disappears. Returns the result and whether the
/// service died meanwhile. With `events`, sends live progress each second.
pub fn guarded_run(
    ctx: &CellContext,
    service: &Service,
    config: &load::LoadConfig,
    events: Option<&Sender<Event>>,
) -> (Result<LoadReport, LoadError>, bool) {
    guarded_run_with(ctx, service, config, events, &LoadControl::new())
}

/// [`guarded_run`] with the caller's `control` (to learn when the window opens).
pub(crate) fn guarded_run_with(
    ctx: &CellContext,
    service: &Service,
    config: &load::LoadConfig,
    events: Option<&Sender<Event>>,
    control: &LoadControl,
) -> (Result<LoadReport, LoadError>, bool) {
    let died = AtomicBool::new(false);
    let sid = service.sid();
    // One small read: the start shell (the session leader) exits when the
    // service dies, whether it forked or exec'd it.
    let gone = || {
        let gone = !crate::sample::procfs::leader_live(sid);
        if gone {
            died.store(true, Ordering::Relaxed);
        }
        gone
    };
    let result = guarded_load(ctx, config, events, control, gone);
    (result, died.load(Ordering::Relaxed))
}

/// Applies `config` (here or on the load hosts, as the plan says) with a
/// watcher beside it that cancels the load when the runner is interrupted
/// or `gone()` says the service is gone (asked every 100 ms; it may ask the
/// service less often), and sends live progress each second with `events`.
/// The one watched load, for a service here and on a service host.
pub fn guarded_load(
    ctx: &CellContext,
    config: &load::LoadConfig,
    events: Option<&Sender<Event>>,
    control: &LoadControl,
    mut gone: impl FnMut() -> bool + Send,
) -> Result<LoadReport, LoadError> {
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut last = (Instant::now(), 0u64);
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if ctx.interrupt.is_set() {
                    control.cancel();
                }
                if gone() {
                    control.cancel();
                }
                if let Some(tx) = events
                    && last.0.elapsed() >= Duration::from_secs(1)
                {
                    let now = (Instant::now(), control.completed());
                    let rps = (now.1 - last.1) as f64 / (now.0 - last.0).as_secs_f64();
                    let _ = tx.send(Event::CellProgress {
                        completed: now.1,
                        rps,
                    });
                    last = now;
                }
            }
        });
        let result = crate::exec::measure::remote_load::run(ctx.plan, config, control);
        done.store(true, Ordering::Relaxed);
        crate::exec::measure::remote_load::stop_if_host_lost(ctx.interrupt, &result);
        result
    })
}
