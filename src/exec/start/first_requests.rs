//! The first requests of a fresh service (`startup.first_requests`), timed
//! one by one: right after health (whose checks hit `health.path`, never the
//! workload), the workload's first request is sent until it succeeds, which
//! [`first_success`](crate::exec::start::lifecycle::first_success) times; this sends the
//! same request again, one at a time on a fresh connection each, until
//! `first_requests` have been answered, and writes every latency to
//! first-requests.csv. Sequential on purpose: the latency of request k is
//! the service's k-th answer, not a queue behind concurrent ones. Before
//! any warmup, so a JIT's first compilations show (the 2020 study saw every
//! Java variant's first request much slower).
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crate::exec::measure::context::CellContext;
use crate::plan::{Cell, RuntimePlan};
use crate::results::{CsvAppender, FIRST_REQUESTS_FILE, FirstRequestRow, Phase};
use crate::service::http_status;

/// One request's bound: a service that needs longer for one answer is not
/// warming up, it is broken, and the start's other checks will say so.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// Times requests 2..=`rt.first_requests` to the service at `service` (here,
/// or on a service host over SSH: from here, as the load reaches it) after
/// the first (`first_latency`)
/// and appends them all to first-requests.csv. Returns why it stopped short
/// (a failed request, an interrupt, a write error), for the start's log.
pub fn record(
    ctx: &CellContext,
    service: SocketAddr,
    rt: &RuntimePlan,
    (phase, start_index): (Phase, u32),
    cell: &Cell,
    first_latency: Duration,
) -> Result<(), String> {
    if rt.first_requests == 0 {
        return Ok(());
    }
    let mut latencies = vec![first_latency];
    let outcome = more(ctx, service, cell, rt.first_requests, &mut latencies);
    let path = ctx.run.file(FIRST_REQUESTS_FILE);
    let mut out = CsvAppender::open(&path).map_err(|e| e.to_string())?;
    for (i, latency) in latencies.iter().enumerate() {
        out.append(&FirstRequestRow {
            runtime: rt.name.clone(),
            phase,
            start_index,
            request: i as u32 + 1,
            // Whole microseconds: finer is below the clock's own noise.
            latency_ms: latency.as_micros() as f64 / 1000.0,
        })
        .map_err(|e| e.to_string())?;
    }
    outcome
}

/// Sends the workload's first request until `latencies` holds `count`.
fn more(
    ctx: &CellContext,
    service: SocketAddr,
    cell: &Cell,
    count: u32,
    latencies: &mut Vec<Duration>,
) -> Result<(), String> {
    let Some(req) = cell.requests.first() else {
        return Ok(());
    };
    let path = crate::load::resolved_once(&req.path);
    let body = req.body.as_deref().map(crate::load::resolved_once);
    while latencies.len() < count as usize {
        if ctx.interrupt.is_set() {
            return Err("interrupted".into());
        }
        let sent = Instant::now();
        let status = http_status(
            service,
            &req.method,
            &path,
            &req.headers,
            body.as_deref().map(str::as_bytes),
            (REQUEST_TIMEOUT, cell.load.transport.protocol.uses_tls()),
        );
        match status {
            Ok(code) if code == req.expect_status => latencies.push(sent.elapsed()),
            Ok(code) => {
                return Err(format!(
                    "first request {} of {}: {} {path} answered {code}, expected {}",
                    latencies.len() + 1,
                    count,
                    req.method,
                    req.expect_status
                ));
            }
            Err(e) => {
                return Err(format!(
                    "first request {} of {}: {} {path}: {e}",
                    latencies.len() + 1,
                    count,
                    req.method
                ));
            }
        }
    }
    Ok(())
}
