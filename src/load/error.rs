//! Errors: [`LoadError`] for a run that cannot happen at all, and
//! [`ErrorCounts`] for requests that failed during a run (counted, never dropped).

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::load::net::tls_error::TlsFailure;

/// Why a load run (or a probe) could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("invalid load configuration: {what}")]
    InvalidConfig { what: String },
    #[error(
        "cannot start the load generator's worker thread or runtime: {0}; check the process and thread limits (ulimit -u)"
    )]
    Runtime(io::Error),
    #[error(
        "cannot pin the load generator to CPU {cpu}: {cause}; list CPUs this process may use (taskset -p $$)"
    )]
    Affinity { cpu: usize, cause: io::Error },
    #[error("connection to {addr} refused: is the service listening on that port?")]
    ConnectRefused { addr: SocketAddr },
    #[error(
        "connecting to {addr} took longer than {timeout:?}: is the host reachable and the service accepting?"
    )]
    ConnectTimeout { addr: SocketAddr, timeout: Duration },
    #[error(
        "no complete answer from {addr} within {timeout:?}: the service is stuck or too slow; raise the timeout"
    )]
    RequestTimeout { addr: SocketAddr, timeout: Duration },
    #[error("HTTP exchange with {addr} failed: {cause}")]
    Io { addr: SocketAddr, cause: io::Error },
    #[error("malformed HTTP response from {addr}: {what}")]
    Malformed { addr: SocketAddr, what: String },
    #[error("a load generator worker thread panicked: {0}")]
    WorkerPanicked(String),
    #[error("cannot write the latency log: {0}")]
    Hlog(String),
    #[error(
        "{connections} connections need {need} open files, but this process may open {soft} \
         (RLIMIT_NOFILE soft {soft}, hard {hard}; {why}): raise the hard limit as root \
         (`ulimit -Hn {need}` in the shell that starts runner, LimitNOFILE={need} in a systemd unit, \
         or `nofile` in /etc/security/limits.conf), or use fewer connections"
    )]
    FileLimit {
        connections: usize,
        need: u64,
        soft: u64,
        hard: u64,
        why: String,
    },
    /// The check before a TLS run: its handshake failed; `failure` says
    /// how and what to do; `detail` is rustls' own words when the kind
    /// alone does not say it (else empty).
    #[error("TLS handshake with {addr} failed: {}{detail}", failure.explain())]
    TlsHandshake {
        addr: SocketAddr,
        failure: TlsFailure,
        detail: String,
    },
    /// HTTP/2 over TLS was asked for and the server did not choose `h2`.
    #[error(
        "{addr} did not choose h2 in ALPN ({got}): the server does not speak HTTP/2 over TLS \
         on this port; enable HTTP/2 on the server, or measure HTTP/1.1 over TLS (runner load \
         without --h2, `protocol: https` in a spec)"
    )]
    AlpnRefused { addr: SocketAddr, got: String },
    /// h2c by prior knowledge was refused (an HTTP/1.1-only server answers
    /// the connection preface with an error or closes).
    #[error(
        "{addr} does not speak HTTP/2 with prior knowledge (h2c): {detail}; enable h2c on the \
         server, or measure HTTP/1.1 (runner load without --h2c, `protocol: http1` in a spec)"
    )]
    NotH2c { addr: SocketAddr, detail: String },
    /// The run's TLS client could not be set up (a CA file, a server name).
    #[error("TLS setup: {what}")]
    TlsSetup { what: String },
    /// A load run on another host (over SSH, see `crate::remote`) could not
    /// be carried out; `why` already says what to do.
    #[error("load host {host}: {why}")]
    Remote { host: String, why: String },
}

/// Class of a failed request; each has its own counter in [`ErrorCounts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    ConnectRefused,
    ConnectTimeout,
    RequestTimeout,
    /// The connection was closed or reset before the whole response was read.
    Reset,
    /// A complete response with a status other than the expected one.
    Status(u16),
    /// Bytes that are not a valid HTTP/1.1 response.
    Malformed,
    /// Anything else (e.g. connect failing with another OS error).
    Other,
    /// The TLS handshake failed (untrusted, expired, wrong name, not TLS...).
    TlsHandshake(TlsFailure),
    /// HTTP/2 was asked for and the server did not choose `h2` in ALPN.
    AlpnRefused,
    /// The server reset the request's HTTP/2 stream (RST_STREAM).
    StreamReset,
    /// The server sent GOAWAY: the connection ended under the request.
    GoAway,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Failed requests by class. Counts are exact: every request that started
