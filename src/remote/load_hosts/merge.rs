//! Several load hosts' reports as one, exactly: the histograms are added
//! bucket by bucket (HdrHistogram's `add`), so the merged percentiles are
//! those of one histogram of every recorded value; no percentile is averaged.
//!
//! The per-second timeline keeps counts exact too, but it carries only
//! each host's p50/p99 of the second, so its merged p50/p99 are the highest
//! host's (a bound, said so in docs/hosts.md); the window's percentiles come
//! from the merged histograms.
use std::collections::BTreeMap;

use hdrhistogram::Histogram;

use crate::load::{GeneratorUsage, LoadReport, ScheduleStats, SecondStats, TransportReport};

/// Why reports could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("no load host returned a report")]
    Empty,
    #[error(
        "the load hosts' histograms cannot be added ({0}): are all hosts the same runner build?"
    )]
    Histogram(String),
}

fn add(into: &mut Histogram<u64>, other: &Histogram<u64>) -> Result<(), MergeError> {
    into.add(other)
        .map_err(|e| MergeError::Histogram(format!("{e:?}")))
}

/// One report for every host's: counts summed, histograms added.
pub fn merge(reports: &[LoadReport]) -> Result<LoadReport, MergeError> {
    let (first, rest) = reports.split_first().ok_or(MergeError::Empty)?;
    let mut m = first.clone();
    for r in rest {
        m.elapsed = m.elapsed.max(r.elapsed);
        m.ok += r.ok;
        m.errors.merge(&r.errors);
        add(&mut m.latency, &r.latency)?;
        add(&mut m.service_time, &r.service_time)?;
        add(&mut m.latency_with_timeouts, &r.latency_with_timeouts)?;
        m.in_flight += r.in_flight;
        m.target_rate = match (m.target_rate, r.target_rate) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        m.achieved_rate += r.achieved_rate;
        m.schedule = match (&m.schedule, &r.schedule) {
            (Some(a), Some(b)) => Some(ScheduleStats {
                scheduled: a.scheduled + b.scheduled,
                sent: a.sent + b.sent,
                late: a.late + b.late,
            }),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        m.was_cancelled |= r.was_cancelled;
        // Connections add up over the hosts; the phase took as long as the
        // slowest host's. Generator memory: the hosts' sums (each host's
        // generator holds its own share of the connections).
        m.connect.wanted += r.connect.wanted;
        m.connect.opened += r.connect.opened;
        m.connect.failed += r.connect.failed;
        m.connect.seconds = m.connect.seconds.max(r.connect.seconds);
        m.connect.rate_limit += r.connect.rate_limit;
        m.generator_memory.rss_before_bytes += r.generator_memory.rss_before_bytes;
        m.generator_memory.rss_bytes += r.generator_memory.rss_bytes;
        m.generator_memory.peak_rss_bytes += r.generator_memory.peak_rss_bytes;
        // Each host ramps its own share of the connections over the same
        // length: the connections and the ramp's requests add up.
        m.ramp = match (m.ramp.take(), &r.ramp) {
            (Some(a), Some(b)) => Some(crate::load::RampStats {
                seconds: a.seconds.max(b.seconds),
                connections: a.connections + b.connections,
                requests: a.requests + b.requests,
            }),
            (a, b) => a.or_else(|| b.clone()),
        };
        if m.saturated.is_none() {
            m.saturated.clone_from(&r.saturated);
        }
        if m.wrong_answer.is_none() {
            m.wrong_answer.clone_from(&r.wrong_answer);
        }
        m.transport = add_transport(m.transport.take(), r.transport.as_ref());
        for (i, f) in r.per_request.iter().enumerate() {
            match m.per_request.get_mut(i) {
                Some(mine) => {
                    mine.ok += f.ok;
                    mine.errors += f.errors;
                    add(&mut mine.latency, &f.latency)?;
                }
                None => m.per_request.push(f.clone()),
            }
        }
    }
    m.generator = generator(reports);
    m.timeline = timeline(reports);
    Ok(m)
}

/// Handshakes add up over the hosts; the session parameters are the first
/// host's that negotiated any (every host offers the same), the server's
/// stream limit the lowest any host saw, the warning the first.
fn add_transport(
    mine: Option<TransportReport>,
    other: Option<&TransportReport>,
) -> Option<TransportReport> {
    let Some(other) = other else {
        return mine;
    };
    let Some(mut mine) = mine else {
        return Some(other.clone());
    };
    if let (Some(a), Some(b)) = (mine.tls.as_mut(), other.tls.as_ref()) {
        a.handshakes_full += b.handshakes_full;
        a.handshakes_resumed += b.handshakes_resumed;
        if a.negotiated.is_none() {
            a.negotiated.clone_from(&b.negotiated);
        }
    }
    if let (Some(a), Some(b)) = (mine.h2.as_mut(), other.h2.as_ref()) {
        a.server_max_concurrent_streams = match (
            a.server_max_concurrent_streams,
            b.server_max_concurrent_streams,
        ) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
    }
    if mine.warning.is_none() {
        mine.warning.clone_from(&other.warning);
    }
    Some(mine)
}

/// The hosts' generator seconds and threads summed; the CPU and wait
/// shares are the highest host's, so the `generator_wait` gate and the
/// saturation check judge every load host on its own (an idle host must
/// not hide a saturated one in an average).
fn generator(reports: &[LoadReport]) -> GeneratorUsage {
    let sum = |f: fn(&GeneratorUsage) -> f64| reports.iter().map(|r| f(&r.generator)).sum::<f64>();
    let max =
        |f: fn(&GeneratorUsage) -> f64| reports.iter().map(|r| f(&r.generator)).fold(0.0, f64::max);
    GeneratorUsage {
        user_s: sum(|g| g.user_s),
        system_s: sum(|g| g.system_s),
        threads: reports.iter().map(|r| r.generator.threads).sum(),
        cpu_share: max(|g| g.cpu_share),
        waited_s: sum(|g| g.waited_s),
        wait_share: max(|g| g.wait_share),
    }
}

fn timeline(reports: &[LoadReport]) -> Vec<SecondStats> {
    let mut by_second: BTreeMap<u64, SecondStats> = BTreeMap::new();
    for s in reports.iter().flat_map(|r| &r.timeline) {
        let e = by_second.entry(s.second).or_insert(SecondStats {
            second: s.second,
            ok: 0,
            errors: 0,
            p50_us: 0,
            p99_us: 0,
        });
        e.ok += s.ok;
        e.errors += s.errors;
        e.p50_us = e.p50_us.max(s.p50_us);
        e.p99_us = e.p99_us.max(s.p99_us);
    }
    by_second.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{ErrorCounts, RequestFigures};
    use crate::remote::wire::WireLoadReport;
    use rand::{RngExt, SeedableRng};
    use std::time::Duration;

    fn histogram() -> Histogram<u64> {
        Histogram::new_with_bounds(1, 60_000_000, 3).unwrap()
    }

    fn report(values: &[u64]) -> LoadReport {
        let mut h = histogram();
        for v in values {
            h.record(*v).unwrap();
        }
        LoadReport {
            elapsed: Duration::from_secs(2),
            ok: values.len() as u64,
            errors: ErrorCounts::default(),
            latency: h.clone(),
            service_time: h.clone(),
            latency_with_timeouts: h.clone(),
            in_flight: 1,
            timeline: vec![SecondStats {
                second: 0,
                ok: values.len() as u64,
                errors: 0,
                p50_us: h.value_at_quantile(0.5),
                p99_us: h.value_at_quantile(0.99),
            }],
            generator: GeneratorUsage {
                user_s: 0.5,
                system_s: 0.1,
                threads: 2,
                cpu_share: 0.15,
                waited_s: 0.0,
                wait_share: 0.0,
            },
            saturated: None,
            target_rate: None,
            achieved_rate: values.len() as f64 / 2.0,
            schedule: None,
            was_cancelled: false,
            per_request: vec![RequestFigures {
                ok: values.len() as u64,
                errors: 0,
                latency: h,
            }],
            connect: crate::load::ConnectStats {
                wanted: 4,
                opened: 4,
                failed: 0,
                seconds: 0.002,
                rate_limit: 2000.0,
            },
            generator_memory: crate::load::GeneratorMemory {
                rss_before_bytes: 5 << 20,
                rss_bytes: 6 << 20,
                peak_rss_bytes: 7 << 20,
            },
            ramp: None,
            wrong_answer: None,
            transport: None,
        }
    }

    /// Three hosts' values, each through the wire (HdrHistogram log) and
    /// merged, give the percentiles of one histogram of all values.
    #[test]
    fn merged_percentiles_equal_one_histogram_of_every_value() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        let hosts: Vec<Vec<u64>> = (0..3)
            .map(|i| {
                (0..5_000)
                    .map(|_| rng.random_range(50..(2_000 * (i + 1))))
                    .collect()
            })
            .collect();
        let mut all = histogram();
        for v in hosts.iter().flatten() {
            all.record(*v).unwrap();
        }
        let over_the_wire: Vec<LoadReport> = hosts
            .iter()
            .map(|v| {
                let wire = WireLoadReport::of(&report(v)).unwrap();
                let text = serde_json::to_string(&wire).unwrap();
                serde_json::from_str::<WireLoadReport>(&text)
                    .unwrap()
                    .into_report()
                    .unwrap()
            })
            .collect();
        let merged = merge(&over_the_wire).unwrap();
        assert_eq!(merged.latency.len(), 15_000);
        for q in [0.5, 0.9, 0.99, 0.999, 1.0] {
            assert_eq!(
                merged.latency.value_at_quantile(q),
                all.value_at_quantile(q),
                "q {q}"
            );
        }
        assert_eq!(merged.latency, all);
        assert_eq!(merged.per_request[0].latency, all);
        assert_eq!(merged.ok, 15_000);
        assert_eq!(merged.in_flight, 3);
        assert_eq!(merged.timeline[0].ok, 15_000);
        assert_eq!(merged.generator.threads, 6);
        assert!((merged.generator.user_s - 1.5).abs() < 1e-12);
        assert_eq!(merged.generator.cpu_share, 0.15);
    }

    /// A host's wrong answer crosses the pipe and survives the merge.
    #[test]
    fn a_hosts_wrong_answer_is_kept() {
        let wrong = crate::load::http::expect::WrongAnswer {
            request: "page".into(),
            mismatch: crate::load::http::expect::Mismatch::TooShort { got: 3, min: 9 },
            status: 200,
            body_len: 3,
            body_start: "abc".into(),
        };
        let mut second = report(&[1, 2]);
        second.wrong_answer = Some(wrong.clone());
        let text = serde_json::to_string(&WireLoadReport::of(&second).unwrap()).unwrap();
        let second = serde_json::from_str::<WireLoadReport>(&text)
            .unwrap()
            .into_report()
            .unwrap();
        let merged = merge(&[report(&[1]), second]).unwrap();
        assert_eq!(merged.wrong_answer, Some(wrong));
    }

    /// Two hosts' TLS runs through the wire: handshakes add up, the
    /// session's parameters and the lowest stream limit are kept.
    #[test]
    fn the_hosts_handshakes_add_up() {
        use crate::load::{H2Report, Negotiated, TlsReport, TransportReport};
        let host = |full, resumed, limit, negotiated: Option<Negotiated>| {
            let mut r = report(&[1]);
            r.transport = Some(TransportReport {
                protocol: "h2".into(),
                connection_reuse: "keep-alive".into(),
                tls: Some(TlsReport {
                    negotiated,
                    server_name: "10.0.0.1".into(),
                    certificate_verified: true,
                    handshakes_full: full,
                    handshakes_resumed: resumed,
                }),
                h2: Some(H2Report {
                    streams_per_connection: 2,
                    client_initial_stream_window: 1 << 20,
                    client_initial_connection_window: 16 << 20,
                    server_max_concurrent_streams: limit,
                }),
                warning: None,
            });
            let text = serde_json::to_string(&WireLoadReport::of(&r).unwrap()).unwrap();
            serde_json::from_str::<WireLoadReport>(&text)
                .unwrap()
                .into_report()
                .unwrap()
        };
        let tls13 = Negotiated {
            version: "TLS 1.3".into(),
            cipher_suite: "TLS13_AES_128_GCM_SHA256".into(),
            alpn: Some("h2".into()),
            key_exchange: Some("X25519".into()),
        };
        let merged = merge(&[
            host(3, 1, None, None),
            host(4, 2, Some(100), Some(tls13.clone())),
            host(5, 0, Some(50), Some(tls13.clone())),
        ])
        .unwrap();
        let t = merged.transport.unwrap();
        let tls = t.tls.unwrap();
        assert_eq!((tls.handshakes_full, tls.handshakes_resumed), (12, 3));
        assert_eq!(tls.negotiated, Some(tls13));
        assert_eq!(t.h2.unwrap().server_max_concurrent_streams, Some(50));
    }

    #[test]
    fn nothing_to_merge_is_an_error() {
        assert!(matches!(merge(&[]), Err(MergeError::Empty)));
    }
}
