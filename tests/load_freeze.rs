//! Why the open loop exists: a server that freezes for 1 s every 5 s,
//! driven at a constant 2000 req/s. Requests that arrive during a freeze
//! wait for its end, so 20% of them wait between 0 and 1 s: the truth is
//! p90 = 500 ms, p99 = 950 ms, p99.9 = 995 ms. The open loop, measuring from
//! each request's intended send time, must report that; a closed loop on the
//! same server sends almost nothing during the freeze and under-reports.
//! (~16 s: the only long test of the load generator.)

mod load_support;

use std::time::Duration;

use load_support::{Behavior, TestServer};
use runner::load::{Arrival, LoadConfig, LoadControl, RequestSpec, StopCondition, run};

fn within(actual_us: u64, expected_ms: f64, tolerance: f64) -> bool {
    let actual_ms = actual_us as f64 / 1000.0;
    (actual_ms - expected_ms).abs() <= expected_ms * tolerance
}

#[test]
fn open_loop_reports_the_true_tail_of_a_freezing_server_and_closed_loop_does_not() {
    // Freezes at [2 s, 3 s) and [7 s, 8 s) of every 10 s from server start, so the
    // open-loop window (0.5 s .. 10.5 s) holds two whole freezes (20% of its time)
    // and the closed-loop window after it (11 s .. 16 s) holds the one at 12 s.
    let server = TestServer::start(Behavior::Freeze {
        period: Duration::from_secs(5),
        freeze: Duration::from_secs(1),
        offset: Duration::from_secs(2),
    });
    let mut open = LoadConfig::closed(server.addr, RequestSpec::get("/"), 40);
    open.arrival = Arrival::Open {
        rate: 2000.0,
        connections: 40,
        ramp: None,
    };
    open.warmup = Duration::from_millis(500);
    open.stop = StopCondition::Duration(Duration::from_secs(10));
    let r = run(&open, &LoadControl::new()).unwrap();
    let q = |h: &hdrhistogram::Histogram<u64>, p: f64| h.value_at_quantile(p);
    let (p90, p99, p999) = (
        q(&r.latency, 0.90),
        q(&r.latency, 0.99),
        q(&r.latency, 0.999),
    );
    eprintln!(
        "open loop: {} requests, corrected p50 {} p90 {p90} p99 {p99} p99.9 {p999} us; uncorrected p99 {} us",
        r.requests,
        q(&r.latency, 0.5),
        q(&r.service_time, 0.99)
    );
    assert_eq!(r.errors.total(), 0, "{:?}", r.errors);
    assert!(
        r.requests.abs_diff(20_000) <= 200,
        "{} requests",
        r.requests
    );
    assert!(
        within(p90, 500.0, 0.10),
        "corrected p90 {p90} us, truth 500 ms"
    );
    assert!(
        within(p99, 950.0, 0.10),
        "corrected p99 {p99} us, truth 950 ms"
    );
    assert!(
        within(p999, 995.0, 0.10),
        "corrected p99.9 {p999} us, truth 995 ms"
    );
    // Only the 40 requests per freeze already sent when it began wait long
    // from their actual send: 80 of 20000 (0.4%) is below the 1% of p99.
    let service_p99 = q(&r.service_time, 0.99);
    assert!(
        service_p99 < 20_000,
        "uncorrected p99 {service_p99} us should stay small"
    );
    // The timeline shows the freezes: seconds with a p99 near the full second.
    assert!(
        r.timeline.iter().filter(|s| s.p99_us > 800_000).count() >= 2,
        "{:?}",
        r.timeline
    );

    let mut closed = LoadConfig::closed(server.addr, RequestSpec::get("/"), 40);
    closed.warmup = Duration::from_millis(500);
    closed.stop = StopCondition::Duration(Duration::from_secs(5));
    let c = run(&closed, &LoadControl::new()).unwrap();
    let closed_p99 = q(&c.latency, 0.99);
    eprintln!(
        "closed loop: {} requests, p99 {closed_p99} us, max {} us",
        c.requests,
        c.latency.max()
    );
    // It did see the freeze (its slowest request waited most of a second) ...
    assert!(c.latency.max() > 500_000, "max {} us", c.latency.max());
    // ... but with 40 connections stuck on 40 requests while the server was
    // frozen, thousands of fast requests before and after drown them: the
    // reported p99 is off from the truth by more than a factor of ten.
    assert!(closed_p99 < 95_000, "closed-loop p99 {closed_p99} us");
}
