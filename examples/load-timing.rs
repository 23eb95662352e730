//! The load generator's timing figures on this host, printed, not judged
//! (run by scripts/bench-timing.sh). The tests assert what holds on any host
//! (the schedule is exact, the report honest, the truth's tail a lower
//! bound); how close to the nominal figures a host gets is its own speed,
//! and these are the figures the tests used to gate on:
//!
//!     load-timing [--runs N]
//!
//! Each figure is measured N times (default 3), interleaved scenario by
//! scenario, and printed with its min, median and max beside the target a
//! quiet host meets.
#[path = "../tests/load_support/mod.rs"]
mod load_support;
#[path = "../tests/load_support/tls.rs"]
mod tls_support;

use std::time::{Duration, Instant};

use load_support::{Behavior, RefusedPort, TestServer};
use runner::load::{LoadConfig, LoadControl, LoadReport, Protocol, StopCondition};

use load_support::runs::{self, config};

fn run(c: &LoadConfig) -> LoadReport {
    runner::load::run(c, &LoadControl::new()).expect("the load run")
}

/// One printed figure: its name, the target a quiet host meets, its values.
struct Figure {
    name: &'static str,
    target: &'static str,
    values: Vec<f64>,
}

fn closed_loop_10ms() -> Vec<f64> {
    let server = TestServer::start(Behavior::Delay(Duration::from_millis(10)));
    let mut c = config(
        server.addr,
        8,
        StopCondition::Duration(Duration::from_secs(2)),
    );
    c.warmup = Duration::from_millis(200);
    let r = run(&c);
    vec![
        r.ok as f64 / (8.0 * 200.0) * 100.0,
        r.latency.value_at_quantile(0.5) as f64 / 1000.0,
    ]
}

fn open_loop_2000() -> Vec<f64> {
    let server = TestServer::start(Behavior::Ok);
    let r = run(&runs::open_loop_2000(server.addr));
    let sent = r.schedule.map_or(0, |s| s.sent);
    vec![
        sent as f64 / 4000.0 * 100.0,
        r.latency.value_at_quantile(0.5) as f64,
    ]
}

fn ramp_1000() -> Vec<f64> {
    let server = TestServer::start(Behavior::Ok);
    let r = run(&runs::ramp_1000(server.addr));
    vec![r.schedule.map_or(0, |s| s.sent) as f64]
}

fn freeze() -> Vec<f64> {
    let server = TestServer::start(Behavior::Freeze {
        period: Duration::from_secs(5),
        freeze: Duration::from_secs(1),
        offset: Duration::from_secs(2),
    });
    let r = run(&runs::open_loop_through_freezes(server.addr));
    let mut figures = over_the_truth(&r);
    figures.push(r.service_time.value_at_quantile(0.99) as f64 / 1000.0);
    figures
}

/// The same freezes behind TLS: HTTPS/1.1, then HTTP/2 (20 connections x
/// 2 streams), each against its own freezing server.
fn freeze_over_tls() -> Vec<f64> {
    let ca = tls_support::TestCa::new("load-timing CA");
    [Protocol::Https, Protocol::H2]
        .into_iter()
        .flat_map(|protocol| {
            let server = tls_support::freezing_server(&ca);
            let mut c = runs::open_loop_through_freezes(server.addr);
            tls_support::open_loop_over(&mut c, protocol, &ca);
            over_the_truth(&run(&c))
        })
        .collect()
}

/// The corrected p90, p99 and p99.9 of a run through the freezes, as % over
/// the truth (500, 950 and 995 ms).
fn over_the_truth(r: &LoadReport) -> Vec<f64> {
    [(0.90, 500.0), (0.99, 950.0), (0.999, 995.0)]
        .map(|(q, truth_ms)| {
            (r.latency.value_at_quantile(q) as f64 / 1000.0 / truth_ms - 1.0) * 100.0
        })
        .to_vec()
}

