//! The load generator's library API against real servers on 127.0.0.1.

mod load_support;

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use load_support::{Behavior, RefusedPort, TestServer};
use runner::load::{
    Arrival, ErrorCounts, LoadConfig, LoadControl, RequestSpec, StopCondition, probe, run,
};

fn config(server: std::net::SocketAddr, connections: usize, stop: StopCondition) -> LoadConfig {
    let mut c = LoadConfig::closed(server, RequestSpec::get("/"), connections);
    c.stop = stop;
    c
}

/// Tests that check timing take turns: on a 2-core machine they would
/// otherwise measure each other's CPU use as much as the generator.
static TIMING: Mutex<()> = Mutex::new(());

fn timing_lock() -> MutexGuard<'static, ()> {
    TIMING.lock().unwrap_or_else(|e| e.into_inner())
}

fn errors_only(f: impl FnOnce(&mut ErrorCounts)) -> ErrorCounts {
    let mut e = ErrorCounts::default();
    f(&mut e);
    e
}

#[test]
fn closed_loop_against_a_10ms_server_sends_one_request_per_10ms_per_connection() {
    let _turn = timing_lock();
    let server = TestServer::start(Behavior::Delay(Duration::from_millis(10)));
    let connections = 8;
    let mut c = config(
        server.addr,
        connections,
        StopCondition::Duration(Duration::from_secs(2)),
    );
    c.warmup = Duration::from_millis(200);
    let r = run(&c, &LoadControl::new()).unwrap();
    let expected = connections as f64 * 200.0;
    let got = r.ok as f64;
    let mean_ms = r.latency.mean() / 1000.0;
    // The closed-loop invariant, whatever the machine's load: N requests always
    // in flight, so count = N * window / mean latency (within 3%).
    let invariant = connections as f64 * 2000.0 / mean_ms;
    assert!(
        (got - invariant).abs() <= invariant * 0.03,
        "{got} requests, mean latency {mean_ms:.2} ms"
    );
    // The check against the nominal 10 ms (each exchange also pays the
    // wake-ups of server and generator, so slightly fewer than 200/s).
    assert!(
        got <= expected * 1.02 && got >= expected * 0.90,
        "{got} requests, expected ~{expected}; mean latency {mean_ms:.2} ms from a 10 ms server: \
         the excess is scheduling delay (load average {})",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    assert_eq!(r.errors.total(), 0);
    assert!(
        (r.elapsed.as_secs_f64() - 2.0).abs() < 0.05,
        "{:?}",
        r.elapsed
    );
    let p50 = r.latency.value_at_quantile(0.5);
    assert!((10_000..12_000).contains(&p50), "p50 {p50} us");
    assert_eq!(r.timeline.len(), 2);
    assert!(r.timeline.iter().all(|s| s.ok > 0 && s.p50_us >= 10_000));
    assert_eq!(r.target_rate, None);
}

/// Runs a timing claim up to three times and passes on the first attempt
/// that meets it. On a shared 2-core host another tenant can take the CPU for
/// a whole second, and the generator then honestly reports that it fell behind
/// (the invariants each attempt asserts); the claim itself (the rate delivered,
/// timer lag under a millisecond) must still hold in one of three attempts.
fn in_one_of_three(mut attempt: impl FnMut() -> Result<(), String>) {
    let mut failures = Vec::new();
    for _ in 0..3 {
        match attempt() {
            Ok(()) => return,
            Err(why) => failures.push(why),
        }
    }
    panic!(
        "no attempt met the claim (load average {}):\n{}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim(),
        failures.join("\n")
    );
}

/// The open-loop invariants that hold whatever the machine's load: the
/// schedule is exact, nothing fails against a healthy server, every answer
/// was sent, and a shortfall past the 1% criterion is reported as saturation.
fn assert_open_loop_honest(r: &runner::load::LoadReport, scheduled: u64, connections: u64) {
    let s = r.schedule.clone().unwrap();
    assert_eq!(s.scheduled, scheduled);
    assert_eq!(r.errors.total(), 0);
    // At most one answer per connection may still be in flight at the end.
    assert!(
        r.ok <= s.sent && r.ok + connections >= s.sent,
        "{} of {s:?}",
        r.ok
    );
    let short = s.scheduled.saturating_sub(s.sent) * 100 > s.scheduled;
    let said_short = r
        .saturated
        .as_deref()
        .is_some_and(|why| why.contains("open loop fell behind"));
    assert_eq!(short, said_short, "{s:?}: {:?}", r.saturated);
}

#[test]
fn open_loop_delivers_the_rate_with_sub_millisecond_timer_lag() {
    let _turn = timing_lock();
    let server = TestServer::start(Behavior::Ok);
    let mut c = config(
        server.addr,
        10,
        StopCondition::Duration(Duration::from_secs(2)),
    );
    c.arrival = Arrival::Open {
        rate: 2000.0,
        connections: 10,
        ramp: None,
    };
    c.warmup = Duration::from_millis(300);
    in_one_of_three(|| {
        let r = run(&c, &LoadControl::new()).unwrap();
        assert_eq!(r.target_rate, Some(2000.0));
        assert_open_loop_honest(&r, 4000, 10);
        let s = r.schedule.clone().unwrap();
        // A local server answers in well under a millisecond; the corrected
        // p50 includes timer lag, which must stay well under tokio's 1 ms tick.
        let p50 = r.latency.value_at_quantile(0.5);
        if s.sent.abs_diff(4000) <= 40 && p50 < 600 && r.saturated.is_none() {
            Ok(())
        } else {
            Err(format!(
                "{s:?}, corrected p50 {p50} us, saturated {:?}",
                r.saturated
            ))
        }
    });
}

#[test]
fn ramp_sends_half_the_full_rate_count_during_the_ramp() {
    let _turn = timing_lock();
    let server = TestServer::start(Behavior::Ok);
    let mut c = config(
        server.addr,
        4,
        StopCondition::Duration(Duration::from_secs(1)),
    );
    c.arrival = Arrival::Open {
        rate: 1000.0,
        connections: 4,
        ramp: Some(Duration::from_secs(1)),
    };
    in_one_of_three(|| {
        let r = run(&c, &LoadControl::new()).unwrap();
        // A linear ramp from 0 to 1000/s over 1 s schedules exactly 500.
        assert_open_loop_honest(&r, 500, 4);
        let s = r.schedule.clone().unwrap();
        if s.sent.abs_diff(500) <= 5 {
            Ok(())
        } else {
            Err(format!("{s:?}"))
        }
    });
}

#[test]
fn request_count_stop_is_exact() {
    let server = TestServer::start(Behavior::Ok);
    let c = config(server.addr, 7, StopCondition::Requests(1234));
    let r = run(&c, &LoadControl::new()).unwrap();
    assert_eq!(r.ok, 1234);
    assert_eq!(
        server.requests.load(std::sync::atomic::Ordering::Relaxed),
        1234
    );
}

#[test]
fn refused_connections_are_counted_exactly() {
    let dead = RefusedPort::new();
    let c = config(dead.addr, 2, StopCondition::Requests(5));
    let r = run(&c, &LoadControl::new()).unwrap();
    assert_eq!(r.ok, 0);
    assert_eq!(r.errors, errors_only(|e| e.connect_refused = 5));
}

#[test]
fn a_dead_server_run_ends_on_time() {
    let _turn = timing_lock();
    let dead = RefusedPort::new();
    let c = config(
        dead.addr,
        4,
        StopCondition::Duration(Duration::from_millis(500)),
    );
    let start = Instant::now();
    let r = run(&c, &LoadControl::new()).unwrap();
    // Generous for a loaded CI machine; a run that retried connects past its
    // end would take far longer.
    assert!(
        start.elapsed() < Duration::from_millis(1500),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(r.ok, 0);
    assert!(r.errors.connect_refused > 0);
    assert_eq!(r.errors.total(), r.errors.connect_refused);
}

#[test]
fn reset_mid_body_is_counted_exactly() {
    let server = TestServer::start(Behavior::ResetMidBody);
    let r = run(
        &config(server.addr, 2, StopCondition::Requests(6)),
        &LoadControl::new(),
    )
    .unwrap();
    assert_eq!(r.ok, 0);
    assert_eq!(r.errors, errors_only(|e| e.reset = 6));
}

#[test]
fn unexpected_status_is_counted_per_code() {
    let server = TestServer::start(Behavior::Status(500));
    let r = run(
        &config(server.addr, 3, StopCondition::Requests(50)),
        &LoadControl::new(),
    )
    .unwrap();
    assert_eq!(r.ok, 0);
    assert_eq!(r.errors, errors_only(|e| _ = e.status.insert(500, 50)));
    // Error answers keep the connection alive.
    assert_eq!(
        server
            .connections
            .load(std::sync::atomic::Ordering::Relaxed),
        3
    );
}

#[test]
fn a_server_that_never_answers_gives_timeouts() {
    let _turn = timing_lock();
    let server = TestServer::start(Behavior::NeverAnswer);
    let mut c = config(server.addr, 2, StopCondition::Requests(4));
    c.timeout = Duration::from_millis(400);
    let start = Instant::now();
    let r = run(&c, &LoadControl::new()).unwrap();
    assert_eq!(r.errors, errors_only(|e| e.request_timeout = 4));
    // Two connections, two timeouts each: 800 ms side by side, 1600 ms if the
    // connections waited for each other.
    assert!(
        start.elapsed() < Duration::from_millis(1300),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn timeouts_count_at_the_timeout_in_their_own_percentiles_and_the_open_ones_are_in_flight() {
    let server = TestServer::start(Behavior::NeverAnswer);
    let mut c = config(
        server.addr,
        2,
        StopCondition::Duration(Duration::from_millis(700)),
    );
    c.timeout = Duration::from_millis(300);
    let r = run(&c, &LoadControl::new()).unwrap();
    // Each connection times out at 300 and 600 ms (later on a busy host:
    // a timeout after 700 ms is not counted) and is waiting at 700 ms.
    let timeouts = r.errors.request_timeout;
    assert!((2..=4).contains(&timeouts), "{:?}", r.errors);
    assert_eq!(r.errors.total(), timeouts, "{:?}", r.errors);
    assert_eq!(r.latency.len(), 0, "no success, no success latency");
    assert_eq!(r.latency_with_timeouts.len(), timeouts);
    let p50 = r.latency_with_timeouts.value_at_quantile(0.5);
    assert!((300_000..700_000).contains(&p50), "{p50} us");
    // Whether its timer fired late or not, each connection had a request
    // out when the window closed.
    assert_eq!(r.in_flight, 2);
}

#[test]
fn chunked_connection_close_and_close_delimited_answers_succeed() {
    for (behavior, fresh_connection_each) in [
        (Behavior::Chunked, false),
        (Behavior::ConnectionClose, true),
        (Behavior::CloseDelimited, true),
    ] {
        let server = TestServer::start(behavior.clone());
        let r = run(
            &config(server.addr, 2, StopCondition::Requests(40)),
            &LoadControl::new(),
        )
        .unwrap();
        assert_eq!(r.ok, 40, "{behavior:?}: {:?}", r.errors);
        assert_eq!(r.errors.total(), 0, "{behavior:?}");
        let conns = server
            .connections
            .load(std::sync::atomic::Ordering::Relaxed);
        if fresh_connection_each {
            assert_eq!(conns, 40, "{behavior:?}");
        } else {
            assert_eq!(conns, 2, "{behavior:?}");
        }
    }
}

#[test]
fn cancel_returns_promptly() {
    let _turn = timing_lock();
    let server = TestServer::start(Behavior::NeverAnswer);
    let control = LoadControl::new();
    let c = config(
        server.addr,
        4,
        StopCondition::Duration(Duration::from_secs(30)),
    );
    let canceller = control.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        canceller.cancel();
    });
    let start = Instant::now();
    let r = run(&c, &control).unwrap();
    t.join().unwrap();
    assert!(r.was_cancelled);
    // The run was asked for 30 s; cancelled at 0.2 s it must end at once
    // (the bound leaves room for a loaded CI machine).
    assert!(
        start.elapsed() < Duration::from_millis(1500),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn probe_through_hyper_agrees_with_the_measured_loop() {
    for behavior in [
        Behavior::Ok,
        Behavior::Chunked,
        Behavior::ConnectionClose,
        Behavior::CloseDelimited,
    ] {
        let server = TestServer::start(behavior.clone());
        let (status, body) =
            probe(server.addr, &RequestSpec::get("/"), Duration::from_secs(2)).unwrap();
        assert_eq!(status, 200, "{behavior:?}");
        assert!(!body.is_empty(), "{behavior:?}");
        let r = run(
            &config(server.addr, 1, StopCondition::Requests(3)),
            &LoadControl::new(),
        )
        .unwrap();
        assert_eq!(r.ok, 3, "{behavior:?}");
    }
    let server = TestServer::start(Behavior::Status(500));
    let (status, body) =
        probe(server.addr, &RequestSpec::get("/"), Duration::from_secs(2)).unwrap();
    assert_eq!((status, &body[..]), (500, &b"oops"[..]));
    let dead = RefusedPort::new();
    let err = probe(dead.addr, &RequestSpec::get("/"), Duration::from_secs(1)).unwrap_err();
    assert!(err.to_string().contains("refused"), "{err}");
    let server = TestServer::start(Behavior::NeverAnswer);
    let err = probe(
        server.addr,
        &RequestSpec::get("/"),
        Duration::from_millis(100),
    )
    .unwrap_err();
    assert!(err.to_string().contains("within 100ms"), "{err}");
    let server = TestServer::start(Behavior::ResetMidBody);
    assert!(probe(server.addr, &RequestSpec::get("/"), Duration::from_secs(1)).is_err());
}

/// A caller reading the service's counters for the window reads them when
/// the window opens: the run publishes that instant, a ramp after its
/// start, before the first measured request (exec's sampler opens then).
#[test]
fn the_window_start_is_published_after_the_connection_ramp() {
    let server = TestServer::start(Behavior::Delay(Duration::from_millis(2)));
    let mut c = config(server.addr, 4, StopCondition::Requests(200));
    c.connection_ramp = Duration::from_millis(600);
    let control = LoadControl::new();
    assert_eq!(control.window_start(), None, "nothing before the run");
    let before = Instant::now();
    let r = run(&c, &control).unwrap();
    let after = Instant::now();
    let at = control
        .window_start()
        .expect("the run published its window start");
    assert!(
        at >= before + c.connection_ramp,
        "{:?} after the call",
        at - before
    );
    // The window (its elapsed) lies between the published start and the return.
    assert!(
        at + r.elapsed <= after,
        "window {:?} does not fit",
        r.elapsed
    );
    assert_eq!(r.ok, 200);

    // Without a ramp the window opens at the run's start.
    let mut c = config(server.addr, 4, StopCondition::Requests(50));
    c.connection_ramp = Duration::ZERO;
    let control = LoadControl::new();
    let before = Instant::now();
    run(&c, &control).unwrap();
    let at = control
        .window_start()
        .expect("published without a ramp too");
    assert!(
        at - before < Duration::from_millis(500),
        "{:?}",
        at - before
    );
}
