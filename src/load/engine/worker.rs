//! One worker thread: a single-threaded tokio runtime driving its share of
//! the connections. Closed and open loop are the same loop; only the pacing
//! (when the next request is intended) differs.

use std::cell::{Cell, RefCell};
use std::net::SocketAddr;
use std::pin::pin;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

use tokio::task::LocalSet;

use crate::affinity::pin_current_thread;
use crate::load::config::StopCondition;
use crate::load::control::LoadControl;
use crate::load::engine::connect_phase::{WorkerConnects, open_connections};
use crate::load::engine::pacer::{Pacer, Slot};
use crate::load::engine::ramp::joins_at;
use crate::load::engine::schedule::{ConnectionSchedule, RateCurve};
use crate::load::engine::timer::tighten_timer_slack;
use crate::load::error::{ErrorClass, LoadError};
use crate::load::http::capture::{AnswerSink, Capture, NoSink, Sampler};
use crate::load::http::connection::{self, Connection, EncodedRequest};
use crate::load::http::dynamic::Values;
use crate::load::http::expect::{WrongAnswer, wrong_answer};
use crate::load::http::mix::RequestMix;
use crate::load::measure::memory::GeneratorMemory;
use crate::load::measure::recorder::{Recorder, SecondSample};
use crate::load::measure::usage::ThreadCpu;

/// After a failed connect in closed loop, wait this long before the next
/// attempt, so a dead server is not hammered in a tight loop.
const RECONNECT_BACKOFF: Duration = Duration::from_millis(10);
/// How often a worker checks the cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(5);

/// What all workers share (read-only but for the ticket counter).
pub struct Plan {
    pub target: SocketAddr,
    pub requests: Vec<EncodedRequest>,
    /// Which of `requests` each connection sends next.
    pub mix: RequestMix,
    /// The mix seed, also seeding `rand` placeholders (`dynamic`).
    pub seed: u64,
    /// `seq` placeholders count on from here (`dynamic::seq_base`).
    pub seq_base: u64,
    pub timeout: Duration,
    /// None: closed loop.
    pub curve: Option<RateCurve>,
    pub connections: usize,
    pub stop: StopCondition,
    /// Closed loop: the connection ramp from `start` (zero: none), see
    /// [`crate::load::engine::ramp`].
    pub ramp: Duration,
    /// Run start (schedule origin), measured window start and end (if timed).
    pub start: Instant,
    pub measure_start: Instant,
    pub measure_end: Option<Instant>,
    /// Measured requests handed out so far (for `StopCondition::Requests`).
    pub tickets: AtomicU64,
    pub control: LoadControl,
}

/// What one worker measured.
pub struct WorkerResult {
    pub recorder: Recorder,
    pub cpu: ThreadCpu,
    pub finished: Instant,
    /// The generator process's memory at the end of the window, read by
    /// this worker before it closed its connections.
    pub memory: GeneratorMemory,
    /// Requests this worker's connections sent during the connection ramp.
    pub ramp_sent: u64,
    /// The first sampled answer of this worker that failed its request's
    /// checks (only a run whose requests carry checks looks).
    pub wrong_answer: Option<WrongAnswer>,
}

/// What a worker needs before the run's clock starts: how to open its
/// connections (the connect phase, see [`crate::load::engine::connect_phase`]).
pub struct Setup {
    pub target: SocketAddr,
    pub connections: usize,
    /// Connection k of the generator is opened at `connect_origin + k / connect_rate`.
    pub connect_origin: Instant,
    pub connect_rate: f64,
    pub timeout: Duration,
    pub control: LoadControl,
}

/// A worker's connect phase is over: how many of its connections are open.
#[derive(Debug, Clone, Copy)]
pub struct Connected {
    pub opened: usize,
    pub failed: usize,
}

