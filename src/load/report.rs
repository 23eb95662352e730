//! [`LoadReport`]: what a run measured, plus its JSON summary and hlog output.

use std::io::{self, Write};
use std::time::{Duration, SystemTime};

use hdrhistogram::Histogram;
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use serde::{Deserialize, Serialize};

use crate::load::engine::connect_phase::ConnectStats;
use crate::load::engine::ramp::RampStats;
use crate::load::error::ErrorCounts;
use crate::load::measure::memory::GeneratorMemory;
use crate::load::measure::per_request::RequestFigures;
use crate::load::net::stats::TransportReport;

/// One second of the measured window, all workers merged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecondStats {
    /// Seconds since the start of the measured window.
    pub second: u64,
    /// Requests completed with the expected status (errors not included).
    #[serde(rename = "requests")]
    pub ok: u64,
    pub errors: u64,
    /// Latency of the requests completed in this second (0 when none).
    pub p50_us: u64,
    pub p99_us: u64,
}

/// The generator's own CPU use during the measured window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeneratorUsage {
    pub user_s: f64,
    pub system_s: f64,
    pub threads: usize,
    /// (user + system) / (elapsed * threads): 1.0 means every worker thread was always busy.
    pub cpu_share: f64,
    /// Seconds the worker threads were runnable but waiting for a CPU
    /// (schedstat), summed, and that sum / (elapsed * threads).
    pub waited_s: f64,
    pub wait_share: f64,
}

impl GeneratorUsage {
    pub fn cpu_s(&self) -> f64 {
        self.user_s + self.system_s
    }
}

/// Open loop: how well the schedule was kept in the measured window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduleStats {
    /// Requests the schedule called for.
    pub scheduled: u64,
    /// Requests actually sent.
    pub sent: u64,
    /// Requests sent more than 1 ms after their intended time (the connection
    /// was still busy with an earlier answer, or the generator was slow).
    pub late: u64,
}

/// Everything one run measured. Counts cover the measured window only.
#[derive(Debug, Clone)]
pub struct LoadReport {
    /// Length of the measured window.
    pub elapsed: Duration,
    /// Requests completed with the expected status; `errors` counts the
    /// others, so every answer is `ok + errors.total()`.
    pub ok: u64,
    pub errors: ErrorCounts,
    /// Microseconds; in open loop from the intended send time (coordinated
    /// omission corrected), in closed loop equal to `service_time`.
    pub latency: Histogram<u64>,
    /// Microseconds from the actual send to the end of the response.
    pub service_time: Histogram<u64>,
    /// `latency` plus the timed-out requests, each at the latency it had
    /// when given up (about the timeout).
    pub latency_with_timeouts: Histogram<u64>,
    /// Measured requests still unanswered when the window closed.
    pub in_flight: u64,
    pub timeline: Vec<SecondStats>,
    pub generator: GeneratorUsage,
    /// Why the generator itself may have limited the result, if it did.
    pub saturated: Option<String>,
    pub target_rate: Option<f64>,
    /// Requests completed (successes and errors) per second.
    pub achieved_rate: f64,
    pub schedule: Option<ScheduleStats>,
    pub was_cancelled: bool,
    /// The measured outcomes per workload request, in workload order; only
    /// counted when there are several (one request's are the run's own).
    pub per_request: Vec<RequestFigures>,
    // --- 10,000 connections (issue 13 part 6).
    /// The connect phase before the run's clock started (not measured).
    pub connect: ConnectStats,
    /// The generator process's resident memory with every connection open.
    pub generator_memory: GeneratorMemory,
    // --- The study's load shape (issue 15 part 4).
    /// The closed loop's connection ramp before the window, if there was one.
    pub ramp: Option<RampStats>,
    /// The first sampled answer that failed its request's checks (a run
    /// whose requests carry checks, a cell's warmup, samples its answers;
    /// one that finds a wrong answer ends at once).
    pub wrong_answer: Option<crate::load::http::expect::WrongAnswer>,
    /// What a TLS or HTTP/2 run negotiated (None: plain HTTP/1.1 keep-alive).
    pub transport: Option<TransportReport>,
}

/// Latency percentiles in microseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Percentiles {
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
    pub mean: f64,
}

impl Percentiles {
    pub fn of(h: &Histogram<u64>) -> Percentiles {
        Percentiles {
            p50: h.value_at_quantile(0.5),
            p90: h.value_at_quantile(0.9),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            max: h.max(),
            mean: h.mean(),
        }
    }
}

/// The machine-readable form of a report (`runner load --json`).
#[derive(Debug, Clone, Serialize)]
pub struct ReportSummary<'a> {
    /// The JSON's version, as every JSON output of runner carries
    /// (results::format; `load` imports nothing of `results`).
    pub format_version: u32,
    pub elapsed_s: f64,
    /// Successful requests (`errors_total` are the others).
    #[serde(rename = "requests")]
    pub ok: u64,
    pub throughput: f64,
    pub errors_total: u64,
    pub errors: &'a ErrorCounts,
    pub latency_us: Percentiles,
    pub service_time_us: Percentiles,
    pub latency_with_timeouts_us: Percentiles,
    pub in_flight: u64,
    pub generator: &'a GeneratorUsage,
    pub requests_per_cpu_s: f64,
    pub saturated: Option<&'a str>,
    pub target_rate: Option<f64>,
    pub achieved_rate: f64,
    pub schedule: Option<&'a ScheduleStats>,
    pub was_cancelled: bool,
    pub timeline: &'a [SecondStats],
    /// The connect phase (not measured) and the connections per second it achieved.
    pub connect: &'a ConnectStats,
    pub connect_rate_achieved: f64,
    /// The generator's resident memory with every connection open.
    pub generator_memory: &'a GeneratorMemory,
    /// The connection ramp before the window (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ramp: Option<&'a RampStats>,
    /// Protocol, TLS parameters and handshakes, HTTP/2 settings (absent
    /// for plain HTTP/1.1 keep-alive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<&'a TransportReport>,
}

