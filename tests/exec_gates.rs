//! `runner exec` against fixture services that each break one rule a
//! trustworthy cell needs (issue 12): half its answers are 500s, its answers
//! wait on Nagle's algorithm, it starts after a known delay, it logs a lot.
//! The real binary, real services on 127.0.0.1.
mod common;

use std::time::Duration;

use common::*;

/// One payload, one concurrency, a short cell; no cold starts unless asked.
fn tail(concurrency: u32, measure: &str, extra: &str) -> String {
    format!(
        r#"workload: {{ method: GET, path: "/work/{{{{ payload }}}}", expect: {{ status: 200 }} }}
axes: {{ payload: [16], concurrency: [{concurrency}] }}
load: {{ mode: closed, timeout: 2s }}
repeats: 1
warmup: {{ service: 0s, cell: 100ms }}
measure: {{ duration: {measure} }}
sample: {{ interval: 50ms }}
{extra}"#
    )
}

fn run_one(dir: &std::path::Path, env: &[(&str, &str)], rest: &str) -> std::path::PathBuf {
    let spec = write_spec(
        dir,
        &[PyRuntime {
            name: "py",
            env,
            extra: "",
        }],
        rest,
    );
    let out = runner_within(Duration::from_secs(120))
        .arg("exec")
        .arg(&spec)
        .output()
        .unwrap();
    let run = run_dir(dir);
    let alive = wait_all_gone(&all_pids(dir), Duration::from_secs(5));
    assert!(alive.is_empty(), "processes survived: {alive:?}");
    assert!(
        out.status.code().is_some(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    run
}

fn lifecycle(run: &std::path::Path) -> Vec<std::collections::HashMap<String, String>> {
    read_rows(&run.join("lifecycle.csv"))
}

fn num(row: &std::collections::HashMap<String, String>, column: &str) -> f64 {
    row[column]
        .parse()
        .unwrap_or_else(|_| panic!("{column} of {row:?}"))
}

#[test]
fn a_service_answering_500_to_half_the_requests_fails_its_cells_naming_the_class() {
    let tmp = tempfile::tempdir().unwrap();
    let run = run_one(
        tmp.path(),
        &[("MODE", "half_500")],
        &tail(2, "500ms", "startup: { repeats: 0 }\n"),
    );
    let rows = measurements(&run);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(row["status"], "failed", "{row:?}");
    assert!(row["reason"].starts_with("errors: "), "{row:?}");
    assert!(row["reason"].contains("status 500: "), "{row:?}");
    let rate = num(row, "error_rate");
    assert!((0.4..=0.6).contains(&rate), "{row:?}");
}

#[test]
fn head_and_body_in_two_sends_without_nodelay_is_suspect_with_the_latency_floor_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let run = run_one(
        tmp.path(),
        &[("MODE", "two_sends")],
        &tail(2, "1s", "startup: { repeats: 0 }\n"),
    );
    let rows = measurements(&run);
    let row = &rows[0];
    assert_eq!(row["status"], "suspect", "{row:?}");
    assert!(
        row["reason"].contains(
            "latency floor at ~40 ms, typical of Nagle's algorithm with delayed ACK; \
             does the service set TCP_NODELAY?"
        ),
        "{row:?}"
    );
    let p50 = num(row, "latency_p50_ms");
    assert!((36.0..=48.0).contains(&p50), "{row:?}");
}

#[test]
fn gates_off_keeps_the_same_two_send_cell_free_of_the_floor_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let run = run_one(
        tmp.path(),
        &[("MODE", "two_sends")],
        &tail(
            2,
            "500ms",
            "startup: { repeats: 0 }\ngates: { latency_floor: off }\n",
        ),
    );
    let row = &measurements(&run)[0];
    assert!(!row["reason"].contains("TCP_NODELAY"), "{row:?}");
}

/// Extra time the runner may take to notice the port, beyond the brief's
/// 20 ms: its 1 ms poll thread is descheduled now and then on a 2-core host
/// shared with builds (see the figures in docs/exec.md).
const NOTICE_SLACK_MS: f64 = 30.0;
/// The fixture reads its fork time in 10 ms clock ticks, rounded down.
const TICK_MS: f64 = 10.0;