/// Runs worker `index` (connections index, index+threads, ...) to the end:
/// its connect phase, then (once the engine sends the [`Plan`], whose clock
/// starts after every worker's connect phase) the measured loop. Sends
/// exactly one message on `connected` (None when the worker could not
/// start), so the engine never waits for a worker that failed.
pub fn run_worker(
    setup: Arc<Setup>,
    index: usize,
    threads: usize,
    cpu: Option<usize>,
    connected: Sender<Option<Connected>>,
    plan: Receiver<Arc<Plan>>,
    timeline: Sender<SecondSample>,
) -> Result<WorkerResult, LoadError> {
    let prepared = prepare(&setup, index, threads, cpu);
    let _ = connected.send(prepared.as_ref().ok().map(|(_, _, c)| Connected {
        opened: c.slots.iter().filter(|s| s.is_some()).count(),
        failed: c.failed,
    }));
    let (rt, local, connects) = prepared?;
    let plan = plan.recv().map_err(|_| {
        LoadError::WorkerPanicked("the load engine ended before the run started".into())
    })?;
    if plan.curve.is_some() {
        tighten_timer_slack();
    }
    let recorder = Rc::new(RefCell::new(Recorder::new(
        index,
        plan.measure_start,
        timeline,
        plan.control.clone(),
    )));
    let cpu_at_start = Rc::new(Cell::new(ThreadCpu::now()));
    let ramp_sent = Rc::new(Cell::new(0u64));
    let wrong_answer = Rc::new(RefCell::new(None));
    let memory = local.block_on(&rt, async {
        // Open loop: one pacer for all of this worker's connections.
        let pacer = match plan.curve {
            Some(_) => {
                let pacer = Pacer::new().map_err(LoadError::Runtime)?;
                tokio::task::spawn_local(pacer.clone().run());
                Some(pacer)
            }
            None => None,
        };
        let mut tasks = Vec::new();
        let conns = (index..plan.connections).step_by(threads);
        for (conn, slot) in conns.zip(connects.slots) {
            tasks.push(tokio::task::spawn_local(drive(
                plan.clone(),
                recorder.clone(),
                pacer.clone(),
                conn,
                slot,
                (ramp_sent.clone(), wrong_answer.clone()),
            )));
        }
        let cpu_at_start = cpu_at_start.clone();
        let measure_start = plan.measure_start;
        tokio::task::spawn_local(async move {
            tokio::time::sleep_until(measure_start.into()).await;
            cpu_at_start.set(ThreadCpu::now());
        });
        let all_done = async {
            for t in tasks {
                let _ = t.await;
            }
        };
        tokio::select! {
            _ = all_done => {}
            _ = stop_signal(&plan) => {}
        }
        // Before the connections close with the runtime.
        Ok::<_, LoadError>(GeneratorMemory::now())
    })?;
    let cpu = ThreadCpu::now().since(cpu_at_start.get());
    let finished = Instant::now();
    // Requests still in flight are abandoned with the runtime, not counted
    // as answers; the recorder's `in_flight` says how many there were.
    drop(local);
    drop(rt);
    let mut recorder = Rc::try_unwrap(recorder)
        .map_err(|_| LoadError::WorkerPanicked("connection tasks outlived their runtime".into()))?
        .into_inner();
    recorder.finish();
    Ok(WorkerResult {
        recorder,
        cpu,
        finished,
        memory,
        ramp_sent: ramp_sent.get(),
        wrong_answer: wrong_answer.take(),
    })
}

/// Pins the thread, builds its runtime and runs its connect phase.
fn prepare(
    setup: &Setup,
    index: usize,
    threads: usize,
    cpu: Option<usize>,
) -> Result<(tokio::runtime::Runtime, LocalSet, WorkerConnects), LoadError> {
    if let Some(cpu) = cpu {
        pin_current_thread(&[cpu]).map_err(|cause| LoadError::Affinity { cpu, cause })?;
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(LoadError::Runtime)?;
    let local = LocalSet::new();
    let indices = (index..setup.connections).step_by(threads).collect();
    let connects = local.block_on(
        &rt,
        open_connections(
            setup.target,
            indices,
            setup.connect_origin,
            setup.connect_rate,
            setup.timeout,
            &setup.control,
        ),
    );
    Ok((rt, local, connects))
}

/// Resolves at the end of the measured window, or soon after a cancel.
async fn stop_signal(plan: &Plan) {
    loop {
        if plan.control.is_cancelled() {
            return;
        }
        let mut nap = CANCEL_POLL;
        if let Some(end) = plan.measure_end {
            let now = Instant::now();
            if now >= end {
                return;
            }
            nap = nap.min(end - now);
        }
        tokio::time::sleep(nap).await;
    }
}

/// The loop of one connection: pace, send, read, record; reconnect as needed.
/// In a run whose requests carry checks (a cell's warmup), a sample of the
/// answers is read whole and checked ([`crate::load::http::capture`]); the
/// first wrong one is kept and ends the run.
async fn drive(
    plan: Arc<Plan>,
    recorder: Rc<RefCell<Recorder>>,
    pacer: Option<Rc<Pacer>>,
    conn_index: usize,
    connected: Option<Connection>,
    (ramp_sent, wrong_kept): (Rc<Cell<u64>>, Rc<RefCell<Option<WrongAnswer>>>),
) {
    let mut schedule = plan
        .curve
        .map(|curve| ConnectionSchedule::new(curve, plan.start, conn_index, plan.connections));
    let place = Rc::new(Slot::default());
    let mut slot: Option<Connection> = connected;
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
                    let _keep_open = slot;
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
            None => bounded(&mut slot, &plan, req, bytes, deadline.as_mut(), &mut NoSink).await,
            Some(capture) => {
                bounded(&mut slot, &plan, req, bytes, deadline.as_mut(), capture).await
            }
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
            Err(ErrorClass::ConnectRefused | ErrorClass::ConnectTimeout | ErrorClass::Other)
        ) && slot.is_none();
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
async fn bounded<S: AnswerSink>(
    slot: &mut Option<Connection>,
    plan: &Plan,
    req: &EncodedRequest,
    bytes: &[u8],
    deadline: std::pin::Pin<&mut tokio::time::Sleep>,
    sink: &mut S,
) -> Result<u16, ErrorClass> {
    let was_connected = slot.is_some();
    tokio::select! {
        biased;
        r = connection::exchange(slot, plan.target, req, bytes, sink) => r,
        _ = deadline => {
            // Connecting (a fresh slot still empty) or waiting for the answer.
            let class = if !was_connected && slot.is_none() {
                ErrorClass::ConnectTimeout
            } else {
                ErrorClass::RequestTimeout
            };
            *slot = None;
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
