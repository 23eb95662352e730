//! What one load run does: target, requests, arrival model, stop condition.
//!
//! The executor builds a [`LoadConfig`] per cell; `runner load` builds one from
//! its command line. Both go through [`LoadConfig::validate`] so a bad
//! configuration fails before any connection is opened.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;

use crate::load::engine::connect_phase::DEFAULT_CONNECT_RATE;
use crate::load::error::LoadError;
use crate::load::transport::Transport;

/// The mix seed when none is given (`load.seed` in a spec).
pub const DEFAULT_MIX_SEED: u64 = 1;

/// A complete description of one load run.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// Where to connect, e.g. 127.0.0.1:8080.
    pub target: SocketAddr,
    /// The `Host` header sent with every request, e.g. "127.0.0.1:8080".
    pub host_header: String,
    /// Requests sent on each connection (at least one): round-robin, or
    /// drawn by weight when any has one (see [`crate::load::http::mix`]).
    pub requests: Vec<RequestSpec>,
    /// How requests are paced: closed loop or a constant rate.
    pub arrival: Arrival,
    /// When the measured window ends.
    pub stop: StopCondition,
    /// Load applied before the measured window on the same connections, not recorded.
    pub warmup: Duration,
    /// Per request (and per connect): a request taking longer counts as a timeout.
    pub timeout: Duration,
    /// Worker threads of the generator, each with its own single-threaded runtime.
    pub threads: usize,
    /// CPUs to pin the worker threads to (worker i on `cpus[i % len]`).
    pub cpu_affinity: Option<Vec<usize>>,
    /// Seeds the weighted request draw (with the connection index).
    pub mix_seed: u64,
    /// Connections opened per second in the connect phase before the run
    /// (see [`crate::load::engine::connect_phase`]).
    pub connect_rate: f64,
    /// Closed loop only: the connections start sending one after another
    /// over this long, from 1 to N, before the warmup and the window, not
    /// measured (see [`crate::load::engine::ramp`]); zero: all at once.
    pub connection_ramp: Duration,
    /// Protocol, TLS trust, connection reuse and HTTP/2 streams (the
    /// default: plain HTTP/1.1 keep-alive, see [`crate::load::transport`]).
    pub transport: Transport,
}

/// One request of the workload. Encoded once per run, never per request.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestSpec {
    pub method: String,
    /// Origin-form path with query, e.g. "/api/generated/128".
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Bytes>,
    /// A response with another status is counted as an error (per status code).
    pub expect_status: u16,
    /// Relative share of the requests sent (None: unweighted, see [`crate::load::http::mix`]).
    pub weight: Option<f64>,
    /// Content checks of a sample of the answers (`None`: only the status
    /// counts). Set on a cell warmup's requests, never on a measured
    /// window's: see [`crate::load::http::capture`].
    pub check: Option<crate::load::http::expect::RequestCheck>,
}

impl RequestSpec {
    /// A GET of `path` expecting 200, the common case.
    pub fn get(path: impl Into<String>) -> Self {
        RequestSpec {
            method: "GET".into(),
            path: path.into(),
            headers: Vec::new(),
            body: None,
            expect_status: 200,
            weight: None,
            check: None,
        }
    }
}

/// How requests arrive at the server.
#[derive(Debug, Clone, PartialEq)]
pub enum Arrival {
    /// Each connection sends its next request as soon as the previous answer is
    /// read. Latency is the service time; stalls hide themselves (see docs/load.md).
    Closed { connections: usize },
    /// A constant total `rate` (requests/s) spread over `connections`, each on its
    /// own schedule. Latency counts from the intended send time, so stalls show.
    /// `ramp` raises the rate linearly from 0 to `rate` at the start of the run.
    Open {
        rate: f64,
        connections: usize,
        ramp: Option<Duration>,
    },
}

impl Arrival {
    /// Number of connections the generator keeps open.
    pub fn connections(&self) -> usize {
        match self {
            Arrival::Closed { connections } | Arrival::Open { connections, .. } => *connections,
        }
    }
}

/// When the measured window ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopCondition {
    /// After this long (requests in flight at the end are abandoned, not counted).
    Duration(Duration),
    /// After this many requests (successes and errors) in the measured window.
    Requests(u64),
}

impl LoadConfig {
    /// The connection ramp this run makes: closed loop only (an open loop
    /// ramps its rate instead, `Arrival::Open::ramp`).
    pub fn closed_ramp(&self) -> Duration {
        match self.arrival {
            Arrival::Closed { .. } => self.connection_ramp,
            Arrival::Open { .. } => Duration::ZERO,
        }
    }

