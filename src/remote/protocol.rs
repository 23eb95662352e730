//! The `runner remote` protocol: one JSON object per line each way over the
//! SSH session's stdin/stdout. The controlling runner sends a [`Request`]
//! and reads [`Response`]s until the one that ends it (a load sends
//! `progress` lines first). Stderr is free text, kept for error messages.
//!
//! Why a protocol of our own at all: OpenSSH is the transport and the
//! security boundary; this is only the framing of a handful of calls, and
//! JSON lines keep it debuggable by hand (`ssh host runner remote`).
use std::io::{BufRead, Write};
use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use crate::remote::error::RemoteError;
use crate::remote::service_hosts::service_wire::{ServiceAnswer, ServiceCall};
use crate::remote::wire::{WireLoadConfig, WireLoadReport};
use crate::results::HostInfo;

/// Bumped when a request or response changes shape (3: a load carries its
/// transport, TLS and HTTP/2, which a runner of 2 would ignore and run plain).
pub const PROTOCOL_VERSION: u32 = 3;

/// What the controlling runner asks.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Versions and the remote binary's identity.
    Hello,
    /// The host's fingerprint (CPU, cores, memory, kernel).
    Fingerprint,
    /// Answered at once with the remote wall clock (RTT and clock offset).
    Ping { seq: u64 },
    /// Run one load. `allowed` lists the non-loopback addresses this load
    /// may target (the spec's declared service host); anything else is
    /// refused before a packet is sent. With `start_at_unix_ns`, the load
    /// starts at that wall-clock time (several hosts, one window).
    Load {
        config: Box<WireLoadConfig>,
        allowed: Vec<IpAddr>,
        start_at_unix_ns: Option<u64>,
    },
    /// Cancel the running load (it still answers `load_done`).
    Cancel,
    /// A call to the service host: build, start, sample, stop its service
    /// (`crate::remote::service_hosts::service_wire`). Answered by `service` responses.
    Service { call: Box<ServiceCall> },
    /// End the session.
    Bye,
}

/// What `runner remote` answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Response {
    Hello {
        protocol: u32,
        runner_version: String,
    },
    Fingerprint {
        host: Box<HostInfo>,
    },
    Pong {
        seq: u64,
        unix_ns: u64,
    },
    /// Once a second during a load: requests completed so far.
    Progress {
        completed: u64,
        errors: u64,
    },
    /// A load ended; `started_unix_ns` is when its measured window opened on
    /// the remote clock.
    LoadDone {
        report: Box<WireLoadReport>,
        started_unix_ns: u64,
    },
    /// The service host's answer to a `service` call (a build sends
    /// `log` answers before its last).
    Service {
        answer: Box<ServiceAnswer>,
    },
    /// The request could not be carried out.
    Error {
        message: String,
    },
}

impl Response {
    /// Its name on the wire (`hello`, `load_done`, ...), and for a
    /// `service` answer that answer's: what an unexpected one is called by,
    /// instead of a print of its fields.
    pub fn name(&self) -> String {
        match self {
            Response::Hello { .. } => "hello".into(),
            Response::Fingerprint { .. } => "fingerprint".into(),
            Response::Pong { .. } => "pong".into(),
            Response::Progress { .. } => "progress".into(),
            Response::LoadDone { .. } => "load_done".into(),
            Response::Service { answer } => format!("service ({})", answer.name()),
            Response::Error { .. } => "error".into(),
        }
    }
}

/// Writes `msg` as one line and flushes.
pub fn send<T: Serialize>(w: &mut impl Write, msg: &T) -> Result<(), RemoteError> {
    let mut line = serde_json::to_vec(msg).map_err(|e| RemoteError::protocol(e.to_string()))?;
    line.push(b'\n');
    w.write_all(&line)?;
    w.flush()?;
    Ok(())
}

/// The next message, or `None` at end of input.
pub fn receive<T: for<'de> Deserialize<'de>>(
    r: &mut impl BufRead,
) -> Result<Option<T>, RemoteError> {
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    serde_json::from_str(line.trim_end())
        .map(Some)
        .map_err(|e| RemoteError::protocol(format!("{e} in line {:?}", truncate(&line))))
}

fn truncate(line: &str) -> &str {
    let end = line.char_indices().nth(200).map_or(line.len(), |(i, _)| i);
    &line[..end]
}

/// Nanoseconds since the Unix epoch on this host's wall clock.
pub fn unix_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{Arrival, LoadConfig, RequestSpec, StopCondition};
    use std::io::Cursor;
    use std::time::Duration;

    #[test]
    fn a_load_request_survives_the_line_both_ways() {
        let mut config = LoadConfig::closed(
            "10.213.0.1:8080".parse().unwrap(),
            RequestSpec {
                body: Some(bytes::Bytes::from_static(b"{\"a\":\n1}")),
                headers: vec![("X-Test".into(), "1".into())],
                weight: Some(2.0),
                // A warmup's content checks travel to the load host.
                check: Some(crate::load::http::expect::RequestCheck {
                    name: "work".into(),
                    expect: crate::load::http::expect::AnswerExpect {
                        min_bytes: Some(64),
                        body_contains: Some("\"ok\"".into()),
                        headers: vec![("Content-Type".into(), "text/plain".into())],
                        ..Default::default()
                    },
                }),
                ..RequestSpec::get("/work/64")
            },
            4,
        );
        config.arrival = Arrival::Open {
            rate: 250.5,
            connections: 4,
            ramp: Some(Duration::from_millis(1500)),
        };
        config.stop = StopCondition::Duration(Duration::from_secs(3));
        config.warmup = Duration::from_millis(250);
        let request = Request::Load {
            config: Box::new(WireLoadConfig::try_from(&config).unwrap()),
            allowed: vec!["10.213.0.1".parse().unwrap()],
            start_at_unix_ns: Some(42),
        };
        let mut line = Vec::new();
        send(&mut line, &request).unwrap();
        assert_eq!(line.iter().filter(|b| **b == b'\n').count(), 1, "one line");
        assert!(line.starts_with(br#"{"op":"load""#));
        let back: Request = receive(&mut Cursor::new(line)).unwrap().unwrap();
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            serde_json::to_value(&request).unwrap()
        );
        let Request::Load { config: wire, .. } = back else {
            unreachable!()
        };
        let again = wire.into_config().unwrap();
        assert_eq!(again.requests, config.requests);
        assert_eq!(again.arrival, config.arrival);
        assert_eq!(again.stop, config.stop);
        assert_eq!(again.warmup, config.warmup);
        assert_eq!(again.target, config.target);
    }

    #[test]
    fn end_of_input_is_none_and_garbage_is_a_protocol_error() {
        let none: Option<Request> = receive(&mut Cursor::new(Vec::new())).unwrap();
        assert!(none.is_none());
        let err = receive::<Request>(&mut Cursor::new(b"{\"op\":\"dance\"}\n".to_vec()));
        assert!(matches!(err, Err(RemoteError::Protocol(_))), "{err:?}");
    }
}
