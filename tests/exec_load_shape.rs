//! The 2020 study's load shape and first requests end to end (issue 15
//! part 4): the real binary against the fixture service, which counts the
//! /work requests each process answered. A warmup of exactly 50 requests,
//! a connection ramp of 1 s to 4 connections, a window of exactly 100
//! requests, and the first 20 requests of each fresh start timed: every
//! request the service saw is accounted for, the ramp's none of the
//! window's, and the report shows the first requests apart.
mod common;

use std::collections::HashMap;
use std::time::Duration;

use common::*;

const SHAPE: &str = r#"workload: { method: GET, path: "/work/16", expect: { status: 200 } }
axes: { concurrency: [4] }
load: { mode: closed, timeout: 5s, ramp: 1s }
repeats: 1
warmup: { cell: { requests: 50 } }
measure: { requests: 100 }
sample: { interval: 100ms }
startup: { repeats: 1, first_requests: 20 }
gates: { generator_wait: off, littles_law: off }
"#;

/// /work requests answered, per process (one `<file>.<pid>` each, written on SIGTERM).
fn per_process(file: &std::path::Path) -> Vec<u64> {
    let dir = file.parent().unwrap();
    let prefix = format!("{}.", file.file_name().unwrap().to_string_lossy());
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(&prefix) && !name.ends_with(".tmp") {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            out.push(
                text.lines()
                    .map(|l| l.split_once(' ').unwrap().1.parse::<u64>().unwrap())
                    .sum(),
            );
        }
    }
    out.sort_unstable();
    out
}

#[test]
fn warmup_by_count_ramp_window_by_count_and_first_requests_account_for_every_request() {
    let tmp = tempfile::tempdir().unwrap();
    let count_file = tmp.path().join("counts");
    let count_env = count_file.display().to_string();
    let spec = write_spec(
        tmp.path(),
        &[PyRuntime {
            name: "py",
            env: &[("COUNT_FILE", &count_env)],
            extra: "",
        }],
        SHAPE,
    );
    exec_ok(&spec, Duration::from_secs(120));
    // The service writes its counts as it exits: every process has ended.
    let alive = wait_all_gone(&all_pids(tmp.path()), Duration::from_secs(5));
    assert!(alive.is_empty(), "processes survived: {alive:?}");
    let run = run_dir(tmp.path());

    let rows = measurements(&run);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(row["requests"], "100", "{row:?}");
    assert_eq!(row["errors"], "0", "{row:?}");
    assert_eq!(row["warmup_end"], "requests", "{row:?}");
    assert_eq!(row["ramp_s"], "1.0", "{row:?}");
    let ramp: u64 = row["ramp_requests"].parse().unwrap();
    assert!(ramp > 0, "{row:?}");
    assert_eq!(row["connections_opened"], "4", "{row:?}");

    // Two fresh processes: the cold start (its first 20 requests) and the
    // measured start (first 20, warmup 50, ramp, window 100).
    let counts = per_process(&count_file);
    assert_eq!(counts, {
        let mut v = vec![20, 20 + 50 + ramp + 100];
        v.sort_unstable();
        v
    });

    // first-requests.csv: requests 1..=20 of each start, each timed.
    let first = read_rows(&run.join("first-requests.csv"));
    assert_eq!(first.len(), 40, "{first:?}");
    let mut by_start: HashMap<(String, String), Vec<u32>> = HashMap::new();
    for r in &first {
        assert_eq!(r["runtime"], "py");
        assert!(r["latency_ms"].parse::<f64>().unwrap() > 0.0, "{r:?}");
        by_start
            .entry((r["phase"].clone(), r["start_index"].clone()))
            .or_default()
            .push(r["request"].parse().unwrap());
    }
    let phases: Vec<&str> = {
        let mut p: Vec<&str> = by_start.keys().map(|(p, _)| p.as_str()).collect();
        p.sort_unstable();
        p
    };
    assert_eq!(phases, ["measure", "startup"], "{by_start:?}");
    for requests in by_start.values() {
        assert_eq!(*requests, (1..=20).collect::<Vec<u32>>());
    }

    for report in ["report.md", "report.html"] {
        let text = std::fs::read_to_string(run.join(report)).unwrap();
        assert!(text.contains("First requests"), "{report}:\n{text}");
    }
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    let section = md.split("## First requests").nth(1).unwrap();
    let line = section.lines().find(|l| l.starts_with("| py |")).unwrap();
    assert!(line.starts_with("| py | 2 |"), "{line}");
}
