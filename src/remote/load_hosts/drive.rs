//! A load on the declared load hosts: split, started at one wall-clock
//! instant on every host, progress forwarded, reports merged exactly.
//!
//! How the window start is coordinated: each host's clock offset to this
//! one is measured first (the best of a few pings: remote time minus the
//! local midpoint of the round trip), then every host is told to start at
//! the same instant `START_LEAD` ahead, translated into its own clock. Each
//! host reports when its measured window opened on its clock; translated
//! back, the spread of those instants is the window skew recorded per cell.
use std::net::SocketAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crate::load::{LoadConfig, LoadControl, LoadError, LoadReport, StopCondition, Trust};
use crate::plan::contract::hosts::{Host, Hosts};
use crate::remote::connect::session::Session;
use crate::remote::error::RemoteError;
use crate::remote::load_hosts::merge::merge;
use crate::remote::load_hosts::split::split;
use crate::remote::protocol::{Request, Response, unix_ns};
use crate::remote::wire::WireLoadConfig;

/// How far ahead of "now" the hosts are told to start: time for the load
/// request to reach every host, with room to spare.
const START_LEAD: Duration = Duration::from_millis(300);
/// Pings per host before a load; the one with the shortest round trip gives
/// the clock offset.
const PINGS: u64 = 3;
/// Beyond the load's own length, how long a host may take to answer.
const ANSWER_SLACK: Duration = Duration::from_secs(30);
/// Upper bound for a request-count load, which has no length of its own.
const REQUESTS_BOUND: Duration = Duration::from_secs(600);

/// What one load host did in one load.
#[derive(Debug, Clone)]
pub struct HostLoad {
    pub host: String,
    pub report: LoadReport,
    pub connections: usize,
    /// When its measured window opened, on this (the controlling) host's
    /// clock, in Unix nanoseconds.
    pub started_unix_ns: u64,
    /// The shortest ping round trip before the load.
    pub rtt: Duration,
    /// Its clock minus this one's, nanoseconds.
    pub clock_offset_ns: i64,
    /// Opening its SSH session (including a binary copy when `installed`).
    pub open_time: Duration,
    pub installed: bool,
}

/// The merged report and each host's part.
#[derive(Debug, Clone)]
pub struct HostsLoad {
    pub merged: LoadReport,
    pub hosts: Vec<HostLoad>,
}

impl HostsLoad {
    /// Spread of the hosts' window starts (zero with one host).
    pub fn window_skew(&self) -> Duration {
        let starts = self.hosts.iter().map(|h| h.started_unix_ns);
        let (lo, hi) = (starts.clone().min(), starts.max());
        match (lo, hi) {
            (Some(lo), Some(hi)) => Duration::from_nanos(hi - lo),
            _ => Duration::ZERO,
        }
    }
}

