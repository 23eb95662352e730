//! Runs labelled with what they measured, end to end: `runner exec --label`
//! records the user's labels in environment.json, and every runtime whose
//! `dir` is inside a git work tree gets its commit, describe, subject and
//! dirty state, read from git (a repository made by the test, so what is
//! recorded is known); a runtime outside any work tree gets no entry.
mod common;

use std::path::Path;
use std::time::Duration;

use common::*;

#[test]
fn a_labelled_run_records_its_labels_and_each_runtimes_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    service_in(&repo.join("svc"));
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "serve /work faster"]);
    git(&repo, &["tag", "v1.4.0"]);
    let head = git(&repo, &["rev-parse", "HEAD"]);
    // Uncommitted: the run measured something no commit holds.
    std::fs::write(repo.join("svc/NOTES"), "an edit\n").unwrap();
    let outside = tmp.path().join("plain");
    service_in(&outside);
    let extra = |dir: &Path| format!("    dir: {}\n", dir.display());
    let (in_git, plain) = (extra(&repo.join("svc")), extra(&outside));
    let spec = write_spec(
        tmp.path(),
        &[
            PyRuntime {
                name: "tracked",
                env: &[],
                extra: &in_git,
            },
            PyRuntime {
                name: "untracked",
                env: &[],
                extra: &plain,
            },
        ],
        &format!(
            "workload: {{ method: GET, path: /work/16, expect: {{ status: 200 }} }}\n\
             axes: {{ concurrency: [1] }}\nload: {{ timeout: 2s }}\nrepeats: 1\n\
             warmup: {{ service: 0s, cell: 100ms }}\nmeasure: {{ duration: 200ms }}\n\
             results: {}\n{QUIET_HOST}",
            tmp.path().join("results").display()
        ),
    );
    let out = runner_within(Duration::from_secs(120))
        .args([
            "exec",
            "--label",
            "commit=abc123",
            "--label",
            "ticket=<b>PERF-7</b>",
        ])
        .arg(&spec)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let run = run_dir(tmp.path());
    let env: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("environment.json")).unwrap())
            .unwrap();
    assert_eq!(
        env["labels"],
        serde_json::json!({ "commit": "abc123", "ticket": "<b>PERF-7</b>" })
    );
    assert_eq!(
        env["sources"],
        serde_json::json!({ "tracked": {
            "commit": head, "describe": "v1.4.0", "subject": "serve /work faster", "dirty": true
        } })
    );
    // The report says what the run measured, near its top.
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(
        md.contains("Labels: `commit=abc123`, `ticket=<b>PERF-7</b>`."),
        "{md}"
    );
    let source = format!(
        "Sources: tracked at `v1.4.0` ({}, with uncommitted changes).",
        &head[..12]
    );
    assert!(md.contains(&source), "{md}");
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(
        html.contains("<code>ticket=&lt;b&gt;PERF-7&lt;&#x2f;b&gt;</code>"),
        "{html}"
    );
    assert!(!html.contains("<b>PERF-7</b>"));
}

#[test]
fn a_label_that_is_not_key_equals_value_is_refused_before_anything_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let out = runner_within(Duration::from_secs(30))
        .args(["exec", "--label", "abc123"])
        .arg(tmp.path().join("never-read.yaml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("`abc123` is not KEY=VALUE (e.g. --label commit=abc123)"),
        "{err}"
    );
    assert!(!tmp.path().join("results").exists());
}