impl LoadReport {
    /// Successful requests per second of the measured window.
    pub fn throughput(&self) -> f64 {
        per_second(self.ok, self.elapsed)
    }

    /// Requests (successes and errors) per CPU-second of the generator.
    pub fn requests_per_cpu_s(&self) -> f64 {
        let cpu = self.generator.cpu_s();
        if cpu > 0.0 {
            (self.ok + self.errors.total()) as f64 / cpu
        } else {
            0.0
        }
    }

    pub fn summary(&self) -> ReportSummary<'_> {
        ReportSummary {
            format_version: SUMMARY_FORMAT_VERSION,
            elapsed_s: self.elapsed.as_secs_f64(),
            ok: self.ok,
            throughput: self.throughput(),
            errors_total: self.errors.total(),
            errors: &self.errors,
            latency_us: Percentiles::of(&self.latency),
            service_time_us: Percentiles::of(&self.service_time),
            latency_with_timeouts_us: Percentiles::of(&self.latency_with_timeouts),
            in_flight: self.in_flight,
            generator: &self.generator,
            requests_per_cpu_s: self.requests_per_cpu_s(),
            saturated: self.saturated.as_deref(),
            target_rate: self.target_rate,
            achieved_rate: self.achieved_rate,
            schedule: self.schedule.as_ref(),
            was_cancelled: self.was_cancelled,
            timeline: &self.timeline,
            connect: &self.connect,
            connect_rate_achieved: self.connect.achieved_rate(),
            generator_memory: &self.generator_memory,
            ramp: self.ramp.as_ref(),
            transport: self.transport.as_ref(),
        }
    }

    /// Writes the HdrHistogram interval log format (readable by HdrHistogram's
    /// HistogramLogReader and `HistogramLogProcessor`, and hdrhistogram's
    /// `IntervalLogIterator`), in microseconds: the corrected latency as the
    /// untagged interval, the format's main histogram, so the reference tools
    /// read it with no `-tag`; then the service time tagged `service_time`.
    /// Runs recorded before this tagged the latency `latency` too.
    pub fn write_hlog(&self, mut w: impl Write) -> io::Result<()> {
        let mut serializer = V2DeflateSerializer::new();
        let now = SystemTime::now();
        let start = now.checked_sub(self.elapsed).unwrap_or(now);
        let mut log = IntervalLogWriterBuilder::new()
            .add_comment("runner load: latency in microseconds")
            .with_start_time(start)
            .with_base_time(start)
            .with_max_value_divisor(1.0)
            .begin_log_with(&mut w, &mut serializer)?;
        for (tag, h) in [
            (None, &self.latency),
            (Tag::new(SERVICE_TIME_TAG), &self.service_time),
        ] {
            log.write_histogram(h, Duration::ZERO, self.elapsed, tag)
                .map_err(|e| io::Error::other(e.to_string()))?;
        }
        Ok(())
    }
}

/// `runner load --json`'s version (docs/schemas/load.schema.json).
const SUMMARY_FORMAT_VERSION: u32 = 1;

/// The tag of the service-time interval in a run's hlog.
const SERVICE_TIME_TAG: &str = "service_time";

pub(crate) fn per_second(count: u64, elapsed: Duration) -> f64 {
    let s = elapsed.as_secs_f64();
    if s > 0.0 { count as f64 / s } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::measure::recorder::new_histogram;

    /// `runner load --json` keeps its `requests` keys: scripts read them.
    #[test]
    fn the_json_summary_calls_the_successes_requests() {
        let report = LoadReport {
            elapsed: Duration::from_secs(1),
            ok: 90,
            errors: ErrorCounts {
                reset: 10,
                ..Default::default()
            },
            latency: new_histogram(),
            service_time: new_histogram(),
            latency_with_timeouts: new_histogram(),
            in_flight: 0,
            timeline: vec![SecondStats {
                second: 0,
                ok: 90,
                errors: 10,
                p50_us: 0,
                p99_us: 0,
            }],
            generator: GeneratorUsage {
                user_s: 0.5,
                system_s: 0.0,
                threads: 1,
                cpu_share: 0.5,
                waited_s: 0.0,
                wait_share: 0.0,
            },
            saturated: None,
            target_rate: None,
            achieved_rate: 100.0,
            per_request: Vec::new(),
            schedule: None,
            was_cancelled: false,
            connect: ConnectStats {
                wanted: 10,
                opened: 10,
                failed: 0,
                seconds: 0.01,
                rate_limit: 2000.0,
            },
            generator_memory: GeneratorMemory::default(),
            ramp: None,
            wrong_answer: None,
            transport: None,
        };
        let json = serde_json::to_value(report.summary()).unwrap();
        assert_eq!(json["requests"], 90);
        assert_eq!(json["errors_total"], 10);
        assert_eq!(json["throughput"], 90.0);
        // Every answer, successes and errors, per generator CPU-second.
        assert_eq!(json["requests_per_cpu_s"], 200.0);
        assert_eq!(json["timeline"][0]["requests"], 90);
        assert_eq!(json["timeline"][0]["errors"], 10);
    }
}
