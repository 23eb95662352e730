//! The gates a measured cell passes before it is `ok`: error rate, the
//! generator held back by the host, the Nagle latency floor, Little's law.
//! Each is a pure function of [`CellFacts`] and the run's [`Gates`], giving
//! the verdict it calls for with the reason written into the cell row.
use crate::exec::rules::facts::{CellFacts, GeneratorHost};
use crate::load::ErrorCounts;
use crate::results::CellStatus;

/// What one gate found.
#[derive(Debug, Clone, PartialEq)]
pub struct GateFinding {
    pub status: CellStatus,
    pub reason: String,
}

fn suspect(reason: String) -> Option<GateFinding> {
    Some(GateFinding {
        status: CellStatus::Suspect,
        reason,
    })
}

/// Every gate's finding, in a fixed order.
pub fn findings(f: &CellFacts) -> Vec<GateFinding> {
    [
        error_rate(f),
        generator_wait(f),
        latency_floor(f),
        littles_law(f),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p >= 10.0 || p == 0.0 {
        format!("{p:.0}%")
    } else if p >= 1.0 {
        format!("{p:.1}%")
    } else {
        format!("{p:.2}%")
    }
}

/// `failed` above `errors_failed`, `suspect` above `errors_suspect`, of all answers.
pub fn error_rate(f: &CellFacts) -> Option<GateFinding> {
    let answered = f.successes + f.errors;
    if f.errors == 0 || answered == 0 {
        return None;
    }
    let rate = f.errors as f64 / answered as f64;
    let what = |limit: f64| {
        format!(
            "{} of {answered} requests failed ({}; limit {}): {}",
            f.errors,
            percent(rate),
            percent(limit),
            f.error_classes
        )
    };
    if let Some(limit) = f.gates.errors_failed
        && rate > limit
    {
        return Some(GateFinding {
            status: CellStatus::Failed,
            reason: format!("errors: {}", what(limit)),
        });
    }
    match f.gates.errors_suspect {
        Some(limit) if rate > limit => suspect(format!("errors: {}", what(limit))),
        _ => None,
    }
}

/// The error classes of a cell in words: `status 500: 617, reset: 3`.
pub fn describe_errors(e: &ErrorCounts) -> String {
    let mut parts = Vec::new();
    for (name, n) in [
        ("connect refused", e.connect_refused),
        ("connect timeout", e.connect_timeout),
        ("request timeout", e.request_timeout),
        ("reset", e.reset),
    ] {
        if n > 0 {
            parts.push(format!("{name}: {n}"));
        }
    }
    for (code, n) in &e.status {
        parts.push(format!("status {code}: {n}"));
    }
    for (name, n) in [("malformed", e.malformed), ("other", e.other)] {
        if n > 0 {
            parts.push(format!("{name}: {n}"));
        }
    }
    parts.join(", ")
}

/// CPUs taken by processes other than service and generator above which the
/// generator-wait reason names them: the host was shared.
pub const OTHERS_NAMED_CPUS: f64 = 0.25;

/// The generator's threads waited for a CPU more than `generator_wait` of the window.
pub fn generator_wait(f: &CellFacts) -> Option<GateFinding> {
    let limit = f.gates.generator_wait?;
    // When service and generator leave CPUs unused yet the generator waited,
    // something else on the host took them: the idle share says so.
    let idle = f.host_idle_share.map_or(String::new(), |idle| {
        let others = (1.0 - idle) * f.host_cpus as f64 - f.host_cpus_used;
        if others >= OTHERS_NAMED_CPUS {
            format!(
                "; host idle {}: other processes used {others:.2} CPUs",
                percent(idle)
            )
        } else {
            format!("; host idle {}", percent(idle))
        }
    });
    if f.gen_wait_share <= limit {
        return None;
    }
    let waited = percent(f.gen_wait_share);
    let reason = match &f.generator_host {
        GeneratorHost::Unnamed => format!(
            "the generator waited for CPU {waited} of the window (service + generator used {:.2} of {} CPUs{idle})",
            f.host_cpus_used, f.host_cpus
        ),
        // The service and the host counters are another machine's: they
        // say nothing about this host's CPUs.
        GeneratorHost::Here => format!(
            "the generator on this host (local) waited for CPU {waited} of the window \
             (the service runs on the service host{})",
            f.host_idle_share.map_or(String::new(), |idle| format!(
                ", which was idle {}",
                percent(idle)
            ))
        ),
        GeneratorHost::Remote(host) => format!(
            "the generator on load host {host} waited for CPU {waited} of the window \
             (that host's own figures are in load-hosts/<cell>.csv)"
        ),
    };
    Some(GateFinding {
        status: CellStatus::Suspect,
        reason,
    })
}

/// A p50, or at least [`DENSE_BAND`] of the answers, inside the floor band
/// while the service was nearly idle: it waited, it did not work.
pub fn latency_floor(f: &CellFacts) -> Option<GateFinding> {
    let floor = f.gates.latency_floor?;
    let service_cpus = f.service_cpus?;
    let (from, to) = (ms(floor.from), ms(floor.to));
    let p50_in_band = (from..=to).contains(&f.p50_ms);
    let dense = f.floor_band_share >= DENSE_BAND;
    if !(p50_in_band || dense) || service_cpus >= floor.max_service_cpus {
        return None;
    }
    let at = if p50_in_band {
        format!("p50 {:.1} ms", f.p50_ms)
    } else {
        format!(
            "{} of the answers between {from:.0} and {to:.0} ms",
            percent(f.floor_band_share)
        )
    };
    suspect(format!(
        "latency floor at ~40 ms, typical of Nagle's algorithm with delayed ACK; does the service set TCP_NODELAY? \
         ({at} while the service used {service_cpus:.3} of a CPU)"
    ))
}

/// Share of the answers in the floor band that makes it a dense mode.
pub const DENSE_BAND: f64 = 0.25;

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Closed loop: the requests kept in flight (connections, times the
/// streams of each with HTTP/2) should equal throughput x mean latency; a
/// larger gap is time the requests spent inside the generator (or not sent).
pub fn littles_law(f: &CellFacts) -> Option<GateFinding> {
    let limit = f.gates.littles_law?;
    let connections = f.closed_connections?;
    let kept = f64::from(connections) * f64::from(f.streams.max(1));
    if kept <= 0.0 || f.answered_rps <= 0.0 {
        return None;
    }
    let in_flight = f.answered_rps * f.mean_latency_ms / 1000.0;
    let gap = (kept - in_flight).abs() / kept;
    let kept_words = match f.streams {
        0 | 1 => format!("{connections} connections"),
        s => format!("{connections} connections x {s} streams"),
    };
    (gap > limit).then(|| GateFinding {
        status: CellStatus::Suspect,
        reason: format!(
            "Little's law: {kept_words} but throughput x mean latency = {:.0} req/s x {:.2} ms = {in_flight:.2} in flight ({} apart, limit {}): time went by inside the generator",
            f.answered_rps,
            f.mean_latency_ms,
            percent(gap),
            percent(limit)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::contract::gates::Gates;

    fn facts() -> CellFacts<'static> {
        CellFacts {
            successes: 10_000,
            gen_cpu_share: 0.3,
            gates: Gates::default(),
            host_cpus: 2,
            p50_ms: 1.0,
            mean_latency_ms: 1.0,
            answered_rps: 2000.0,
            closed_connections: Some(2),
            service_cpus: Some(0.8),
            ..Default::default()
        }
    }

    #[test]
    fn a_healthy_cell_passes_every_gate() {
        assert_eq!(findings(&facts()), []);
    }

    #[test]
    fn half_the_requests_failing_fails_the_cell_naming_the_class() {
        let f = CellFacts {
            successes: 500,
            errors: 500,
            error_classes: "status 500: 500".into(),
            ..facts()
        };
        let g = error_rate(&f).unwrap();
        assert_eq!(g.status, CellStatus::Failed);
        assert_eq!(
            g.reason,
            "errors: 500 of 1000 requests failed (50%; limit 5.0%): status 500: 500"
        );
    }

    #[test]
    fn one_percent_errors_is_suspect_a_tenth_of_a_percent_is_not() {
        let f = CellFacts {
            successes: 990,
            errors: 10,
            error_classes: "reset: 10".into(),
            ..facts()
        };
        assert_eq!(error_rate(&f).unwrap().status, CellStatus::Suspect);
        let f = CellFacts {
            successes: 9990,
            errors: 10,
            ..facts()
        };
        assert_eq!(error_rate(&f), None);
        let off = CellFacts {
            successes: 990,
            errors: 10,
            gates: Gates {
                errors_suspect: None,
                ..Gates::default()
            },
            ..facts()
        };
        assert_eq!(error_rate(&off), None);
    }

    #[test]
    fn errors_are_named_by_class() {
        let mut e = ErrorCounts {
            reset: 3,
            malformed: 1,
            ..Default::default()
        };
        e.status.insert(500, 617);
        e.status.insert(503, 2);
        assert_eq!(
            describe_errors(&e),
            "reset: 3, status 500: 617, status 503: 2, malformed: 1"
        );
    }

    #[test]
    fn a_waiting_generator_names_its_host_when_hosts_are_declared() {
        let remote = CellFacts {
            gen_wait_share: 0.14,
            host_cpus_used: 1.97,
            generator_host: GeneratorHost::Remote("root@10.213.0.11".into()),
            ..facts()
        };
        assert_eq!(
            generator_wait(&remote).unwrap().reason,
            "the generator on load host root@10.213.0.11 waited for CPU 14% of the window \
             (that host's own figures are in load-hosts/<cell>.csv)"
        );
        let here = CellFacts {
            host_idle_share: Some(0.02),
            generator_host: GeneratorHost::Here,
            ..remote
        };
        assert_eq!(
            generator_wait(&here).unwrap().reason,
            "the generator on this host (local) waited for CPU 14% of the window \
             (the service runs on the service host, which was idle 2.0%)"
        );
    }

    #[test]
    fn a_waiting_generator_is_suspect_with_the_host_figures() {
        let f = CellFacts {
            gen_wait_share: 0.14,
            host_cpus_used: 1.97,
            ..facts()
        };
        assert_eq!(
            generator_wait(&f).unwrap().reason,
            "the generator waited for CPU 14% of the window (service + generator used 1.97 of 2 CPUs)"
        );
        let shared = CellFacts {
            gen_wait_share: 0.14,
            host_cpus_used: 0.96,
            host_idle_share: Some(0.02),
            ..facts()
        };
        assert_eq!(
            generator_wait(&shared).unwrap().reason,
            "the generator waited for CPU 14% of the window (service + generator used 0.96 of 2 CPUs; host idle 2.0%: other processes used 1.00 CPUs)"
        );
        let ours = CellFacts {
            host_cpus_used: 1.9,
            ..shared
        };
        assert_eq!(
            generator_wait(&ours).unwrap().reason,
            "the generator waited for CPU 14% of the window (service + generator used 1.90 of 2 CPUs; host idle 2.0%)",
            "nothing else to name when service and generator used the rest"
        );
        let f = CellFacts {
            gen_wait_share: 0.09,
            ..facts()
        };
        assert_eq!(generator_wait(&f), None);
    }

    #[test]
    fn a_40_ms_p50_from_an_idle_service_is_the_nagle_floor() {
        let f = CellFacts {
            p50_ms: 44.0,
            mean_latency_ms: 44.0,
            answered_rps: 45.0,
            service_cpus: Some(0.02),
            ..facts()
        };
        let g = latency_floor(&f).unwrap();
        assert!(g.reason.starts_with("latency floor at ~40 ms, typical of Nagle's algorithm with delayed ACK; does the service set TCP_NODELAY?"), "{}", g.reason);
        assert!(g.reason.contains("p50 44.0 ms"), "{}", g.reason);
        // A busy service at 44 ms is queueing, not waiting on ACKs.
        let busy = CellFacts {
            service_cpus: Some(1.6),
            ..f.clone()
        };
        assert_eq!(latency_floor(&busy), None);
        // Outside the band: no floor.
        let fast = CellFacts {
            p50_ms: 20.0,
            ..f.clone()
        };
        assert_eq!(latency_floor(&fast), None);
        // A dense band with the median elsewhere still counts.
        let dense = CellFacts {
            floor_band_share: 0.3,
            ..fast
        };
        assert!(
            latency_floor(&dense)
                .unwrap()
                .reason
                .contains("30% of the answers between 36 and 48 ms")
        );
        // Without the service's CPU the gate cannot tell waiting from working.
        let unknown = CellFacts {
            service_cpus: None,
            ..f
        };
        assert_eq!(latency_floor(&unknown), None);
    }

    #[test]
    fn littles_law_gap_above_ten_percent_is_suspect_naming_both_figures() {
        // 12 connections, but 1000 req/s x 8 ms = 8 in flight.
        let f = CellFacts {
            closed_connections: Some(12),
            answered_rps: 1000.0,
            mean_latency_ms: 8.0,
            ..facts()
        };
        let reason = littles_law(&f).unwrap().reason;
        assert!(reason.contains("12 connections"), "{reason}");
        assert!(
            reason.contains("= 8.00 in flight (33% apart, limit 10%)"),
            "{reason}"
        );
        let close = CellFacts {
            mean_latency_ms: 11.0,
            ..f.clone()
        };
        assert_eq!(littles_law(&close), None);
        let open = CellFacts {
            closed_connections: None,
            ..f
        };
        assert_eq!(littles_law(&open), None);
    }

    #[test]
    fn littles_law_counts_every_http2_stream_in_flight() {
        // 4 connections x 4 streams: 16 in flight, as 2000 req/s x 8 ms.
        let f = CellFacts {
            closed_connections: Some(4),
            streams: 4,
            answered_rps: 2000.0,
            mean_latency_ms: 8.0,
            ..facts()
        };
        assert!(littles_law(&f).is_none());
        let one_stream = CellFacts { streams: 1, ..f };
        let reason = littles_law(&one_stream).unwrap().reason;
        assert!(reason.contains("4 connections but"), "{reason}");
    }
}
