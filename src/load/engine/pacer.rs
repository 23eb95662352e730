//! Open-loop pacing for all the connections of one worker: one timerfd and a
//! queue of intended send times, instead of a timer per connection.
//!
//! With a timer per connection every request cost a `timerfd_settime`, an
//! `epoll_wait` wake-up and a `read` of its own, and the requests reached the
//! server one by one, so the server's answers came back one by one too: at
//! 50k req/s that took a whole core. Here the worker's timer wakes at most
//! once per [`WAKE_GAP`] and releases every request due by then together:
//! sends leave in bursts, answers come back in bursts, and one `epoll_wait`
//! serves several. The price is bounded and counted: a request due less
//! than `WAKE_GAP` after the previous wake-up goes out up to `WAKE_GAP` late,
//! and since open-loop latency counts from the *intended* time, that delay
//! is in the measurement, never hidden. When requests are further apart than
//! `WAKE_GAP` (below 20k req/s per worker) each one still gets its own
//! wake-up, microseconds after its due time.

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::future::poll_fn;
use std::rc::Rc;
use std::task::{Poll, Waker};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::load::engine::timer::{NOT_WORTH_WAITING, PreciseTimer};

/// Shortest time between two wake-ups of a worker's timer (see the module
/// doc): well under wrk2's 1 ms, large enough to batch sends at high rates.
pub const WAKE_GAP: Duration = Duration::from_micros(50);

/// One connection's place in the queue: released by the pacer, awaited by
/// the connection.
#[derive(Default)]
pub struct Slot {
    released: Cell<bool>,
    waker: Cell<Option<Waker>>,
}

struct Entry {
    due: Instant,
    /// Breaks ties in due time in arrival order (and keeps `Ord` total).
    seq: u64,
    slot: Rc<Slot>,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        (self.due, self.seq) == (other.due, other.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.due, self.seq).cmp(&(other.due, other.seq))
    }
}

/// The worker's pacer: connections wait in it; [`Pacer::run`] releases them.
pub struct Pacer {
    timer: PreciseTimer,
    queue: RefCell<BinaryHeap<Reverse<Entry>>>,
    seq: Cell<u64>,
    /// When the timer is armed for (None: the pacer waits for work).
    armed_for: Cell<Option<Instant>>,
    /// Wakes the pacer when a wait is due before `armed_for`.
    earlier: Notify,
}

impl Pacer {
    /// Needs a tokio runtime with IO enabled (the timerfd registers with it).
    pub fn new() -> std::io::Result<Rc<Self>> {
        Ok(Rc::new(Pacer {
            timer: PreciseTimer::new()?,
            queue: RefCell::new(BinaryHeap::new()),
            seq: Cell::new(0),
            armed_for: Cell::new(None),
            earlier: Notify::new(),
        }))
    }

    /// Returns at `due` (or as part of the first wake-up after it); at once
    /// when `due` is now or past.
    pub async fn until(&self, slot: &Rc<Slot>, due: Instant) {
        if due <= Instant::now() + NOT_WORTH_WAITING {
            return;
        }
        slot.released.set(false);
        let seq = self.seq.get();
        self.seq.set(seq + 1);
        self.queue.borrow_mut().push(Reverse(Entry {
            due,
            seq,
            slot: slot.clone(),
        }));
        if self.armed_for.get().is_none_or(|armed| due < armed) {
            self.earlier.notify_one();
        }
        poll_fn(|cx| {
            if slot.released.get() {
                Poll::Ready(())
            } else {
                slot.waker.set(Some(cx.waker().clone()));
                Poll::Pending
            }
        })
        .await;
    }

    /// The pacer's own task, for the life of the worker: sleep until the
    /// earliest wait is due (but not sooner than `WAKE_GAP` after the last
    /// wake-up), then release every wait due by now. Ends on a timer error,
    /// releasing everyone (the connections then send at once rather than hang).
    pub async fn run(self: Rc<Self>) {
        let mut last_wake = Instant::now();
        loop {
            let next = self.queue.borrow().peek().map(|Reverse(e)| e.due);
            let Some(due) = next else {
                self.armed_for.set(None);
                self.earlier.notified().await;
                continue;
            };
            let wake_at = due.max(last_wake + WAKE_GAP);
            self.armed_for.set(Some(wake_at));
            tokio::select! {
                biased;
                _ = self.earlier.notified() => continue,
                slept = self.timer.sleep_until(wake_at) => {
                    if slept.is_err() {
                        self.release(None);
                        return;
                    }
                }
            }
            last_wake = Instant::now();
            self.release(Some(last_wake + NOT_WORTH_WAITING));
        }
    }

    /// Releases the waits due by `by` (all of them when `None`).
    fn release(&self, by: Option<Instant>) {
        let mut queue = self.queue.borrow_mut();
        while let Some(Reverse(entry)) = queue.peek() {
            if by.is_some_and(|by| entry.due > by) {
                break;
            }
            let Some(Reverse(entry)) = queue.pop() else {
                break;
            };
            entry.slot.released.set(true);
            if let Some(waker) = entry.slot.waker.take() {
                waker.wake();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Waits released in due order, none early, none forgotten. (The timer's
    /// precision is `timer`'s test, over 50 independent wake-ups; here all
    /// waits share one or two wake-ups, so one late wake-up of a noisy VM,
    /// seen at 1.7 ms, would be every sample.)
    #[test]
    fn releases_in_due_order_never_early() {
        super::super::timer::tighten_timer_slack();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let local = tokio::task::LocalSet::new();
        local.block_on(&rt, async {
            let pacer = Pacer::new().unwrap();
            tokio::task::spawn_local(pacer.clone().run());
            // Far enough ahead that every wait is queued before the first is
            // due, even if this thread is preempted while creating them.
            let start = Instant::now() + Duration::from_millis(50);
            let released = Rc::new(RefCell::new(Vec::new()));
            let mut tasks = Vec::new();
            // 40 connections, due 7 us apart in reverse order of creation.
            for i in (0..40u64).rev() {
                let (pacer, released) = (pacer.clone(), released.clone());
                let due = start + Duration::from_micros(7 * i);
                tasks.push(tokio::task::spawn_local(async move {
                    let slot = Rc::new(Slot::default());
                    pacer.until(&slot, due).await;
                    released.borrow_mut().push((i, due, Instant::now()));
                }));
            }
            for t in tasks {
                t.await.unwrap();
            }
            let released = released.borrow();
            let order: Vec<u64> = released.iter().map(|r| r.0).collect();
            assert_eq!(order, (0..40).collect::<Vec<_>>());
            for &(i, due, at) in released.iter() {
                assert!(at + NOT_WORTH_WAITING >= due, "wait {i} released early");
                assert!(
                    at < due + Duration::from_millis(50),
                    "wait {i} released {:?} late",
                    at - due
                );
            }
        });
    }
}
