//! A control measured in the same run, end to end: a repository made by
//! the test holds the fixture service and the wait each /work request
//! costs; the spec's `control` is built from the tag `v1` (`source: { git:
//! v1 }`, exported by the plan), its `candidate` from the work tree, and
//! `controls:` judges one against the other. An unchanged candidate is not
//! paged on three nights in a row; a candidate whose commit makes it about
//! 25% slower pages the same night
//! (exit 1), naming the configuration, both commits and the run's labels, with no history at
//! all; `runner history` then follows the candidate/control ratio as a
//! series of its own; a revision the repository lacks is a plan error at
//! its field.
mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::*;

/// One configuration, enough repeats to judge a ratio inside one run.
const NIGHT: &str = "workload: { method: GET, path: /work/16, expect: { status: 200 } }\n\
    axes: { concurrency: [1] }\nload: { mode: closed, timeout: 2s }\nrepeats: 6\n\
    warmup: { service: 100ms, cell: 100ms }\nmeasure: { duration: 300ms }\n\
    sample: { interval: 50ms }\ncontrols: { candidate: control }\n";

/// repo/svc: the fixture service waiting 2 ms per /work request, committed
/// and tagged `v1`.
fn repository(tmp: &Path) -> PathBuf {
    let repo = tmp.join("repo");
    service_in(&repo.join("svc"));
    std::fs::write(repo.join("svc/wait.us"), "2000\n").unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "serve /work"]);
    git(&repo, &["tag", "v1"]);
    repo
}

fn commit(repo: &Path, file: &str, text: &str, subject: &str) -> String {
    std::fs::write(repo.join(file), text).unwrap();
    git(repo, &["add", "."]);
    git(repo, &["commit", "-q", "-m", subject]);
    git(repo, &["rev-parse", "HEAD"])
}

/// The spec: `candidate` from the work tree, `control` from `control_rev`.
fn spec(tmp: &Path, repo: &Path, control_rev: &str) -> PathBuf {
    let dir = format!("    dir: {}\n", repo.join("svc").display());
    let control = format!("{dir}    source: {{ git: {control_rev} }}\n");
    write_spec(
        tmp,
        &[
            PyRuntime {
                name: "candidate",
                env: &[("WAIT_FILE", "wait.us")],
                extra: &dir,
            },
            PyRuntime {
                name: "control",
                env: &[("WAIT_FILE", "wait.us")],
                extra: &control,
            },
        ],
        &format!(
            "{NIGHT}results: {}\n{QUIET_HOST}",
            tmp.join("results").display()
        ),
    )
}

fn nightly(spec: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = runner_within(Duration::from_secs(300))
        .arg("nightly")
        .arg(spec)
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), text)
}