#[test]
fn a_service_listening_after_3_s_records_its_startup_to_the_millisecond() {
    let tmp = tempfile::tempdir().unwrap();
    let listen_file = tmp.path().join("listened");
    let listen = listen_file.to_str().unwrap();
    let run = run_one(
        tmp.path(),
        &[("STARTUP_DELAY", "3"), ("LISTEN_FILE", listen)],
        &tail(1, "200ms", "startup: { repeats: 0 }\n"),
    );
    let rows = lifecycle(&run);
    let start = rows
        .iter()
        .find(|r| r["phase"] == "measure")
        .unwrap_or_else(|| panic!("{rows:?}"));
    let port = num(start, "port_ms");
    let healthy = num(start, "startup_ms");
    let first = num(start, "first_request_ms");
    let text = std::fs::read_to_string(&listen_file).unwrap();
    let times: Vec<f64> = text
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    // Fork -> listen() as the service saw it (up to one tick long).
    let truth = (times[1] - times[0]) * 1000.0;
    eprintln!(
        "port {port:.1} ms, healthy {healthy:.1} ms, first {first:.1} ms, service says {truth:.1} ms"
    );
    // It slept 3 s before listening: never sooner.
    assert!(port >= 3000.0, "{start:?}");
    assert!(port >= truth - TICK_MS - 1.0, "port {port} vs {truth}");
    assert!(
        port <= truth + 20.0 + NOTICE_SLACK_MS,
        "port {port} ms, the service listened at {truth} ms"
    );
    assert!(
        healthy >= port && healthy <= port + 20.0 + NOTICE_SLACK_MS,
        "{start:?}"
    );
    assert!(first >= healthy, "{start:?}");
}

#[test]
fn cold_starts_are_recorded_each_with_its_three_times() {
    let tmp = tempfile::tempdir().unwrap();
    let run = run_one(
        tmp.path(),
        &[],
        &tail(1, "200ms", "startup: { repeats: 2 }\n"),
    );
    let rows = lifecycle(&run);
    let cold: Vec<_> = rows.iter().filter(|r| r["phase"] == "startup").collect();
    assert_eq!(cold.len(), 2, "{rows:?}");
    for (i, row) in cold.iter().enumerate() {
        assert_eq!(row["start_index"], (i + 1).to_string());
        assert_eq!(row["stop"], "graceful", "{row:?}");
        let (port, healthy, first) = (
            num(row, "port_ms"),
            num(row, "startup_ms"),
            num(row, "first_request_ms"),
        );
        assert!(0.0 < port && port <= healthy && healthy <= first, "{row:?}");
    }
    // Then the measured start, as before.
    assert_eq!(rows.iter().filter(|r| r["phase"] == "measure").count(), 1);
    assert_eq!(measurements(&run).len(), 1);
}

#[test]
fn a_chatty_service_log_stays_under_its_cap_with_head_and_tail_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let run = run_one(
        tmp.path(),
        &[("CHATTY", "1")],
        &tail(2, "1s", "startup: { repeats: 0 }\nlogs: { cap: 1MiB }\n"),
    );
    let rows = lifecycle(&run);
    let start = rows.iter().find(|r| r["phase"] == "measure").unwrap();
    let dropped: u64 = start["log_dropped_bytes"].parse().unwrap();
    let log = run.join("logs/py.log");
    let size = std::fs::metadata(&log).unwrap().len();
    let requests: u64 = measurements(&run)[0]["requests"].parse().unwrap();
    eprintln!("{requests} requests, log {size} bytes, {dropped} dropped");
    // 100 KB per request: far more than the 2 MiB kept.
    assert!(requests >= 30, "{requests} requests");
    assert!(dropped > 0, "{start:?}");
    // Head and tail of 1 MiB each, plus the runner's own lines.
    assert!(size <= (2 << 20) + 4096, "{size} bytes");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("service.py: listening on"),
        "the head is kept"
    );
    assert!(
        text.contains(&format!(
            "=== runner: {dropped} bytes of this log dropped here"
        )),
        "the cut is marked"
    );
    assert!(
        text.trim_end().ends_with("service.py: graceful exit"),
        "the tail is kept, to the last line"
    );
}

#[test]
fn a_chatty_service_that_crashes_keeps_its_last_lines_in_the_log_and_the_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let run = run_one(
        tmp.path(),
        &[
            ("CHATTY", "1"),
            ("MODE", "crash_after"),
            ("CRASH_AFTER", "60"),
        ],
        // One connection: no other request's output can follow the crash line.
        &tail(
            1,
            "2s",
            "startup: { repeats: 0 }\nlogs: { cap: 1MiB }\nfaults: { max_restarts: 0 }\n",
        ),
    );
    let row = &measurements(&run)[0];
    assert_eq!(row["status"], "failed", "{row:?}");
    // 60 requests x 100 KB: the crash line is far past the 1 MiB head.
    assert!(row["reason"].contains("crashing on purpose"), "{row:?}");
    let text = std::fs::read_to_string(run.join("logs/py.log")).unwrap();
    assert!(
        text.contains("bytes of this log dropped here"),
        "the cap was hit"
    );
    assert!(
        text.trim_end()
            .ends_with("service.py: crashing on purpose after 60 requests"),
        "the crash's tail is in the file"
    );
}
