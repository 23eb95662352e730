//! A load run's configuration and report as they cross the SSH pipe.
//!
//! The configuration is plain JSON. The report's histograms travel in the
//! HdrHistogram interval log format (V2 + deflate, base64 per interval, one
//! tagged interval per histogram), which keeps every bucket: the local side
//! decodes exactly what the remote side recorded, so merging the hosts'
//! histograms is exact and no percentile is ever averaged.
use std::io::Cursor;
use std::net::SocketAddr;
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::interval_log::{
    IntervalLogIterator, IntervalLogWriterBuilder, LogEntry, Tag,
};
use hdrhistogram::serialization::{Deserializer, V2DeflateSerializer};
use serde::{Deserialize, Serialize};

use crate::load::http::expect::{RequestCheck, WrongAnswer};
use crate::load::{
    Arrival, ConnectStats, ErrorCounts, GeneratorMemory, GeneratorUsage, LoadConfig, LoadReport,
    RampStats, RequestFigures, RequestSpec, ScheduleStats, SecondStats, StopCondition,
    TransportReport,
};
use crate::remote::error::RemoteError;
use crate::remote::wire_transport::WireTransport;

fn default_connect_rate() -> f64 {
    crate::load::DEFAULT_CONNECT_RATE
}

/// [`LoadConfig`] on the wire (durations in nanoseconds, bodies in hex).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireLoadConfig {
    pub target: SocketAddr,
    pub host_header: String,
    pub requests: Vec<WireRequest>,
    pub arrival: WireArrival,
    pub stop: WireStop,
    pub warmup_ns: u64,
    pub timeout_ns: u64,
    pub threads: usize,
    pub cpu_affinity: Option<Vec<usize>>,
    pub mix_seed: u64,
    /// Connections per second of the paced connect phase (absent: the
    /// generator's default, as for `runner load`).
    #[serde(default = "default_connect_rate")]
    pub connect_rate: f64,
    /// The closed loop's connection ramp (absent: none, as from a runner
    /// that predates it).
    #[serde(default)]
    pub connection_ramp_ns: u64,
    /// TLS, HTTP/2, connection reuse (absent: plain HTTP/1.1, kept
    /// connections, as from a runner that predates them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<WireTransport>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireRequest {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body_hex: Option<String>,
    pub expect_status: u16,
    pub weight: Option<f64>,
    /// A warmup request's content checks (absent: none, as from a runner
    /// that predates them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<RequestCheck>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WireArrival {
    Closed {
        connections: usize,
    },
    Open {
        rate: f64,
        connections: usize,
        ramp_ns: Option<u64>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum WireStop {
    DurationNs(u64),
    Requests(u64),
}

fn ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl TryFrom<&LoadConfig> for WireLoadConfig {
    type Error = RemoteError;

    /// Fails only when a TLS run's CA file cannot be read.
    fn try_from(c: &LoadConfig) -> Result<Self, RemoteError> {
        Ok(WireLoadConfig {
            target: c.target,
            host_header: c.host_header.clone(),
            requests: c
                .requests
                .iter()
                .map(|r| WireRequest {
                    method: r.method.clone(),
                    path: r.path.clone(),
                    headers: r.headers.clone(),
                    body_hex: r.body.as_ref().map(hex::encode),
                    expect_status: r.expect_status,
                    weight: r.weight,
                    check: r.check.clone(),
                })
                .collect(),
            arrival: match &c.arrival {
                Arrival::Closed { connections } => WireArrival::Closed {
                    connections: *connections,
                },
                Arrival::Open {
                    rate,
                    connections,
                    ramp,
                } => WireArrival::Open {
                    rate: *rate,
                    connections: *connections,
                    ramp_ns: ramp.map(ns),
                },
            },
            stop: match c.stop {
                StopCondition::Duration(d) => WireStop::DurationNs(ns(d)),
                StopCondition::Requests(n) => WireStop::Requests(n),
            },
            warmup_ns: ns(c.warmup),
            timeout_ns: ns(c.timeout),
            threads: c.threads,
            cpu_affinity: c.cpu_affinity.clone(),
            mix_seed: c.mix_seed,
            connect_rate: c.connect_rate,
            connection_ramp_ns: ns(c.connection_ramp),
            transport: WireTransport::of(&c.transport)?,
        })
    }
}

impl WireLoadConfig {
    pub fn into_config(self) -> Result<LoadConfig, RemoteError> {
        let mut requests = Vec::with_capacity(self.requests.len());
        for r in self.requests {
            let body = match r.body_hex {
                Some(h) => Some(
                    hex::decode(&h)
                        .map_err(|e| RemoteError::protocol(format!("request body: {e}")))?
                        .into(),
                ),
                None => None,
            };
            requests.push(RequestSpec {
                method: r.method,
                path: r.path,
                headers: r.headers,
                body,
                expect_status: r.expect_status,
                weight: r.weight,
                check: r.check,
            });
        }
        Ok(LoadConfig {
            target: self.target,
            host_header: self.host_header,
            requests,
            arrival: match self.arrival {
                WireArrival::Closed { connections } => Arrival::Closed { connections },
                WireArrival::Open {
                    rate,
                    connections,
                    ramp_ns,
                } => Arrival::Open {
                    rate,
                    connections,
                    ramp: ramp_ns.map(Duration::from_nanos),
                },
            },
            stop: match self.stop {
                WireStop::DurationNs(n) => StopCondition::Duration(Duration::from_nanos(n)),
                WireStop::Requests(n) => StopCondition::Requests(n),
            },
            warmup: Duration::from_nanos(self.warmup_ns),
            timeout: Duration::from_nanos(self.timeout_ns),
            threads: self.threads,
            cpu_affinity: self.cpu_affinity,
            mix_seed: self.mix_seed,
            connect_rate: self.connect_rate,
            connection_ramp: Duration::from_nanos(self.connection_ramp_ns),
            transport: match self.transport {
                Some(t) => t.into_transport()?,
                None => Default::default(),
            },
        })
    }
}

/// [`LoadReport`] on the wire: every count as is, the histograms in `hlog`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireLoadReport {
    pub elapsed_ns: u64,
    pub ok: u64,
    pub errors: ErrorCounts,
    pub in_flight: u64,
    pub timeline: Vec<SecondStats>,
    pub generator: GeneratorUsage,
    pub saturated: Option<String>,
    pub target_rate: Option<f64>,
    pub achieved_rate: f64,
    pub schedule: Option<ScheduleStats>,
    pub was_cancelled: bool,
    /// `(ok, errors)` per workload request; their histograms are in `hlog`.
    pub per_request: Vec<(u64, u64)>,
    /// The HdrHistogram interval log: intervals tagged `latency`,
    /// `service_time`, `latency_with_timeouts`, `request-<i>`.
    pub hlog: String,
    /// The host's connect phase and the generator's own memory there.
    pub connect: ConnectStats,
    pub generator_memory: GeneratorMemory,
    /// The host's connection ramp before the window, if there was one.
    #[serde(default)]
    pub ramp: Option<RampStats>,
    /// The first sampled answer that failed its checks (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrong_answer: Option<WrongAnswer>,
    /// What the host's run negotiated (absent: plain HTTP/1.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<TransportReport>,
}

