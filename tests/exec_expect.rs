//! `expect: { min_bytes, body_contains, header }` end to end: the real
//! binary against the fixture service answering 200 with a truncated body
//! (TRUNCATE_TO, its Content-Length matching), with a body of the right
//! length made of the wrong byte (FILL), and as it should. By status all
//! three look fine; the checks of the cell warmup's sampled answers fail
//! the first two cells, naming the wrong answer, and pass the third, and
//! `runner verify` (whose spec has no `verify:` list) finds the same two.
mod common;

use std::time::Duration;

use common::*;

/// The three runtimes over one cell each: the page must be as long as
/// its payload, contain a run of x's and be JSON by its Content-Type.
fn spec(dir: &std::path::Path) -> std::path::PathBuf {
    write_spec(
        dir,
        &[
            PyRuntime {
                name: "short",
                env: &[("TRUNCATE_TO", "10")],
                extra: "",
            },
            PyRuntime {
                name: "wrongtext",
                env: &[("FILL", "y")],
                extra: "",
            },
            PyRuntime {
                name: "good",
                env: &[],
                extra: "",
            },
        ],
        r#"workload:
  name: page
  path: "/work/{{ payload }}"
  expect:
    status: 200
    min_bytes: "{{ payload }}"
    body_contains: xxxxxxxxxxxx
    header: { content-type: application/json }
axes: { payload: [256], concurrency: [2] }
load: { mode: closed, timeout: 2s }
repeats: 1
warmup: { service: 0s, cell: 1s }
measure: { duration: 300ms }
sample: { interval: 50ms }
faults: { max_restarts: 0 }
startup: { repeats: 0 }
gates: { generator_wait: off, littles_law: off }
"#,
    )
}

#[test]
fn a_truncated_or_wrong_body_fails_its_cell_naming_the_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = spec(tmp.path());
    let (_, text) = exec_within(&spec, Duration::from_secs(120));
    let rows = measurements(&run_dir(tmp.path()));
    let row = |runtime: &str| {
        rows.iter()
            .find(|r| r["runtime"] == runtime)
            .unwrap_or_else(|| panic!("no row for {runtime}: {rows:?}\n{text}"))
    };
    let short = row("short");
    assert_eq!(short["status"], "failed", "{short:?}");
    assert!(
        short["reason"].contains(
            "wrong answer in the warmup: request \"page\": answer of 10 bytes, expected at \
             least 256 (min_bytes); status 200, 10 bytes, body began: \"xxxxxxxxxx\""
        ),
        "{short:?}"
    );
    assert!(
        short["reason"].contains("curl"),
        "says what to do: {short:?}"
    );
    let wrong = row("wrongtext");
    assert_eq!(wrong["status"], "failed", "{wrong:?}");
    assert!(
        wrong["reason"].contains(
            "request \"page\": the body's first 256 bytes do not contain \"xxxxxxxxxxxx\" \
             (body_contains); status 200, 256 bytes, body began: \"yyyy"
        ),
        "{wrong:?}"
    );
    let good = row("good");
    assert_ne!(good["status"], "failed", "correct bodies pass: {good:?}");
    assert!(!good["reason"].contains("wrong answer"), "{good:?}");
    let ok: f64 = good["throughput_rps"].parse().unwrap();
    assert!(ok > 0.0, "the good cell was measured: {good:?}");
}

#[test]
fn verify_checks_the_workload_answers_without_a_verify_list() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = spec(tmp.path());
    let out = runner_within(Duration::from_secs(120))
        .args(["verify", spec.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let text = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        stdout.contains(
            "- workload page (GET /work/256): short: answer of 10 bytes, expected at least 256 \
             (min_bytes); status 200, 10 bytes, body began: \"xxxxxxxxxx\""
        ),
        "{text}"
    );
    assert!(
        stdout.contains(
            "- workload page (GET /work/256): wrongtext: the body's first 256 bytes do not \
             contain \"xxxxxxxxxxxx\" (body_contains)"
        ),
        "{text}"
    );
    assert!(!stdout.contains("good: "), "{text}");
}
