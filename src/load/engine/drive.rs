//! The loop of one request slot (a connection, or an HTTP/2 stream slot):
//! pace, send, read, record; reconnect as needed. Generic over the
//! [`Client`], so each protocol gets its own compiled loop.

use std::cell::{Cell, RefCell};
use std::pin::pin;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::load::config::StopCondition;
use crate::load::engine::pacer::{Pacer, Slot};
use crate::load::engine::plan::Plan;
use crate::load::engine::ramp::joins_at;
use crate::load::engine::schedule::ConnectionSchedule;
use crate::load::error::ErrorClass;
use crate::load::http::capture::{AnswerSink, Capture, NoSink, Sampler};
use crate::load::http::connection::EncodedRequest;
use crate::load::http::dynamic::Values;
use crate::load::http::expect::{WrongAnswer, wrong_answer};
use crate::load::measure::recorder::Recorder;
use crate::load::net::client::Client;

/// After a failed connect in closed loop, wait this long before the next
/// attempt, so a dead server is not hammered in a tight loop.
const RECONNECT_BACKOFF: Duration = Duration::from_millis(10);

/// The loop of one connection: pace, send, read, record; reconnect as needed.
/// In a run whose requests carry checks (a cell's warmup), a sample of the
/// answers is read whole and checked ([`crate::load::http::capture`]); the
/// first wrong one is kept and ends the run.
pub async fn drive<C: Client>(
    plan: Arc<Plan>,
    recorder: Rc<RefCell<Recorder>>,
    pacer: Option<Rc<Pacer>>,
    conn_index: usize,
    mut client: C,
    (ramp_sent, wrong_kept): (Rc<Cell<u64>>, Rc<RefCell<Option<WrongAnswer>>>),
) {
    let mut schedule = plan
        .curve
        .map(|curve| ConnectionSchedule::new(curve, plan.start, conn_index, plan.connections));
    let place = Rc::new(Slot::default());
    let mut picker = plan.mix.picker(conn_index);
    // `seq`/`rand` requests are written here per send; they grow once.
    let mut values = Values::new(plan.seed, plan.seq_base, conn_index, plan.connections);
    let (mut wire, mut body) = (Vec::new(), Vec::new());
    let mut deadline = pin!(tokio::time::sleep(plan.timeout));
    // Only a run whose requests carry checks (a cell's warmup) samples answers.
    let mut sampler = (plan.requests.iter().any(|r| r.check.is_some()))
        .then(|| Sampler::new(plan.requests.len()));
    // The connection ramp: this connection joins at its turn (closed loop).
    let ramp_end = plan.start + plan.ramp;
    if schedule.is_none() && !plan.ramp.is_zero() {
        let joins = plan.start + joins_at(conn_index, plan.connections, plan.ramp);
        tokio::time::sleep_until(joins.into()).await;
    }
    loop {
        let intended = match (&mut schedule, &pacer) {
            (Some(schedule), Some(pacer)) => {
                let due = schedule.next_due();
                if plan.measure_end.is_some_and(|end| due >= end) {
                    // Nothing more to send, but the connection stays open
                    // until the window closes (the worker's stop signal
                    // ends this task): a run holds its connections.
                    let _keep_open = client;
                    std::future::pending::<()>().await;
                    return;
                }
                pacer.until(&place, due).await;
                due
            }
            _ => Instant::now(),
        };
        // Measured: sent inside the window. In open loop this includes requests
        // intended during the warmup but sent late (a server slower than the
        // rate): their latency, from the intended time, is the truth about them.
        let sent = Instant::now();
        let measured = sent >= plan.measure_start;
        if sent < ramp_end {
            ramp_sent.set(ramp_sent.get() + 1);
        }
        if measured
            && let StopCondition::Requests(n) = plan.stop
            && plan.tickets.fetch_add(1, Ordering::Relaxed) >= n
        {
            return;
        }
        let index = picker.next_index();
        let req = &plan.requests[index];
        let bytes: &[u8] = match &req.dynamic {
            Some(dynamic) => {
                dynamic.write(&mut values, &mut wire, &mut body);
                &wire
            }
            None => &req.bytes,
        };
        if measured {
            let mut rec = recorder.borrow_mut();
            // The loop runs on for a moment after the window closes (until
            // the stop signal is seen); what it sends then is not in flight
            // at the close.
            if plan.measure_end.is_none_or(|end| sent < end) {
                rec.on_begin();
            }
            if schedule.is_some() {
                rec.on_send(intended, sent);
            }
        }
        deadline.as_mut().reset((sent + plan.timeout).into());
        let mut capture = None;
        if let (Some(sampler), Some(check)) = (&mut sampler, &req.check)
            && sampler.take(index)
        {
            capture = Some(Capture::for_check(&check.expect));
        }
        let outcome = match &mut capture {
            None => bounded(&mut client, req, bytes, deadline.as_mut(), &mut NoSink).await,
            Some(capture) => bounded(&mut client, req, bytes, deadline.as_mut(), capture).await,
        };
        if let (Some(capture), Some(check), Ok(status)) = (&capture, &req.check, &outcome)
            && *status == req.expect_status
            && let Some(wrong) = wrong_answer(check, &capture.seen(*status))
        {
            first_wrong(&wrong_kept, wrong, &plan);
        }
        let done = Instant::now();
        let connect_failed = matches!(
            outcome,
            Err(ErrorClass::ConnectRefused
                | ErrorClass::ConnectTimeout
                | ErrorClass::Other
                | ErrorClass::TlsHandshake(_)
                | ErrorClass::AlpnRefused)
        ) && !client.is_connected();
        // Answers after the window closed are abandoned like those still in flight.
        if measured && plan.measure_end.is_none_or(|end| done <= end) {
            let mut rec = recorder.borrow_mut();
            // One request: its figures are the run's own, not kept twice.
            if plan.requests.len() > 1 {
                match outcome {
                    Ok(status) if status == req.expect_status => {
                        rec.per_request.on_ok(index, intended, done)
                    }
                    _ => rec.per_request.on_error(index),
                }
            }
            match outcome {
                Ok(status) if status == req.expect_status => rec.on_ok(intended, sent, done),
                Ok(status) => rec.on_error(ErrorClass::Status(status), done),
                Err(class @ (ErrorClass::ConnectTimeout | ErrorClass::RequestTimeout)) => {
                    rec.on_timeout(class, intended, done)
                }
                Err(class) => rec.on_error(class, done),
            }
        }
        if connect_failed && schedule.is_none() {
            tokio::time::sleep(RECONNECT_BACKOFF).await;
        }
    }
}

/// One exchange within `deadline`, its answer told to `sink`.
async fn bounded<C: Client, S: AnswerSink>(
    client: &mut C,
    req: &EncodedRequest,
    bytes: &[u8],
    deadline: std::pin::Pin<&mut tokio::time::Sleep>,
    sink: &mut S,
) -> Result<u16, ErrorClass> {
    let was_connected = client.is_connected();
    tokio::select! {
        biased;
        r = client.exchange(req, bytes, sink) => r,
        _ = deadline => {
            // Connecting (a fresh slot still empty) or waiting for the answer.
            let class = if !was_connected && !client.is_connected() {
                ErrorClass::ConnectTimeout
            } else {
                ErrorClass::RequestTimeout
            };
            client.disconnect();
            Err(class)
        }
    }
}

/// Keeps the worker's first wrong answer and ends the run: its cell fails,
/// and loading a service that answers wrongly any longer tells nothing.
fn first_wrong(kept: &RefCell<Option<WrongAnswer>>, wrong: WrongAnswer, plan: &Plan) {
    let mut kept = kept.borrow_mut();
    if kept.is_none() {
        *kept = Some(wrong);
        plan.control.cancel();
    }
}