const LATENCY: &str = "latency";
const SERVICE_TIME: &str = "service_time";
const WITH_TIMEOUTS: &str = "latency_with_timeouts";

fn request_tag(i: usize) -> String {
    format!("request-{i}")
}

impl WireLoadReport {
    pub fn of(r: &LoadReport) -> Result<WireLoadReport, RemoteError> {
        let tags: Vec<String> = (0..r.per_request.len()).map(request_tag).collect();
        let mut named: Vec<(&str, &Histogram<u64>)> = vec![
            (LATENCY, &r.latency),
            (SERVICE_TIME, &r.service_time),
            (WITH_TIMEOUTS, &r.latency_with_timeouts),
        ];
        named.extend(
            r.per_request
                .iter()
                .zip(&tags)
                .map(|(f, t)| (t.as_str(), &f.latency)),
        );
        Ok(WireLoadReport {
            elapsed_ns: ns(r.elapsed),
            ok: r.ok,
            errors: r.errors.clone(),
            in_flight: r.in_flight,
            timeline: r.timeline.clone(),
            generator: r.generator.clone(),
            saturated: r.saturated.clone(),
            target_rate: r.target_rate,
            achieved_rate: r.achieved_rate,
            schedule: r.schedule.clone(),
            was_cancelled: r.was_cancelled,
            per_request: r.per_request.iter().map(|f| (f.ok, f.errors)).collect(),
            hlog: write_hlog(&named, r.elapsed)?,
            connect: r.connect.clone(),
            generator_memory: r.generator_memory,
            ramp: r.ramp.clone(),
            wrong_answer: r.wrong_answer.clone(),
            transport: r.transport.clone(),
        })
    }

