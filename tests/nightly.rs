//! `runner nightly` end to end: the real binary, a tiny python service on
//! 127.0.0.1. A first night has no history (exit 4, verdict.json written),
//! a mistyped spec never exits 0, and a second unchanged night is judged.
mod common;

use std::path::Path;
use std::process::Output;

use common::*;

/// One runtime, one configuration, two tiny repeats.
const TINY: &str = r#"workload: { method: GET, path: "/work/16", expect: { status: 200 } }
axes: { concurrency: [1] }
load: { mode: closed, timeout: 2s }
repeats: 2
warmup: { service: 100ms, cell: 50ms }
measure: { duration: 200ms }
sample: { interval: 50ms }
faults: { max_restarts: 1 }
startup: { repeats: 0 }
gates: { generator_wait: off, littles_law: off }
"#;

fn nightly(spec: &Path) -> Output {
    runner().arg("nightly").arg(spec).output().unwrap()
}

fn verdict(run: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(run.join("verdict.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn newest_run(dir: &Path) -> std::path::PathBuf {
    let mut runs: Vec<_> = std::fs::read_dir(dir.join("results/exec-test"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("status.json").is_file())
        .collect();
    runs.sort();
    runs.pop().unwrap()
}

#[test]
fn a_mistyped_spec_is_never_zero_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let out = nightly(&tmp.path().join("experiments/2062.yaml"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{stderr}");
    assert!(stderr.contains("2062.yaml"), "{stderr}");
    assert!(stderr.contains("nightly: no run started"), "{stderr}");
}

#[test]
fn first_night_has_no_history_then_the_next_is_judged() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(
        tmp.path(),
        &[PyRuntime {
            name: "py-a",
            env: &[],
            extra: "",
        }],
        TINY,
    );
    let first = nightly(&spec);
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert_eq!(first.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("no history yet: 0 earlier comparable run(s)"),
        "{stderr}"
    );
    let run = newest_run(tmp.path());
    let v = verdict(&run);
    assert_eq!(v["format_version"], 1);
    assert_eq!(v["outcome"], "no-history-yet");
    assert_eq!(v["exit_code"], 4);
    let md = std::fs::read_to_string(run.join("verdict.md")).unwrap();
    assert!(
        md.starts_with("compared with 0 earlier runs: no history yet"),
        "{md}"
    );

    // Run ids are to the second: the second night must be a new directory.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let second = nightly(&spec);
    let stderr = String::from_utf8_lossy(&second.stderr);
    let code = second.status.code();
    assert!(
        matches!(code, Some(0 | 1 | 3)),
        "a judged outcome: {stderr}"
    );
    let run2 = newest_run(tmp.path());
    assert_ne!(run, run2);
    let v = verdict(&run2);
    assert_eq!(v["format_version"], 1);
    assert_eq!(v["exit_code"].as_u64(), code.map(|c| c as u64));
    assert_eq!(v["earlier_runs"], 1);
    assert_eq!(v["baseline_runs"].as_array().unwrap().len(), 1);
    assert!(v["comparison"]["cells"].is_array(), "{v}");
}
