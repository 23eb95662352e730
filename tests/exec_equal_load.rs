//! `equal_load` end to end: two fixture services of different speed run
//! their closed-loop cells, then open-loop cells at half the slower one's
//! peak; the rates land in derived-rates.json and the report compares the
//! runtimes at them.
mod common;

use std::time::Duration;

use common::*;

#[test]
fn open_loop_cells_run_at_a_fraction_of_the_slowest_closed_loop_peak() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // `slow` burns 2 ms of CPU per request: its peak is the lower one.
    let cost = dir.join("slow.cost");
    std::fs::write(&cost, "2000").unwrap();
    let cost = cost.display().to_string();
    let spec = write_spec(
        dir,
        &[
            PyRuntime {
                name: "fast",
                env: &[],
                extra: "",
            },
            PyRuntime {
                name: "slow",
                env: &[("COST_FILE", &cost)],
                extra: "",
            },
        ],
        &SMALL_MATRIX
            .replace("payload: [16, 256]", "payload: [16]")
            .replace("measure: { duration: 300ms }", "measure: { duration: 1s }")
            .replace(
                "faults:",
                "equal_load: { of_peak: [0.5], connections: 4 }\nfaults:",
            ),
    );
    exec_ok(&spec, Duration::from_secs(120));
    let run = run_dir(dir);
    let rows = measurements(&run);
    assert_eq!(rows.len(), 4 + 2, "{rows:?}");
    let closed_peak = |rt: &str| {
        rows.iter()
            .filter(|r| r["runtime"] == rt && r["mode"] == "closed")
            .map(|r| r["throughput_rps"].parse::<f64>().unwrap())
            .fold(0.0, f64::max)
    };
    let slowest = closed_peak("fast").min(closed_peak("slow"));
    let open: Vec<_> = rows.iter().filter(|r| r["mode"] == "open").collect();
    assert_eq!(
        open.iter()
            .map(|r| r["cell_id"].as_str())
            .collect::<Vec<_>>(),
        [
            "fast/payload=16/of_peak=0.5/r1",
            "slow/payload=16/of_peak=0.5/r1"
        ],
        "after every closed-loop cell"
    );
    for r in &open {
        let target: f64 = r["target_rps"].parse().unwrap();
        assert!(
            (target - slowest * 0.5).abs() < 0.1,
            "{target} offered, half of {slowest}: {r:?}"
        );
        let achieved: f64 = r["throughput_rps"].parse().unwrap();
        assert!(achieved > target * 0.3, "{r:?}");
    }
    let rates: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("derived-rates.json")).unwrap())
            .unwrap();
    assert_eq!(rates["groups"][0]["group"], "payload=16");
    assert_eq!(rates["groups"][0]["peaks"].as_array().unwrap().len(), 2);
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(md.contains("## Latency at equal load"), "{md}");
    assert!(md.contains("closed-loop peak"), "{md}");
    assert!(run.join("charts/p99-at-equal-load.svg").is_file());
    assert!(run.join("charts/p99-vs-concurrency.svg").is_file());
    assert!(wait_all_gone(&all_pids(dir), Duration::from_secs(5)).is_empty());
}
