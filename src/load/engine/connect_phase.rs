//! The connect phase: before any request, each worker opens its share of
//! the connections at a paced rate (`connect_rate` connections per second
//! over the whole generator: connection k is opened at origin + k / rate),
//! so a 10,000-connection run does not throw 10,000 SYNs at once and make
//! the service's accept queue (somaxconn) the experiment. The phase is not
//! measured: the run's clock (warmup, window, open-loop schedule) starts
//! when every worker has finished it.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::load::control::LoadControl;
use crate::load::net::client::Dialer;

/// Connections opened per second when nothing else is said (`runner load
/// --connect-rate`, `load.connect_rate`): 10,000 connections in 5 s, and
/// under 100 ms for the few hundred of an ordinary cell.
pub const DEFAULT_CONNECT_RATE: f64 = 2000.0;

/// How often the phase looks at the cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(5);

/// What one worker's connect phase did.
pub struct WorkerConnects<T> {
    /// One slot per connection of the worker, in its order; None where the
    /// connect failed (the measured loop reconnects and counts it then).
    pub slots: Vec<Option<T>>,
    pub failed: usize,
}

/// The whole generator's connect phase, as the report gives it.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct ConnectStats {
    /// Connections the run keeps open.
    pub wanted: usize,
    /// Connections open when the phase ended.
    pub opened: usize,
    /// Connects that failed or timed out in the phase.
    pub failed: usize,
    /// Length of the phase, from the first connect to the last answer.
    pub seconds: f64,
    /// The pacing asked for, connections per second.
    pub rate_limit: f64,
}

impl ConnectStats {
    /// Connections opened per second over the phase.
    pub fn achieved_rate(&self) -> f64 {
        if self.seconds > 0.0 {
            self.opened as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// When connection `index` (of the whole generator) is due.
pub fn due(origin: Instant, index: usize, rate: f64) -> Instant {
    origin + Duration::from_secs_f64(index as f64 / rate)
}

/// Opens the connections `indices` (global indices) at their paced times,
/// each within `timeout`; stops early, keeping what is open, on a cancel.
/// Runs on the worker's `LocalSet`.
pub async fn open_connections<D: Dialer>(
    dialer: Rc<D>,
    indices: Vec<usize>,
    origin: Instant,
    rate: f64,
    timeout: Duration,
    control: &LoadControl,
) -> WorkerConnects<D::Conn> {
    let slots: Rc<RefCell<Vec<Option<D::Conn>>>> =
        Rc::new(RefCell::new((0..indices.len()).map(|_| None).collect()));
    let failed = Rc::new(RefCell::new(0usize));
    let mut tasks = Vec::with_capacity(indices.len());
    for (local, global) in indices.into_iter().enumerate() {
        let (slots, failed, control) = (slots.clone(), failed.clone(), control.clone());
        let dialer = dialer.clone();
        tasks.push(tokio::task::spawn_local(async move {
            tokio::time::sleep_until(due(origin, global, rate).into()).await;
            if control.is_cancelled() {
                return;
            }
            match tokio::time::timeout(timeout, dialer.open()).await {
                Ok(Ok(conn)) => slots.borrow_mut()[local] = Some(conn),
                _ => *failed.borrow_mut() += 1,
            }
        }));
    }
    let all = async {
        for t in tasks.iter_mut() {
            let _ = t.await;
        }
    };
    tokio::select! {
        _ = all => {}
        _ = cancelled(control) => {
            for t in &tasks {
                t.abort();
            }
        }
    }
    drop(tasks);
    let slots = std::mem::take(&mut *slots.borrow_mut());
    let failed = *failed.borrow();
    WorkerConnects { slots, failed }
}

async fn cancelled(control: &LoadControl) {
    while !control.is_cancelled() {
        tokio::time::sleep(CANCEL_POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_are_due_at_the_paced_rate() {
        let origin = Instant::now();
        assert_eq!(due(origin, 0, 2000.0), origin);
        assert_eq!(due(origin, 2000, 2000.0), origin + Duration::from_secs(1));
        assert_eq!(
            due(origin, 10_000, DEFAULT_CONNECT_RATE),
            origin + Duration::from_secs(5)
        );
    }

    #[test]
    fn the_achieved_rate_is_opened_over_the_phase() {
        let s = ConnectStats {
            wanted: 100,
            opened: 90,
            failed: 10,
            seconds: 0.5,
            rate_limit: 200.0,
        };
        assert_eq!(s.achieved_rate(), 180.0);
    }
}
