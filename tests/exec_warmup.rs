//! `warmup: { cell: auto }` end to end: the real binary against the fixture
//! service made slow for its first 2 s. The auto warmup must outlast the
//! slow phase (a rule blind to it would stop at its minimum of five 1 s
//! windows) and end on its own before `max`; the row records how long it ran.
//! After the slow phase every answer waits 5 ms (WAIT_FILE), so the windows'
//! throughput is set by that wait, not by how fast a busy host runs Python:
//! the flat phase is flat on any host.
mod common;

use std::time::Duration;

use common::*;

#[test]
fn auto_warmup_outlasts_a_slow_start_and_records_its_length() {
    let tmp = tempfile::tempdir().unwrap();
    let wait = tmp.path().join("wait-us");
    std::fs::write(&wait, "5000").unwrap();
    let wait = wait.to_str().unwrap();
    let spec = write_spec(
        tmp.path(),
        &[PyRuntime {
            name: "slow-start",
            env: &[("SLOW_FOR", "2"), ("SLOW_MS", "20"), ("WAIT_FILE", wait)],
            extra: "",
        }],
        r#"workload: { method: GET, path: "/work/16", expect: { status: 200 } }
axes: { concurrency: [1] }
load: { mode: closed, timeout: 2s }
repeats: 1
warmup: { service: 0s, cell: auto, max: 30s }
measure: { duration: 1s }
sample: { interval: 100ms }
"#,
    );
    let out = runner_within(Duration::from_secs(120))
        .args(["exec", spec.to_str().unwrap()])
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    let rows = measurements(&run_dir(tmp.path()));
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(row["warmup_end"], "stable", "{row:?}");
    let used: f64 = row["warmup_s"].parse().unwrap();
    assert!(
        used > 6.0,
        "the slow first 2 s are inside the first five windows: {used} s"
    );
    assert!(used < 30.0, "ended before max: {used} s");
    // Slow answers take >= 25 ms (<= 40/s at concurrency 1), fast ones 5 ms
    // plus the host's share (<= 200/s): above 1.5 times the slow ceiling,
    // the window came after the slow phase.
    let rps: f64 = row["throughput_rps"].parse().unwrap();
    assert!(rps > 60.0, "measured after warmup at {rps} req/s");
    assert!(all_pids(tmp.path()).iter().all(|p| !pid_alive(*p)));
}