    /// A closed-loop configuration with the defaults of `runner load`:
    /// 10 s, no warmup, 5 s timeout, one thread.
    pub fn closed(target: SocketAddr, request: RequestSpec, connections: usize) -> Self {
        LoadConfig {
            target,
            host_header: target.to_string(),
            requests: vec![request],
            arrival: Arrival::Closed { connections },
            stop: StopCondition::Duration(Duration::from_secs(10)),
            warmup: Duration::ZERO,
            timeout: Duration::from_secs(5),
            threads: 1,
            cpu_affinity: None,
            mix_seed: DEFAULT_MIX_SEED,
            connect_rate: DEFAULT_CONNECT_RATE,
            connection_ramp: Duration::ZERO,
            transport: Transport::default(),
        }
    }

    /// Checks what would otherwise fail (or spin) in the middle of a run.
    pub fn validate(&self) -> Result<(), LoadError> {
        let invalid = |what: String| Err(LoadError::InvalidConfig { what });
        if self.requests.is_empty() {
            return invalid("no request to send: give at least one request".into());
        }
        for r in &self.requests {
            if !r.path.starts_with('/') {
                return invalid(format!(
                    "request path {:?} must start with '/' (origin form)",
                    r.path
                ));
            }
            if r.method.is_empty() || !r.method.bytes().all(|b| b.is_ascii_alphabetic()) {
                return invalid(format!(
                    "request method {:?} is not a valid token",
                    r.method
                ));
            }
            if let Some(w) = r.weight
                && !(w.is_finite() && w > 0.0)
            {
                return invalid(format!(
                    "request {} {}: weight {w} must be a positive number",
                    r.method, r.path
                ));
            }
            for (k, v) in &r.headers {
                if k.is_empty() || k.contains([':', '\r', '\n', ' ']) || v.contains(['\r', '\n']) {
                    return invalid(format!("header {k:?}: {v:?} is not a valid HTTP header"));
                }
            }
        }
        if self.arrival.connections() == 0 {
            return invalid("connections (-c) must be at least 1".into());
        }
        if let Arrival::Open { rate, .. } = self.arrival
            && !(rate.is_finite() && rate > 0.0)
        {
            return invalid(format!(
                "open-loop rate must be a positive number, got {rate}"
            ));
        }
        if !self.connection_ramp.is_zero() && matches!(self.arrival, Arrival::Open { .. }) {
            return invalid(
                "a connection ramp is for closed loop: in open loop ramp the rate instead \
                 (`--ramp` with `--rate`)"
                    .into(),
            );
        }
        if !(self.connect_rate.is_finite() && self.connect_rate > 0.0) {
            return invalid(format!(
                "connect rate must be a positive number of connections per second, got {}",
                self.connect_rate
            ));
        }
        if self.threads == 0 {
            return invalid("threads must be at least 1".into());
        }
        if self.timeout.is_zero() {
            return invalid("timeout must be greater than zero".into());
        }
        match self.stop {
            StopCondition::Duration(d) if d.is_zero() => {
                return invalid("duration must be greater than zero".into());
            }
            StopCondition::Requests(0) => {
                return invalid("request count must be at least 1".into());
            }
            _ => {}
        }
        if let Some(cpus) = &self.cpu_affinity
            && cpus.is_empty()
        {
            return invalid("cpu affinity list is empty: omit it or name at least one CPU".into());
        }
        if let Some(what) = self.transport.problem(self) {
            return invalid(what);
        }
        Ok(())
    }

    /// Request loops the run drives: one per connection, one per stream
    /// slot with HTTP/2 (connections x streams).
    pub fn virtual_connections(&self) -> usize {
        self.arrival.connections() * self.transport.streams.max(1)
    }

    /// Worker threads actually used: never more than connections.
    pub(crate) fn effective_threads(&self) -> usize {
        self.threads.min(self.arrival.connections()).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> LoadConfig {
        LoadConfig::closed("127.0.0.1:1".parse().unwrap(), RequestSpec::get("/"), 4)
    }

    #[test]
    fn defaults_are_valid() {
        cfg().validate().unwrap();
    }

    #[test]
    fn rejects_what_would_break_a_run() {
        let mut c = cfg();
        c.requests[0].path = "x".into();
        assert!(
            c.validate()
                .unwrap_err()
                .to_string()
                .contains("must start with '/'")
        );
        let mut c = cfg();
        c.arrival = Arrival::Open {
            rate: 0.0,
            connections: 1,
            ramp: None,
        };
        assert!(c.validate().unwrap_err().to_string().contains("rate"));
        let mut c = cfg();
        c.requests[0].headers.push(("X-A".into(), "b\r\nc".into()));
        assert!(c.validate().is_err());
        let mut c = cfg();
        c.stop = StopCondition::Requests(0);
        assert!(c.validate().is_err());
        let mut c = cfg();
        c.connection_ramp = Duration::from_secs(1);
        c.validate().unwrap();
        c.arrival = Arrival::Open {
            rate: 10.0,
            connections: 1,
            ramp: None,
        };
        assert!(
            c.validate()
                .unwrap_err()
                .to_string()
                .contains("closed loop")
        );
    }

    #[test]
    fn threads_never_exceed_connections() {
        let mut c = cfg();
        c.threads = 8;
        assert_eq!(c.effective_threads(), 4);
    }
}
