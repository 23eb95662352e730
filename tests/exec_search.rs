//! `load: { mode: search }` end to end: a fixture service of known capacity
//! (one lock held 20 ms per request: 50 req/s) is searched from 10 to 400
//! req/s; the found maximum, the probed steps in search/<cell>.csv, and the
//! report's table and chart are checked.
mod common;

use std::time::Duration;

use common::*;

/// The fixture's nominal capacity: 1000 ms / 20 ms per request. Low on
/// purpose: at 5 ms (200 req/s) this busy 2-core host answered only ~155 req/s,
/// the Python work per request, not the lock, being the limit; at 20 ms the
/// lock is the limit with room to spare.
const CAPACITY: f64 = 50.0;

fn spec(dir: &std::path::Path, from: u32, to: u32) -> std::path::PathBuf {
    let yaml = format!(
        r#"experiment: {{ name: exec-test, title: search test, description: a service of known capacity }}
runtimes:
  capped:
    dir: {fixtures}
    start: python3 capacity_service.py
    health: {{ path: /health, timeout: 10s, interval: 50ms }}
    stop: {{ signal: TERM, grace: 3s }}
    env: {{ SERVICE_MS: "20", PID_FILE: "{pids}" }}
workload: {{ method: GET, path: "/work/16", expect: {{ status: 200 }} }}
load:
  mode: search
  slo: {{ p99: 200ms, errors: 1% }}
  from: {from}
  to: {to}
  connections: 8
  timeout: 2s
  step: {{ warmup: 1s, duration: 3s, precision: 5% }}
repeats: 1
measure: {{ duration: 3s }}
warmup: {{ service: 200ms, cell: 500ms }}
sample: {{ interval: 100ms }}
startup: {{ repeats: 0 }}
# Near its capacity the fixture's 20 ms lock queues answers into 36-48 ms
# while the service is nearly idle: the Nagle gate's own signature (it
# flagged a held step once), which this test of the search does not judge.
gates: {{ generator_wait: off, littles_law: off, latency_floor: off }}
"#,
        fixtures = fixtures().display(),
        pids = dir.join("pids-capped").display(),
    );
    let path = dir.join("spec.yaml");
    std::fs::write(&path, yaml).unwrap();
    path
}

#[test]
fn search_finds_the_capacity_of_a_one_worker_service() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    exec_ok(&spec(dir, 10, 400), Duration::from_secs(240));
    let run = run_dir(dir);
    let rows = measurements(&run);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(row["mode"], "search", "{row:?}");
    let found: f64 = row["target_rps"].parse().unwrap();
    let steps = read_rows(
        &std::fs::read_dir(run.join("search"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path(),
    );
    let table: Vec<String> = steps
        .iter()
        .map(|s| {
            format!(
                "{} {} {} {} {}",
                s["target_rps"], s["achieved_rps"], s["p99_ms"], s["held"], s["why_not"]
            )
        })
        .collect();
    eprintln!("found {found} req/s; steps:\n{}", table.join("\n"));
    // What the service answers when overloaded: its capacity on this host
    // (the nominal figure less the Python work around the lock, ~10% here).
    let saturated = steps
        .iter()
        .filter(|s| s["held"] == "false" && s["why_not"].starts_with("achieved"))
        .map(|s| s["achieved_rps"].parse::<f64>().unwrap())
        .fold(0.0, f64::max);
    assert!(
        saturated > 0.0,
        "some step saturated the service: {table:#?}"
    );
    assert!(
        (found - saturated).abs() <= 0.1 * saturated,
        "found {found} req/s, the service answers at most {saturated}: {table:#?}"
    );
    assert!(
        (0.75 * CAPACITY..=1.05 * CAPACITY).contains(&found),
        "found {found} req/s, nominal capacity {CAPACITY}: {table:#?}"
    );
    assert!(steps.len() >= 4, "stepped up, then bisected: {table:#?}");
    let held_max = steps
        .iter()
        .filter(|s| s["held"] == "true")
        .map(|s| s["target_rps"].parse::<f64>().unwrap())
        .fold(0.0, f64::max);
    assert_eq!(held_max, found, "the row gives the highest held step");
    assert!(
        steps
            .iter()
            .any(|s| s["held"] == "false" && !s["why_not"].is_empty()),
        "a failed step says why: {table:#?}"
    );
    assert_eq!(row["status"], "ok", "{row:?}");
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(report.contains("## Maximum sustainable rate"), "{report}");
    assert!(report.contains("charts/search-steps.svg"), "{report}");
    let svg = std::fs::read_to_string(run.join("charts/search-steps.svg")).unwrap();
    assert!(svg.contains("<svg"), "the chart is drawn");
}