/// in the measured window ends up either in `LoadReport::ok` or here.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorCounts {
    pub connect_refused: u64,
    pub connect_timeout: u64,
    pub request_timeout: u64,
    pub reset: u64,
    /// Unexpected statuses, by code.
    pub status: BTreeMap<u16, u64>,
    pub malformed: u64,
    pub other: u64,
    // The classes of TLS and HTTP/2, absent from the JSON when zero (as
    // every plain HTTP/1.1 run's are, whose output stays as it was).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tls_handshake: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub alpn_refused: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stream_reset: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub goaway: u64,
}

impl ErrorCounts {
    pub fn record(&mut self, class: ErrorClass) {
        match class {
            ErrorClass::ConnectRefused => self.connect_refused += 1,
            ErrorClass::ConnectTimeout => self.connect_timeout += 1,
            ErrorClass::RequestTimeout => self.request_timeout += 1,
            ErrorClass::Reset => self.reset += 1,
            ErrorClass::Status(code) => *self.status.entry(code).or_default() += 1,
            ErrorClass::Malformed => self.malformed += 1,
            ErrorClass::Other => self.other += 1,
            ErrorClass::TlsHandshake(_) => self.tls_handshake += 1,
            ErrorClass::AlpnRefused => self.alpn_refused += 1,
            ErrorClass::StreamReset => self.stream_reset += 1,
            ErrorClass::GoAway => self.goaway += 1,
        }
    }

    pub fn merge(&mut self, other: &ErrorCounts) {
        self.connect_refused += other.connect_refused;
        self.connect_timeout += other.connect_timeout;
        self.request_timeout += other.request_timeout;
        self.reset += other.reset;
        for (code, n) in &other.status {
            *self.status.entry(*code).or_default() += n;
        }
        self.malformed += other.malformed;
        self.other += other.other;
        self.tls_handshake += other.tls_handshake;
        self.alpn_refused += other.alpn_refused;
        self.stream_reset += other.stream_reset;
        self.goaway += other.goaway;
    }

    /// All failed requests.
    pub fn total(&self) -> u64 {
        self.connect_refused
            + self.connect_timeout
            + self.request_timeout
            + self.reset
            + self.status.values().sum::<u64>()
            + self.malformed
            + self.other
            + self.tls_handshake
            + self.alpn_refused
            + self.stream_reset
            + self.goaway
    }

    /// Non-zero classes as (name, count), for printing: "status 500" per code.
    pub fn by_class(&self) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        let mut push = |name: &str, n: u64| {
            if n > 0 {
                out.push((name.to_string(), n));
            }
        };
        push("connect refused", self.connect_refused);
        push("connect timeout", self.connect_timeout);
        push("request timeout", self.request_timeout);
        push("reset mid-response", self.reset);
        push("malformed response", self.malformed);
        push("other", self.other);
        push("TLS handshake failed", self.tls_handshake);
        push("h2 refused in ALPN", self.alpn_refused);
        push("HTTP/2 stream reset (RST_STREAM)", self.stream_reset);
        push("HTTP/2 GOAWAY", self.goaway);
        for (code, n) in &self.status {
            out.push((format!("status {code}"), *n));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_every_class_and_merges() {
        let mut a = ErrorCounts::default();
        for c in [
            ErrorClass::ConnectRefused,
            ErrorClass::ConnectTimeout,
            ErrorClass::RequestTimeout,
            ErrorClass::Reset,
            ErrorClass::Status(500),
            ErrorClass::Status(500),
            ErrorClass::Malformed,
            ErrorClass::Other,
            ErrorClass::TlsHandshake(TlsFailure::Expired),
            ErrorClass::AlpnRefused,
            ErrorClass::StreamReset,
            ErrorClass::GoAway,
        ] {
            a.record(c);
        }
        assert_eq!(a.total(), 12);
        // Plain runs never see the new classes: their JSON keeps its keys.
        let plain = serde_json::to_value(ErrorCounts::default()).unwrap();
        assert!(plain.get("goaway").is_none() && plain.get("tls_handshake").is_none());
        let mut b = ErrorCounts::default();
        b.record(ErrorClass::Status(404));
        b.merge(&a);
        assert_eq!(b.total(), 13);
        assert_eq!((b.stream_reset, b.goaway, b.tls_handshake), (1, 1, 1));
        assert_eq!(b.status[&500], 2);
        assert_eq!(b.by_class().last().unwrap(), &("status 500".to_string(), 2));
    }
}