    pub fn into_report(self) -> Result<LoadReport, RemoteError> {
        let mut histograms = read_hlog(&self.hlog)?;
        let mut take = |tag: &str| {
            histograms
                .iter()
                .position(|(t, _)| t == tag)
                .map(|i| histograms.swap_remove(i).1)
                .ok_or_else(|| RemoteError::protocol(format!("no `{tag}` histogram in the report")))
        };
        let latency = take(LATENCY)?;
        let service_time = take(SERVICE_TIME)?;
        let latency_with_timeouts = take(WITH_TIMEOUTS)?;
        let mut per_request = Vec::with_capacity(self.per_request.len());
        for (i, (ok, errors)) in self.per_request.iter().enumerate() {
            per_request.push(RequestFigures {
                ok: *ok,
                errors: *errors,
                latency: take(&request_tag(i))?,
            });
        }
        Ok(LoadReport {
            elapsed: Duration::from_nanos(self.elapsed_ns),
            ok: self.ok,
            errors: self.errors,
            latency,
            service_time,
            latency_with_timeouts,
            in_flight: self.in_flight,
            timeline: self.timeline,
            generator: self.generator,
            saturated: self.saturated,
            target_rate: self.target_rate,
            achieved_rate: self.achieved_rate,
            schedule: self.schedule,
            was_cancelled: self.was_cancelled,
            per_request,
            connect: self.connect,
            generator_memory: self.generator_memory,
            ramp: self.ramp,
            wrong_answer: self.wrong_answer,
            transport: self.transport,
        })
    }
}

fn write_hlog(named: &[(&str, &Histogram<u64>)], elapsed: Duration) -> Result<String, RemoteError> {
    let mut out = Vec::new();
    let mut serializer = V2DeflateSerializer::new();
    let start = SystemTime::UNIX_EPOCH;
    let mut log = IntervalLogWriterBuilder::new()
        .add_comment("runner remote: latency in microseconds")
        .with_start_time(start)
        .with_base_time(start)
        .with_max_value_divisor(1.0)
        .begin_log_with(&mut out, &mut serializer)
        .map_err(|e| RemoteError::protocol(format!("cannot write the histogram log: {e}")))?;
    for (tag, h) in named {
        let tag = Tag::new(tag)
            .ok_or_else(|| RemoteError::protocol(format!("`{tag}` is not a valid log tag")))?;
        log.write_histogram(h, Duration::ZERO, elapsed, Some(tag))
            .map_err(|e| RemoteError::protocol(format!("cannot write a histogram: {e:?}")))?;
    }
    String::from_utf8(out).map_err(|e| RemoteError::protocol(e.to_string()))
}

/// Every tagged interval of an HdrHistogram log, decoded.
pub fn read_hlog(text: &str) -> Result<Vec<(String, Histogram<u64>)>, RemoteError> {
    let mut out = Vec::new();
    let mut deserializer = Deserializer::new();
    for entry in IntervalLogIterator::new(text.as_bytes()) {
        let entry =
            entry.map_err(|e| RemoteError::protocol(format!("bad histogram log: {e:?}")))?;
        let LogEntry::Interval(interval) = entry else {
            continue;
        };
        let tag = interval
            .tag()
            .map(|t| t.as_str().to_string())
            .unwrap_or_default();
        let bytes = STANDARD
            .decode(interval.encoded_histogram())
            .map_err(|e| RemoteError::protocol(format!("histogram `{tag}`: {e}")))?;
        let h: Histogram<u64> = deserializer
            .deserialize(&mut Cursor::new(bytes))
            .map_err(|e| RemoteError::protocol(format!("histogram `{tag}`: {e:?}")))?;
        out.push((tag, h));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The closed loop's connection ramp crosses the pipe; a configuration
    /// from a runner that predates it has none.
    #[test]
    fn the_connection_ramp_travels_and_defaults_to_none() {
        let mut config = LoadConfig::closed(
            "127.0.0.1:8080".parse().unwrap(),
            RequestSpec::get("/x"),
            100,
        );
        config.connection_ramp = Duration::from_secs(10);
        let wire = WireLoadConfig::try_from(&config).unwrap();
        let text = serde_json::to_string(&wire).unwrap();
        let back: WireLoadConfig = serde_json::from_str(&text).unwrap();
        assert_eq!(
            back.into_config().unwrap().connection_ramp,
            Duration::from_secs(10)
        );
        let mut old = serde_json::to_value(&wire).unwrap();
        old.as_object_mut().unwrap().remove("connection_ramp_ns");
        let old: WireLoadConfig = serde_json::from_value(old).unwrap();
        assert_eq!(old.into_config().unwrap().connection_ramp, Duration::ZERO);
    }
}