/// `runner compare --baseline control RUN`.
fn compare_against_control(run: &Path) -> std::process::Output {
    runner_within(Duration::from_secs(60))
        .args(["compare", "--baseline", "control"])
        .arg(run)
        .output()
        .unwrap()
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_slower_commit_pages_the_same_night_against_its_control_and_an_unchanged_one_does_not() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repository(tmp.path());
    let v1 = git(&repo, &["rev-parse", "v1"]);
    let docs = commit(
        &repo,
        "svc/README",
        "how to run it\n",
        "document the service",
    );
    let spec = spec(tmp.path(), &repo, "v1");

    let plan = runner_within(Duration::from_secs(60))
        .arg("plan")
        .arg(&spec)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&plan.stdout);
    assert!(plan.status.success(), "{shown}");
    assert!(
        shown.contains("source  git v1 = v1 (serve /work)"),
        "{shown}"
    );
    assert!(
        shown.contains("control: candidate is judged against control"),
        "{shown}"
    );

    // Night 1: the candidate's service is the control's; no history at all.
    let (code, stderr) = nightly(&spec, &[]);
    assert!(
        matches!(code, Some(0 | 3)),
        "an unchanged candidate is never paged: {stderr}"
    );
    let run = newest_run(tmp.path());
    let exported = tmp
        .path()
        .join(format!("results/exec-test/.sources/{v1}/svc"));
    assert!(exported.join("service.py").is_file());
    assert!(!exported.join("README").exists(), "v1 has no README");
    let plan_json = json(&run.join("plan.json"));
    assert_eq!(plan_json["controls"][0]["candidate"], "candidate");
    assert_eq!(plan_json["controls"][0]["control"], "control");
    // Every other round the control first: a trend over the night reaches both alike.
    assert_eq!(plan_json["order"], "alternating");
    let environment = json(&run.join("environment.json"));
    assert_eq!(environment["sources"]["control"]["commit"], v1.as_str());
    assert_eq!(environment["sources"]["candidate"]["commit"], docs.as_str());
    let verdict = json(&run.join("verdict.json"));
    assert_eq!(verdict["basis"], "control");
    assert_eq!(verdict["comparison"]["cells"].as_array().unwrap().len(), 1);
    assert_eq!(
        verdict["controls"][0]["control_source"]["commit"],
        v1.as_str()
    );

    // Nights 2 and 3: still unchanged; three unchanged nights in a row page nothing.
    for _ in 2..=3 {
        std::thread::sleep(Duration::from_millis(1100));
        let (code, stderr) = nightly(&spec, &[]);
        assert!(
            matches!(code, Some(0 | 3)),
            "an unchanged candidate is never paged: {stderr}"
        );
    }

    // Night 4: the candidate's commit waits 2.8 ms instead of 2: about 25%
    // less throughput at one connection.
    std::thread::sleep(Duration::from_millis(1100));
    commit(&repo, "svc/wait.us", "2800\n", "wait longer on /work");
    let (code, stderr) = nightly(&spec, &["--label", "build=42"]);
    assert_eq!(code, Some(1), "{stderr}");
    for words in [
        "REGRESSION against the control measured in the same run",
        "candidate/concurrency=1 throughput",
        "candidate at v1-2-g",
        "\"wait longer on /work\" against control at v1 \"serve /work\"",
        "[run labelled build=42]",
    ] {
        assert!(stderr.contains(words), "{words}: {stderr}");
    }
    let run2 = newest_run(tmp.path());
    assert_ne!(run, run2);
    let md = std::fs::read_to_string(run2.join("verdict.md")).unwrap();
    assert!(
        md.starts_with(
            "judged against the controls measured in the same run: slower than its control"
        ),
        "{md}"
    );
    let report = std::fs::read_to_string(run2.join("report.md")).unwrap();
    assert!(report.contains("slower than its control"), "{report}");

    // History follows the candidate/control ratio as a series of its own.
    let out = runner_within(Duration::from_secs(120))
        .arg("history")
        .arg(tmp.path().join("results/exec-test"))
        .output()
        .unwrap();
    let history = String::from_utf8_lossy(&out.stdout);
    let ratio_row = history
        .lines()
        .find(|l| l.starts_with("| `candidate vs control/concurrency=1` | throughput |"))
        .unwrap_or_else(|| panic!("no ratio series: {history}"));
    let newest = ratio_row.split(" | ").nth(2).unwrap();
    assert!(newest.ends_with('x'), "a ratio, not req/s: {ratio_row}");

    // The same judgement by hand, from the run directory alone.
    let out = compare_against_control(&run2);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(
        shown.contains("none: both sides were measured in the same run"),
        "{shown}"
    );
    assert!(shown.contains("| `candidate/concurrency=1` |"), "{shown}");
}

#[test]
fn a_run_without_controls_is_refused_by_the_control_baseline_with_what_to_do() {
    let run = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runs/base");
    let out = compare_against_control(&run);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the run's plan names no control"),
        "{stderr}"
    );
    assert!(
        stderr.contains("controls: { CANDIDATE: CONTROL }"),
        "{stderr}"
    );
}

#[test]
fn a_revision_the_repository_lacks_is_a_plan_error_at_its_field() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repository(tmp.path());
    let spec = spec(tmp.path(), &repo, "v9");
    let out = runner_within(Duration::from_secs(60))
        .arg("plan")
        .arg(&spec)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("runtimes.control.source.git"), "{stderr}");
    assert!(
        stderr.contains("`v9` is not a commit of the repository"),
        "{stderr}"
    );
    assert!(
        !tmp.path()
            .join("results/exec-test/.sources")
            .join("v9")
            .exists()
    );
}
