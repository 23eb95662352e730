//! One worker thread: a single-threaded tokio runtime driving its share of
//! the connections. Closed and open loop are the same loop; only the pacing
//! (when the next request is intended) differs.

use std::cell::{Cell, RefCell};
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

use tokio::task::LocalSet;

use crate::affinity::pin_current_thread;
use crate::load::control::LoadControl;
use crate::load::engine::connect_phase::{WorkerConnects, open_connections};
use crate::load::engine::drive::drive;
use crate::load::engine::pacer::Pacer;
use crate::load::engine::plan::Plan;
use crate::load::engine::timer::tighten_timer_slack;
use crate::load::error::LoadError;
use crate::load::http::expect::WrongAnswer;
use crate::load::measure::memory::GeneratorMemory;
use crate::load::measure::recorder::{Recorder, SecondSample};
use crate::load::measure::usage::ThreadCpu;
use crate::load::net::client::{Dialer, H1Dialer};
use crate::load::net::dial::{Tcp, Tls};
use crate::load::net::h2_client::H2Dialer;
use crate::load::net::stats::{TransportFigures, WorkerTransport};
use crate::load::net::tls_config::TlsSetup;
use crate::load::transport::{Protocol, Reuse, Transport};

/// How often a worker checks the cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(5);

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
    /// What this worker's connections negotiated and how often.
    pub transport: TransportFigures,
}

/// What a worker needs before the run's clock starts: how to open its
/// connections (the connect phase, see [`crate::load::engine::connect_phase`]).
pub struct Setup {
    pub target: SocketAddr,
    /// Real connections of the whole run (each carries `transport.streams` loops).
    pub connections: usize,
    pub transport: Transport,
    /// The run's TLS client (Some exactly when the protocol uses TLS).
    pub tls: Option<TlsSetup>,
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
    let stats = Rc::new(WorkerTransport::default());
    let t = &setup.transport;
    let (addr, streams) = (setup.target, t.streams);
    let per_request = matches!(t.reuse, Reuse::NewConnection { .. });
    let tls = || {
        let tls = setup
            .tls
            .as_ref()
            .expect("a TLS protocol's run has its TLS setup");
        Tls::new(addr, tls, t.protocol == Protocol::H2, stats.clone())
    };
    let parts = Parts {
        index,
        threads,
        cpu,
        connected,
        plan,
        timeline,
        stats: stats.clone(),
    };
    match t.protocol {
        Protocol::Http1 => run_with(
            &setup,
            H1Dialer {
                connector: Tcp { addr },
                per_request,
            },
            parts,
        ),
        Protocol::Https => run_with(
            &setup,
            H1Dialer {
                connector: tls(),
                per_request,
            },
            parts,
        ),
        Protocol::H2 => {
            let connector = tls();
            run_with(
                &setup,
                H2Dialer {
                    connector,
                    streams,
                    per_request,
                    stats: stats.clone(),
                },
                parts,
            )
        }
        Protocol::H2c => {
            let connector = Tcp { addr };
            run_with(
                &setup,
                H2Dialer {
                    connector,
                    streams,
                    per_request,
                    stats: stats.clone(),
                },
                parts,
            )
        }
    }
}

/// What [`run_with`] needs besides the setup and the dialer.
struct Parts {
    index: usize,
    threads: usize,
    cpu: Option<usize>,
    connected: Sender<Option<Connected>>,
    plan: Receiver<Arc<Plan>>,
    timeline: Sender<SecondSample>,
    stats: Rc<WorkerTransport>,
}

/// [`run_worker`] for one protocol's dialer.
fn run_with<D: Dialer>(setup: &Setup, dialer: D, parts: Parts) -> Result<WorkerResult, LoadError> {
    let Parts {
        index,
        threads,
        cpu,
        connected,
        plan,
        timeline,
        stats,
    } = parts;
    let dialer = Rc::new(dialer);
    let prepared = prepare(setup, &dialer, index, threads, cpu);
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
        let conns = (index..setup.connections).step_by(threads);
        let streams = setup.transport.streams;
        for (conn, slot) in conns.zip(connects.slots) {
            for (stream, client) in dialer.clients(slot).into_iter().enumerate() {
                tasks.push(tokio::task::spawn_local(drive(
                    plan.clone(),
                    recorder.clone(),
                    pacer.clone(),
                    conn * streams + stream,
                    client,
                    (ramp_sent.clone(), wrong_answer.clone()),
                )));
            }
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
        transport: stats.figures(),
    })
}

/// Pins the thread, builds its runtime and runs its connect phase.
fn prepare<D: Dialer>(
    setup: &Setup,
    dialer: &Rc<D>,
    index: usize,
    threads: usize,
    cpu: Option<usize>,
) -> Result<(tokio::runtime::Runtime, LocalSet, WorkerConnects<D::Conn>), LoadError> {
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
            dialer.clone(),
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
