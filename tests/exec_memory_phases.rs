//! Memory phases end to end (`memory:`) and `sample: { during_measure: false }`:
//! the real binary against the fixture service, one runtime a single
//! process and one with a helper child (the total covers both), each
//! started fresh per memory process after the cells.
mod common;

use std::time::Duration;

use common::*;

const SPEC: &str = r#"workload: { path: /work/64 }
axes: { concurrency: [2] }
load: { mode: closed, timeout: 2s }
repeats: 1
warmup: { service: 100ms, cell: 100ms }
measure: { duration: 1s }
sample: { interval: 50ms, during_measure: false }
memory: { repeats: 2, settle: 100ms, connections: 3, duration: 500ms }
"#;

#[test]
fn every_runtime_gets_fresh_processes_read_idle_and_after_and_the_report_shows_them() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(
        tmp.path(),
        &[
            PyRuntime {
                name: "single",
                env: &[],
                extra: "",
            },
            PyRuntime {
                name: "with-child",
                env: &[("HELPER_CHILD", "1")],
                extra: "",
            },
        ],
        &format!("{SPEC}{QUIET_HOST}"),
    );
    exec_ok(&spec, Duration::from_secs(180));
    let pids = all_pids(tmp.path());
    let alive = wait_all_gone(&pids, Duration::from_secs(5));
    assert!(alive.is_empty(), "processes survived: {alive:?}");
    let run = run_dir(tmp.path());

    let rows = read_rows(&run.join("memory-phases.csv"));
    let order: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r["runtime"].clone(), r["process"].clone()))
        .collect();
    assert_eq!(
        order,
        [
            ("single", "1"),
            ("with-child", "1"),
            ("single", "2"),
            ("with-child", "2")
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    let number = |r: &std::collections::HashMap<String, String>, k: &str| -> u64 {
        r[k].parse()
            .unwrap_or_else(|_| panic!("{k} = {:?} in {r:?}", r[k]))
    };
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert!(number(r, "idle_rss_bytes") > 1 << 20, "{r:?}");
        assert!(number(r, "after_rss_bytes") > 1 << 20, "{r:?}");
        assert!(number(r, "requests_ok") > 0, "{r:?}");
        assert_eq!(r["connections"], "3");
    }
    // The helper child is counted: one more process than the plain service.
    let processes = |name: &str| {
        number(
            rows.iter().find(|r| r["runtime"] == name).unwrap(),
            "processes",
        )
    };
    assert_eq!(processes("with-child"), processes("single") + 1);
    // A memory process is a start of its own: 1 measured + 2 memory starts
    // per runtime, each recorded in the fixture's pid file.
    assert_eq!(pids_in(&tmp.path().join("pids-single")).len(), 3);

    // During the measured window the sampler read twice (start and end) at
    // a 50 ms interval over 1 s, instead of ~20 times.
    let samples = std::fs::read_dir(run.join("samples")).unwrap();
    for entry in samples.flatten() {
        let lines = std::fs::read_to_string(entry.path())
            .unwrap()
            .lines()
            .count();
        assert_eq!(
            lines,
            1 + 2,
            "{}: header + 2 samples",
            entry.path().display()
        );
    }

    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(
        report.contains("## Memory in phases, on fresh processes"),
        "{report}"
    );
    assert!(report.contains("## Max latency over repeats"), "{report}");
    assert!(run.join("charts/memory-phases.svg").is_file());
}
