//! `runner remote`: the far end of an SSH session. It reads requests from
//! stdin and answers on stdout (see [`crate::remote::protocol`]).
//!
//! Nothing it starts may outlive the session. The load runs in this
//! process's own threads, so ending the process ends it; the process ends
//! when stdin reaches end of file (the SSH session closed or dropped: sshd
//! closes the pipes), when stdout cannot be written, or when its parent
//! (sshd's session process) dies (`PR_SET_PDEATHSIG`).
use std::io::{self, BufReader, Write};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use crate::load::{self, LoadControl};
use crate::remote::error::RemoteError;
use crate::remote::protocol::{PROTOCOL_VERSION, Request, Response, receive, send, unix_ns};
use crate::remote::service_hosts::service_host::ServiceHost;
use crate::remote::wire::{WireLoadConfig, WireLoadReport};

/// How far ahead a coordinated start may be asked for: a larger value is a
/// clock problem between the hosts, not a plan.
const MAX_START_DELAY: Duration = Duration::from_secs(30);

/// How long a session may sit without a request before it ends itself: the
/// controlling runner sends the next request at once, so a longer silence
/// means a path that dropped without a FIN, before sshd's keepalive noticed.
const IDLE_LIMIT: Duration = Duration::from_secs(120);

/// What the stdin reader passes on.
enum Input {
    Request(Request),
    Bad(String),
    Closed,
}

/// Set by the stdin reader when the session's stdin reached end of file:
/// a build or a start in progress gives up at once.
static CLOSED: AtomicBool = AtomicBool::new(false);

fn session_closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

/// Serves requests until stdin closes or `bye`. Returns when the session
/// ends; the service it started (if any) is stopped by the drop of
/// `service_host` on the way out, whatever the reason.
pub fn serve() -> Result<(), RemoteError> {
    die_with_parent();
    let requests = read_stdin();
    let mut out = io::stdout().lock();
    let mut service_host = ServiceHost::default();
    loop {
        let request = match requests.recv_timeout(IDLE_LIMIT) {
            Ok(Input::Request(r)) => r,
            Ok(Input::Bad(what)) => {
                send(&mut out, &Response::Error { message: what })?;
                continue;
            }
            // Closed, or idle past the limit: end, and with us all we started.
            Ok(Input::Closed) | Err(_) => return Ok(()),
        };
        match request {
            Request::Hello => send(
                &mut out,
                &Response::Hello {
                    protocol: PROTOCOL_VERSION,
                    runner_version: env!("CARGO_PKG_VERSION").into(),
                },
            )?,
            Request::Fingerprint => send(
                &mut out,
                &Response::Fingerprint {
                    host: Box::new(crate::results::environment::host_info()),
                },
            )?,
            Request::Ping { seq } => send(
                &mut out,
                &Response::Pong {
                    seq,
                    unix_ns: unix_ns(),
                },
            )?,
            Request::Load {
                config,
                allowed,
                start_at_unix_ns,
            } => {
                if let Outcome::SessionClosed =
                    run_load(&mut out, &requests, *config, &allowed, start_at_unix_ns)?
                {
                    return Ok(());
                }
            }
            Request::Service { call } => service_host.handle(*call, &mut out, &session_closed)?,
            Request::Cancel => {}
            Request::Bye => return Ok(()),
        }
    }
}

enum Outcome {
    Answered,
    SessionClosed,
}

/// One load: checked, started (at `start_at` when given), progress each
/// second, cancelled by `cancel` or by the session closing.
fn run_load(
    out: &mut impl Write,
    requests: &Receiver<Input>,
    config: WireLoadConfig,
    allowed: &[IpAddr],
    start_at: Option<u64>,
) -> Result<Outcome, RemoteError> {
    let config = config.into_config()?;
    let ip = config.target.ip();
    if !ip.is_loopback() && !allowed.contains(&ip) {
        send(
            out,
            &Response::Error {
                message: format!(
                    "refusing to send load to {}: it is not the declared service host ({}); \
                     only the hosts of the spec's `hosts:` may be loaded",
                    config.target,
                    if allowed.is_empty() {
                        "none declared".to_string()
                    } else {
                        allowed
                            .iter()
                            .map(IpAddr::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
            },
        )?;
        return Ok(Outcome::Answered);
    }
    if let Some(at) = start_at {
        let wait = Duration::from_nanos(at.saturating_sub(unix_ns()));
        if wait > MAX_START_DELAY {
            send(
                out,
                &Response::Error {
                    message: format!(
                        "the load was asked to start {wait:?} from now on this host's clock \
                         (more than {MAX_START_DELAY:?}): the hosts' clocks disagree; sync them (chrony, NTP)"
                    ),
                },
            )?;
            return Ok(Outcome::Answered);
        }
        thread::sleep(wait);
    }
    let control = LoadControl::new();
    let started = unix_ns() + u64::try_from(config.warmup.as_nanos()).unwrap_or(0);
    let runner = {
        let control = control.clone();
        thread::spawn(move || load::run(&config, &control))
    };
    let mut closed = false;
    while !runner.is_finished() {
        match requests.recv_timeout(Duration::from_secs(1)) {
            Ok(Input::Request(Request::Cancel)) => control.cancel(),
            Ok(Input::Closed) | Err(RecvTimeoutError::Disconnected) => {
                // The session is gone: stop sending at once.
                control.cancel();
                closed = true;
                break;
            }
            Ok(_) => {}
            Err(RecvTimeoutError::Timeout) => {
                let progress = Response::Progress {
                    completed: control.completed(),
                    errors: control.errors(),
                };
                if send(out, &progress).is_err() {
                    control.cancel();
                    closed = true;
                    break;
                }
            }
        }
    }
    if closed {
        // The load threads end with this process; do not wait for them.
        return Ok(Outcome::SessionClosed);
    }
    let result = runner
        .join()
        .map_err(|_| RemoteError::protocol("the load thread panicked"))?;
    match result {
        Ok(report) => send(
            out,
            &Response::LoadDone {
                report: Box::new(WireLoadReport::of(&report)?),
                started_unix_ns: started,
            },
        )?,
        Err(e) => send(
            out,
            &Response::Error {
                message: e.to_string(),
            },
        )?,
    }
    Ok(Outcome::Answered)
}

/// A thread turning stdin lines into [`Input`]s; `Closed` at end of file.
fn read_stdin() -> Receiver<Input> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut stdin = BufReader::new(io::stdin().lock());
        loop {
            let input = match receive::<Request>(&mut stdin) {
                Ok(Some(r)) => Input::Request(r),
                Ok(None) | Err(RemoteError::Io(_)) => {
                    CLOSED.store(true, Ordering::Relaxed);
                    let _ = tx.send(Input::Closed);
                    return;
                }
                Err(e) => Input::Bad(e.to_string()),
            };
            if tx.send(input).is_err() {
                return;
            }
        }
    });
    rx
}

/// SIGKILL when the parent (sshd's session process) dies, however it dies.
fn die_with_parent() {
    // SAFETY: prctl with PR_SET_PDEATHSIG only sets this process's attribute.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
}