fn ends() -> Vec<f64> {
    let dead = RefusedPort::new();
    let c = config(
        dead.addr,
        4,
        StopCondition::Duration(Duration::from_millis(500)),
    );
    let start = Instant::now();
    run(&c);
    let dead_lag = start.elapsed().as_secs_f64() * 1000.0 - 500.0;

    let server = TestServer::start(Behavior::NeverAnswer);
    let (_, at) = runs::cancelled_at(server.addr, Duration::from_millis(200));
    let cancel_lag = Instant::now().saturating_duration_since(at).as_secs_f64() * 1000.0;

    let server = TestServer::start(Behavior::NeverAnswer);
    let mut c = config(server.addr, 8, StopCondition::Requests(8));
    c.timeout = Duration::from_millis(300);
    let start = Instant::now();
    run(&c);
    vec![dead_lag, cancel_lag, start.elapsed().as_secs_f64() * 1000.0]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut runs = 3;
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().and_then(|v| v.parse().ok())) {
            ("--runs", Some(n)) => runs = n,
            _ => {
                eprintln!("usage: load-timing [--runs N]");
                std::process::exit(2);
            }
        }
    }
    let mut figures = [
        (
            "closed loop, 8 connections, 10 ms server: requests, % of 200/s each",
            ">= 90",
        ),
        ("closed loop, 10 ms server: p50 ms", "10 - 12"),
        ("open loop 2000/s: sent, % of the schedule", "99 - 101"),
        ("open loop 2000/s: corrected p50 us (timer lag)", "< 600"),
        (
            "open-loop ramp 0 -> 1000/s over 1 s: sent of 500",
            "495 - 505",
        ),
        (
            "freezing server: corrected p90 over the truth (500 ms), %",
            "< 10",
        ),
        (
            "freezing server: corrected p99 over the truth (950 ms), %",
            "< 10",
        ),
        (
            "freezing server: corrected p99.9 over the truth (995 ms), %",
            "< 10",
        ),
        ("freezing server: uncorrected p99 ms", "< 20"),
        (
            "freezing server over HTTPS/1.1: corrected p90 over the truth, %",
            "< 10",
        ),
        (
            "freezing server over HTTPS/1.1: corrected p99 over the truth, %",
            "< 10",
        ),
        (
            "freezing server over HTTPS/1.1: corrected p99.9 over the truth, %",
            "< 10",
        ),
        (
            "freezing server over HTTP/2 (TLS): corrected p90 over the truth, %",
            "< 10",
        ),
        (
            "freezing server over HTTP/2 (TLS): corrected p99 over the truth, %",
            "< 10",
        ),
        (
            "freezing server over HTTP/2 (TLS): corrected p99.9 over the truth, %",
            "< 10",
        ),
        (
            "dead server, 0.5 s run: returned after its end, ms",
            "< 1000",
        ),
        (
            "30 s run cancelled at 0.2 s: returned after the cancel, ms",
            "< 1300",
        ),
        (
            "8 connections x one 300 ms timeout: whole run, ms",
            "< 1300",
        ),
    ]
    .map(|(name, target)| Figure {
        name,
        target,
        values: Vec::new(),
    });
    let scenarios: [fn() -> Vec<f64>; 6] = [
        closed_loop_10ms,
        open_loop_2000,
        ramp_1000,
        freeze,
        freeze_over_tls,
        ends,
    ];
    for run_no in 1..=runs {
        eprintln!("run {run_no} of {runs}");
        let values: Vec<f64> = scenarios.iter().flat_map(|scenario| scenario()).collect();
        for (figure, value) in figures.iter_mut().zip(values) {
            figure.values.push(value);
        }
    }
    println!("| figure | target (quiet host) | min | median | max |");
    println!("|---|---|---|---|---|");
    for f in &mut figures {
        f.values.sort_by(f64::total_cmp);
        let n = f.values.len();
        println!(
            "| {} | {} | {:.1} | {:.1} | {:.1} |",
            f.name,
            f.target,
            f.values[0],
            f.values[n / 2],
            f.values[n - 1]
        );
    }
}