/// Runs `config` on the load hosts of `hosts`, aimed at the service host's
/// declared address (the only non-loopback target they accept).
pub fn drive(
    hosts: &Hosts,
    config: &LoadConfig,
    control: &LoadControl,
) -> Result<HostsLoad, LoadError> {
    let remote = |host: &str, e: RemoteError| LoadError::Remote {
        host: host.into(),
        why: e.to_string(),
    };
    let loads: Vec<&Host> = hosts.load.iter().filter(|h| h.ssh().is_some()).collect();
    let service = hosts
        .service
        .address
        .ok_or_else(|| LoadError::InvalidConfig {
            what: "the load hosts are remote but `hosts.service.address` is not set".into(),
        })?;
    let target = SocketAddr::new(service, config.target.port());
    let mut aimed = config.clone();
    if aimed.host_header == config.target.to_string() {
        aimed.host_header = target.to_string();
    }
    aimed.target = target;
    // This host's CPU pinning means nothing on another host, nor does the
    // path of its CA file: the CA's text travels instead.
    aimed.cpu_affinity = None;
    if let Some(Trust::CaFile(path)) = &config.transport.trust {
        let pem = std::fs::read_to_string(path).map_err(|e| LoadError::TlsSetup {
            what: format!(
                "cannot read the CA file {} to send it to the load hosts: {e}",
                path.display()
            ),
        })?;
        aimed.transport.trust = Some(Trust::CaPem(pem));
    }
    let parts = split(&aimed, loads.len()).map_err(|e| LoadError::InvalidConfig {
        what: e.to_string(),
    })?;
    let mut sessions = open_all(&loads).map_err(|(h, e)| remote(&h, e))?;
    let mut clocks = Vec::new();
    for s in &mut sessions {
        clocks.push(best_ping(s).map_err(|e| remote(&s.host, e))?);
    }
    let start_at = unix_ns() + START_LEAD.as_nanos() as u64;
    let window_start = Instant::now() + START_LEAD + config.closed_ramp() + config.warmup;
    let window_end = match config.stop {
        StopCondition::Duration(d) => Some(window_start + d),
        StopCondition::Requests(_) => None,
    };
    control.set_window(window_start, window_end);
    let bound = match config.stop {
        StopCondition::Duration(d) => d + config.warmup + START_LEAD + ANSWER_SLACK,
        StopCondition::Requests(_) => REQUESTS_BOUND,
    };
    let failed = AtomicBool::new(false);
    let progress = Mutex::new(vec![(0u64, 0u64); sessions.len()]);
    let results: Vec<Result<(LoadReport, u64), RemoteError>> = thread::scope(|scope| {
        let handles: Vec<_> = sessions
            .iter_mut()
            .zip(&parts)
            .zip(&clocks)
            .enumerate()
            .map(|(i, ((session, part), (_, offset)))| {
                let (failed, progress) = (&failed, &progress);
                scope.spawn(move || {
                    let remote_start = (start_at as i64 + offset).max(0) as u64;
                    let r = one_host(
                        session,
                        part,
                        &[service],
                        remote_start,
                        bound,
                        control,
                        failed,
                        |ok, err| {
                            let mut p = progress.lock().unwrap_or_else(|p| p.into_inner());
                            let (last_ok, last_err) = p[i];
                            control.add(ok.saturating_sub(last_ok), err.saturating_sub(last_err));
                            p[i] = (ok, err);
                        },
                    );
                    if r.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    r
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(RemoteError::protocol("a load host thread panicked")))
            })
            .collect()
    });
    let mut per_host = Vec::new();
    for (((result, session), part), (rtt, offset)) in
        results.into_iter().zip(&sessions).zip(&parts).zip(&clocks)
    {
        let (mut report, started) = result.map_err(|e| remote(&session.host, e))?;
        if let Some(why) = report.saturated.take() {
            report.saturated = Some(format!("load host {}: {why}", session.host));
        }
        per_host.push(HostLoad {
            host: session.host.clone(),
            connections: part.arrival.connections(),
            started_unix_ns: (started as i64 - offset).max(0) as u64,
            rtt: *rtt,
            clock_offset_ns: *offset,
            open_time: session.open_time,
            installed: session.installed,
            report,
        });
    }
    // Every host answered: their sessions serve the next load.
    for session in sessions {
        crate::remote::connect::pool::give_back(session);
    }
    let reports: Vec<LoadReport> = per_host.iter().map(|h| h.report.clone()).collect();
    let merged = merge(&reports).map_err(|e| LoadError::Remote {
        host: loads
            .iter()
            .map(|h| h.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        why: e.to_string(),
    })?;
    Ok(HostsLoad {
        merged,
        hosts: per_host,
    })
}

/// Checks out every host's session at once (`pool`); the first failure wins.
fn open_all(loads: &[&Host]) -> Result<Vec<Session>, (String, RemoteError)> {
    thread::scope(|scope| {
        let handles: Vec<_> = loads
            .iter()
            .map(|h| {
                scope.spawn(move || {
                    let target = h.ssh().expect("only SSH hosts are opened");
                    crate::remote::connect::pool::checkout(target).map_err(|e| (h.name.clone(), e))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err((
                        "?".into(),
                        RemoteError::protocol("a session thread panicked"),
                    ))
                })
            })
            .collect()
    })
}

/// The shortest of `PINGS` round trips and the clock offset it gives.
pub fn best_ping(s: &mut Session) -> Result<(Duration, i64), RemoteError> {
    let mut best: Option<(Duration, i64)> = None;
    for seq in 0..PINGS {
        let p = s.ping(seq)?;
        if best.is_none_or(|b| p.0 < b.0) {
            best = Some(p);
        }
    }
    Ok(best.expect("at least one ping"))
}

/// One host's load: sent, progress forwarded, cancelled when the run is
/// (or another host failed), its report and remote window start returned.
#[allow(clippy::too_many_arguments)]
fn one_host(
    session: &mut Session,
    part: &LoadConfig,
    allowed: &[std::net::IpAddr],
    start_at: u64,
    bound: Duration,
    control: &LoadControl,
    failed: &AtomicBool,
    mut on_progress: impl FnMut(u64, u64),
) -> Result<(LoadReport, u64), RemoteError> {
    const DURING: &str = "while it ran the load";
    session.send(
        &Request::Load {
            config: Box::new(WireLoadConfig::try_from(part)?),
            allowed: allowed.to_vec(),
            start_at_unix_ns: Some(start_at),
        },
        DURING,
    )?;
    let deadline = Instant::now() + bound;
    let mut cancelled = false;
    loop {
        if !cancelled && (control.is_cancelled() || failed.load(Ordering::Relaxed)) {
            session.send(&Request::Cancel, DURING)?;
            cancelled = true;
        }
        if Instant::now() >= deadline {
            return Err(RemoteError::Timeout {
                host: session.host.clone(),
                seconds: bound.as_secs(),
                during: DURING.into(),
            });
        }
        let tick = (Instant::now() + Duration::from_millis(200)).min(deadline);
        match session.next(tick, DURING)? {
            None => {}
            Some(Response::Progress { completed, errors }) => on_progress(completed, errors),
            Some(Response::LoadDone {
                report,
                started_unix_ns,
            }) => {
                let report = report.into_report().map_err(|e| RemoteError::Unexpected {
                    host: session.host.clone(),
                    what: e.to_string(),
                })?;
                return Ok((report, started_unix_ns));
            }
            Some(other) => return Err(session.unexpected(&other)),
        }
    }
}
