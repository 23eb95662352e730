//! The load generator's library API against real servers on 127.0.0.1.

mod load_support;

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use load_support::{Behavior, RefusedPort, TestServer};
use runner::load::{ErrorCounts, LoadControl, RequestSpec, StopCondition, probe, run};

use load_support::runs::{self, config};

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
    // A 10 ms server cannot be asked faster than 200/s per connection (2%:
    // the requests in flight at the window's edges). How close to 200/s a
    // host gets is its own speed: scripts/bench-timing.sh prints it.
    assert!(
        got <= expected * 1.02,
        "{got} requests, at most ~{expected} from a 10 ms server; mean latency {mean_ms:.2} ms"
    );
    assert_eq!(r.errors.total(), 0);
    assert!(
        (r.elapsed.as_secs_f64() - 2.0).abs() < 0.05,
        "{:?}",
        r.elapsed
    );
    // Never under the server's own 10 ms (the excess is scheduling delay,
    // printed by scripts/bench-timing.sh).
    let p50 = r.latency.value_at_quantile(0.5);
    assert!(p50 >= 10_000, "p50 {p50} us");
    assert_eq!(r.timeline.len(), 2);
    assert!(r.timeline.iter().all(|s| s.ok > 0 && s.p50_us >= 10_000));
    assert_eq!(r.target_rate, None);
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

/// The schedule the generator made is exact and its report honest; how much
/// of it the kernel delivered on time (the rate within 1%, the corrected p50
/// under tokio's 1 ms tick) is the host's speed, printed by
/// scripts/bench-timing.sh.
#[test]
fn open_loop_schedules_the_rate_exactly_and_reports_any_shortfall() {
    let _turn = timing_lock();
    let server = TestServer::start(Behavior::Ok);
    let c = runs::open_loop_2000(server.addr);
    let r = run(&c, &LoadControl::new()).unwrap();
    assert_eq!(r.target_rate, Some(2000.0));
    assert_open_loop_honest(&r, 4000, 10);
    // Open-loop latency counts from the intended send: a local server's
    // answer cannot make it negative, and every success is in it.
    assert_eq!(r.latency.len(), r.ok);
}

/// A linear ramp from 0 to 1000/s over 1 s schedules exactly 500: the
/// schedule is asserted; the share delivered is printed by
/// scripts/bench-timing.sh.
#[test]
fn ramp_schedules_half_the_full_rate_count_during_the_ramp() {
    let _turn = timing_lock();
    let server = TestServer::start(Behavior::Ok);
    let r = run(&runs::ramp_1000(server.addr), &LoadControl::new()).unwrap();
    assert_open_loop_honest(&r, 500, 4);
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
    // A run that kept retrying its connects past the window's end would
    // never return: ten windows tell ending from not ending whatever the
    // host's speed (the lag after the end is not the claim).
    assert!(
        start.elapsed() < Duration::from_secs(5),
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
    let mut c = config(server.addr, 8, StopCondition::Requests(8));
    c.timeout = Duration::from_millis(300);
    let start = Instant::now();
    let r = run(&c, &LoadControl::new()).unwrap();
    assert_eq!(r.errors, errors_only(|e| e.request_timeout = 8));
    // Eight connections, one timeout each: 0.3 s side by side, 2.4 s if the
    // connections waited for each other; 1.2 s (4x the one, half the other)
    // tells them apart without measuring the host.
    assert!(
        start.elapsed() < Duration::from_millis(1200),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn timeouts_count_at_the_timeout_in_their_own_percentiles_and_the_open_ones_are_in_flight() {
    let server = TestServer::start(Behavior::NeverAnswer);
    // Stopped by count, the timeouts are exact however late the timers
    // fire: two connections, two requests each, each given up after 300 ms.
    let mut c = config(server.addr, 2, StopCondition::Requests(4));
    c.timeout = Duration::from_millis(300);
    let control = LoadControl::new();
    // A generator that never gave up would never stop: cancelled after
    // 20 s, it fails below (was_cancelled) instead of hanging the suite.
    let watchdog = control.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(20));
        watchdog.cancel();
    });
    let r = run(&c, &control).unwrap();
    assert!(!r.was_cancelled, "the requests never timed out");
    assert_eq!(r.errors.request_timeout, 4, "{:?}", r.errors);
    assert_eq!(r.errors.total(), 4, "{:?}", r.errors);
    assert_eq!(r.latency.len(), 0, "no success, no success latency");
    assert_eq!(r.latency_with_timeouts.len(), 4);
    // A timeout's latency is when it was given up: never before 300 ms.
    let min = r.latency_with_timeouts.min();
    assert!(min >= 300_000, "{min} us");
    assert_eq!(r.in_flight, 0);

    // Stopped by time, each connection has a request out when the window
    // closes, whether its timer fired on time or late; the timeouts that
    // fell inside it are the only errors.
    let mut c = config(
        server.addr,
        2,
        StopCondition::Duration(Duration::from_millis(700)),
    );
    c.timeout = Duration::from_millis(300);
    let r = run(&c, &LoadControl::new()).unwrap();
    assert_eq!(r.in_flight, 2);
    assert_eq!(r.errors.total(), r.errors.request_timeout, "{:?}", r.errors);
    assert_eq!(r.latency_with_timeouts.len(), r.errors.request_timeout);
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
    let start = Instant::now();
    let (r, _) = runs::cancelled_at(server.addr, Duration::from_millis(200));
    assert!(r.was_cancelled);
    // The run was asked for 30 s; cancelled at 0.2 s it ends then. Half
    // the 30 s tells a cancelled run from one that ran its course without
    // measuring the host (how soon after the cancel is printed by
    // scripts/bench-timing.sh).
    assert!(
        start.elapsed() < Duration::from_secs(15),
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
    let r = run(&c, &control).unwrap();
    let after = Instant::now();
    let at = control
        .window_start()
        .expect("published without a ramp too");
    // 50 requests on 4 connections, 2 ms each, take at least 13 rounds: a
    // start published at the run's end (or anywhere but its start) would
    // leave no room for that window before the return.
    assert!(r.elapsed >= Duration::from_millis(26), "{:?}", r.elapsed);
    assert!(at >= before, "published before the call");
    assert!(
        at + r.elapsed <= after,
        "window {:?} from {:?} after the call does not fit before its return at {:?}",
        r.elapsed,
        at - before,
        after - before
    );
}
