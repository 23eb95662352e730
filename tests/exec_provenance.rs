//! Training provenance end to end: the real binary trains fixture runtimes
//! whose "trained artifact" is a file (`<name>.bin`, written by the training
//! service on SIGTERM and copied by `after`), records training/<name>.json,
//! and checks before every measured start that the artifact and its inputs
//! are those of the training, and that `train.probe` succeeds.
mod common;

use std::path::Path;
use std::time::Duration;

use common::*;

/// One trained runtime: `start_prefix` runs before the service in its
/// measured starts (`tampered` changes its artifact there), `probe` is its
/// `train.probe`.
fn runtime(dir: &Path, name: &str, start_prefix: &str, probe: &str) -> String {
    let file = |ext: &str| dir.join(format!("{name}.{ext}")).display().to_string();
    std::fs::write(file("input"), format!("{name} sources\n")).unwrap();
    format!(
        "  {name}:\n    dir: {fixtures}\n    start: \"{start_prefix}exec python3 service.py\"\n    \
         health: {{ path: /health, timeout: 10s, interval: 50ms }}\n    \
         stop: {{ signal: TERM, grace: 3s }}\n    env: {{ PID_FILE: {pids} }}\n    train:\n      \
         start: python3 service.py\n      env: {{ WRITE_FILE: {conf} }}\n      duration: 300ms\n      \
         connections: 1\n      after: [\"cp {conf} {bin}\"]\n      produces: [{bin}]\n      \
         inputs: [{input}]\n      probe: \"{probe}\"\n",
        fixtures = fixtures().display(),
        pids = dir.join(format!("pids-{name}")).display(),
        conf = file("conf"),
        bin = file("bin"),
        input = file("input"),
    )
}

#[test]
fn a_trained_file_changed_after_training_makes_the_next_starts_cells_suspect_with_the_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let bin = |name: &str| dir.join(format!("{name}.bin")).display().to_string();
    let input = dir.join("edited.input").display().to_string();
    let runtimes = [
        runtime(dir, "clean", "", &format!("test -s {}", bin("clean"))),
        // Its first measured start changes the trained file (a rebuild mid-run, say).
        runtime(
            dir,
            "tampered",
            &format!("echo stale >> {}; ", bin("tampered")),
            "true",
        ),
        // Its first measured start changes an input the artifact was trained from.
        runtime(dir, "edited", &format!("echo v2 >> {input}; "), "true"),
        runtime(dir, "refused", "", "echo cache refused >&2; exit 1"),
    ];
    let spec = format!(
        "experiment: {{ name: exec-test }}\nruntimes:\n{}\
         workload: {{ method: GET, path: /work/16, expect: {{ status: 200 }} }}\n\
         axes: {{ concurrency: [1] }}\nload: {{ timeout: 2s }}\nrepeats: 2\n\
         warmup: {{ service: 0s, cell: 100ms }}\nmeasure: {{ duration: 300ms }}\n\
         results: {}\n{QUIET_HOST}",
        runtimes.concat(),
        dir.join("results").display()
    );
    let spec_path = dir.join("spec.yaml");
    std::fs::write(&spec_path, spec).unwrap();
    exec_ok(&spec_path, Duration::from_secs(120));
    let run = run_dir(dir);

    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("training/clean.json")).unwrap())
            .unwrap();
    assert!(
        record["driver"]["requests"].as_u64().unwrap() > 0,
        "{record}"
    );
    assert_eq!(record["driver"]["errors"], 0);
    assert!(record["driver"]["duration_s"].as_f64().unwrap() > 0.2);
    assert_eq!(record["produced"][0]["path"], bin("clean"));
    // The fixture writes "trained\n" on SIGTERM; `after` copies it (`printf "trained\n" | sha256sum`).
    assert_eq!(
        record["produced"][0]["sha256"],
        "d8d882672ffcd6531e030e686eafb85733889641a0fc99e9198fcb606d5994a2"
    );
    assert_eq!(record["inputs"][0]["bytes"], "clean sources\n".len());

    let rows = measurements(&run);
    let row = |id: &str| {
        rows.iter()
            .find(|r| r["cell_id"] == id)
            .unwrap_or_else(|| panic!("no row {id}: {rows:?}"))
    };
    for id in [
        "clean/concurrency=1/r1",
        "clean/concurrency=1/r2",
        "tampered/concurrency=1/r1",
    ] {
        assert_eq!(row(id)["status"], "ok", "{:?}", row(id));
    }
    let tampered = row("tampered/concurrency=1/r2");
    assert_eq!(tampered["status"], "suspect");
    assert!(
        tampered["reason"].contains(&format!(
            "the artifact in use is not the one trained: trained file {} changed (sha256 d8d88267… at training",
            bin("tampered")
        )),
        "{tampered:?}"
    );
    let edited = row("edited/concurrency=1/r2");
    assert_eq!(edited["status"], "suspect");
    assert!(
        edited["reason"].contains(&format!("input {input} changed")),
        "{edited:?}"
    );
    for id in ["refused/concurrency=1/r1", "refused/concurrency=1/r2"] {
        let r = row(id);
        assert_eq!(r["status"], "suspect", "{r:?}");
        assert!(r["reason"].contains("train.probe failed"), "{r:?}");
    }
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(md.contains("## Training"), "{md}");
    assert!(
        md.contains("clean.bin d8d88267"),
        "the produced file with its short hash"
    );
    let probe_log = std::fs::read_to_string(run.join("logs/probe-refused.log")).unwrap();
    assert!(probe_log.contains("cache refused"), "{probe_log}");
    let pids = all_pids(dir);
    assert!(wait_all_gone(&pids, Duration::from_secs(5)).is_empty());
}
