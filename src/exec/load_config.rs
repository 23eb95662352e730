//! Plan types -> load generator configuration.
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;

use crate::load::{Arrival, LoadConfig, RequestSpec, StopCondition};
use crate::plan::{Cell, LoadMode, Measure, RequestPlan};

pub fn request_spec(r: &RequestPlan) -> RequestSpec {
    RequestSpec {
        method: r.method.clone(),
        path: r.path.clone(),
        headers: r.headers.clone(),
        body: r.body.as_ref().map(|b| Bytes::from(b.clone())),
        expect_status: r.expect_status,
    }
}

pub fn arrival(mode: &LoadMode) -> Arrival {
    match *mode {
        LoadMode::Closed { connections } => Arrival::Closed {
            connections: connections as usize,
        },
        LoadMode::Open { rate, connections } => Arrival::Open {
            rate,
            connections: connections as usize,
            ramp: None,
        },
    }
}

/// The measured window of `cell` (its warmup is run separately, see `cell`).
pub fn measure_config(cell: &Cell, target: SocketAddr, cpus: Option<Vec<usize>>) -> LoadConfig {
    LoadConfig {
        target,
        host_header: target.to_string(),
        requests: cell.requests.iter().map(request_spec).collect(),
        arrival: arrival(&cell.load.mode),
        stop: match cell.measure {
            Measure::Duration(d) => StopCondition::Duration(d),
            Measure::Requests(n) => StopCondition::Requests(n),
        },
        warmup: Duration::ZERO,
        timeout: cell.load.timeout,
        threads: cell.load.threads.max(1) as usize,
        cpu_affinity: cpus,
    }
}

/// `cell`'s load shape applied for `duration`, results discarded
/// (cell warmup, service warmup).
pub fn warmup_config(
    cell: &Cell,
    target: SocketAddr,
    cpus: Option<Vec<usize>>,
    duration: Duration,
) -> LoadConfig {
    LoadConfig {
        stop: StopCondition::Duration(duration),
        ..measure_config(cell, target, cpus)
    }
}

/// The expected wall time of a cell (warmup + measurement), when known.
pub fn expected(cell: &Cell) -> Option<Duration> {
    match cell.measure {
        Measure::Duration(d) => Some(cell.warmup + d),
        Measure::Requests(_) => None,
    }
}
