//! `runner verify` end to end: the real binary against tiny python3
//! services on 127.0.0.1 (tests/fixtures/verify/contract_service.py).
use std::path::{Path, PathBuf};
use std::process::Output;

mod common;

use common::{assert_golden, runner_within};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify")
}

/// A runtime running the fixture service with extra env (`K: V` pairs).
fn service(name: &str, env: &str) -> String {
    format!(
        "  {name}:\n    dir: {dir}\n    start: python3 contract_service.py\n    \
         env: {{ LANGUAGE: {name}{env} }}\n    \
         health: {{ path: /health, timeout: 10s, interval: 50ms }}\n    \
         stop: {{ grace: 3s }}\n",
        dir = fixtures().display()
    )
}

const VERIFY: &str = r#"verify:
  - { name: health, path: /health, compare: [status, runtimeInfo.cpus] }
  - { name: generated-7, path: /api/generated/7, compare: [input, hash, workFactor, workScore] }
  - { name: strings-gruesse, path: "/api/strings/Gr%C3%BC%C3%9Fe", compare: [input, uppercase, reversed, hash, workScore] }
  - { name: bad-size, path: /api/generated/0, expect_status: 400 }
  - { name: bad-size-plus, path: /api/generated/+7, expect_status: 400 }
  - { name: unknown, path: /nope, expect_status: 404 }
  - { name: post, method: POST, path: /api/generated/7, expect_status: 405 }
"#;

/// Writes a spec with `runtimes` (YAML lines) and `verify` into `dir`.
fn spec(dir: &Path, runtimes: &str, verify: &str) -> PathBuf {
    let text = format!(
        "experiment: {{ name: verify-test, title: t, description: t }}\n\
         results: results\n\
         env: {{ WORK_FACTOR: \"3\" }}\n\
         runtimes:\n{runtimes}\
         workload: {{ path: /health }}\n\
         load: {{ mode: closed, connections: 1, timeout: 5s }}\n\
         measure: {{ duration: 1s }}\n\
         {verify}"
    );
    let path = dir.join("spec.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

fn verify(spec: &Path, args: &[&str]) -> (i32, String, String) {
    let out: Output = runner_within(std::time::Duration::from_secs(60))
        .arg("verify")
        .arg(spec)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The single verify folder the run created under `<tmp>/results/verify-test`.
fn verify_folder(tmp: &Path) -> PathBuf {
    let root = tmp.join("results/verify-test");
    let folders: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("verify-")
        })
        .collect();
    assert_eq!(folders.len(), 1, "{folders:?}");
    folders.into_iter().next().unwrap()
}

/// Stable text: timings and ports replaced.
fn normalise(text: &str) -> String {
    let timing = regex::Regex::new(r"\d+\.\d+s").unwrap();
    let port = regex::Regex::new(r"port \d+").unwrap();
    let text = timing.replace_all(text, "N.Ns");
    port.replace_all(&text, "port P").into_owned()
}

/// `tests/fixtures/verify/<name>` holds the expected output.
fn golden(name: &str, actual: &str) {
    assert_golden(fixtures().join(name), actual);
}

#[test]
fn two_services_that_agree_are_equivalent() {
    let tmp = tempfile::tempdir().unwrap();
    let runtimes = service("alpha", "") + &service("beta", "");
    let path = spec(tmp.path(), &runtimes, VERIFY);
    let (code, out, err) = verify(&path, &[]);
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    golden("agree.golden", &normalise(&out));

    let folder = verify_folder(tmp.path());
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(folder.join("verify.json")).unwrap()).unwrap();
    assert_eq!(report["equivalent"], true);
    assert_eq!(report["runtimes"][1]["answers"][3]["status"], 400);
    let log = std::fs::read_to_string(folder.join("logs/alpha.log")).unwrap();
    assert!(log.contains("contract_service.py: listening"), "{log}");
    assert!(
        err.contains("verify: beta: starting on 127.0.0.1:"),
        "{err}"
    );
}

#[test]
fn a_service_with_another_work_score_fails_naming_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    let runtimes = service("alpha", "")
        + &service("broken", ", WORK_SCORE_OFFSET: \"1\"")
        + &service("gamma", "");
    let path = spec(tmp.path(), &runtimes, VERIFY);
    let (code, out, err) = verify(&path, &[]);
    assert_eq!(code, 1, "stdout:\n{out}\nstderr:\n{err}");
    golden("differs.golden", &normalise(&out));
}

#[test]
fn a_wrong_status_is_named_with_the_request_to_replay() {
    let tmp = tempfile::tempdir().unwrap();
    let runtimes = service("alpha", "") + &service("lax", ", LAX_SIZE: \"1\"");
    let path = spec(tmp.path(), &runtimes, VERIFY);
    let (code, out, err) = verify(&path, &[]);
    assert_eq!(code, 1, "stdout:\n{out}\nstderr:\n{err}");
    golden("status.golden", &normalise(&out));
}

#[test]
fn a_service_that_never_becomes_healthy_is_reported_with_its_log() {
    let tmp = tempfile::tempdir().unwrap();
    let mut sick = service("sick", ", NEVER_HEALTHY: \"1\"");
    sick = sick.replace("timeout: 10s", "timeout: 1s");
    let runtimes = service("alpha", "") + &sick;
    let path = spec(tmp.path(), &runtimes, VERIFY);
    let (code, out, err) = verify(&path, &[]);
    assert_eq!(code, 1, "stdout:\n{out}\nstderr:\n{err}");
    // Stopped all the same, its port confirmed free for the next runtime.
    let sick_line = out.lines().find(|l| l.starts_with("sick ")).unwrap();
    assert!(
        sick_line.contains("FAILED at start: nothing to build; stopped: graceful")
            && sick_line.ends_with(" free"),
        "{out}"
    );
    assert!(
        out.contains("- sick: start failed: runtime sick: no 200 from http://127.0.0.1:"),
        "{out}"
    );
    assert!(out.contains("last answer: status 503"), "{out}");
    let log = verify_folder(tmp.path()).join("logs/sick.log");
    assert!(out.contains(&format!("  log: {}", log.display())), "{out}");
    // The healthy one was still checked.
    assert!(out.contains("alpha  ran:"), "{out}");
}

#[test]
fn a_failed_build_is_a_difference_with_its_log() {
    let tmp = tempfile::tempdir().unwrap();
    let broken = service("unbuilt", "").replace(
        "    start:",
        "    build: [\"echo compiling; echo 'error: no such file' >&2; exit 3\"]\n    start:",
    );
    let path = spec(tmp.path(), &(service("alpha", "") + &broken), VERIFY);
    let (code, out, _) = verify(&path, &[]);
    assert_eq!(code, 1, "{out}");
    let log = verify_folder(tmp.path()).join("logs/build-unbuilt.log");
    assert!(
        out.contains("- unbuilt: build failed: runtime unbuilt: command `echo compiling"),
        "{out}"
    );
    assert!(out.contains("failed (exit code 3)"), "{out}");
    assert!(out.contains("error: no such file"), "{out}");
    assert!(out.contains(&format!("  log: {}", log.display())), "{out}");
}

#[test]
fn a_missing_toolchain_is_skipped_and_fails_unless_allowed() {
    let tmp = tempfile::tempdir().unwrap();
    let ghost = service("ghost", "").replace(
        "python3 contract_service.py",
        "no-such-tool-for-runner-verify serve",
    );
    let path = spec(tmp.path(), &(service("alpha", "") + &ghost), VERIFY);
    let (code, out, _) = verify(&path, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "- ghost: skipped, not checked: `no-such-tool-for-runner-verify` is not on PATH"
        ),
        "{out}"
    );
    let (code, out, _) = verify(&path, &["--allow-skipped"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("ghost  SKIPPED: `no-such-tool-for-runner-verify` is not on PATH"),
        "{out}"
    );
    assert!(
        out.contains("(1 skipped runtime(s) allowed by --allow-skipped)"),
        "{out}"
    );
}

/// `service(name)` built by a build that writes its start script at `writes`
/// (outside the service folder), started by running `start`.
fn built_service(name: &str, writes: &Path, start: &Path) -> String {
    let build = format!(
        "    build: [\"mkdir -p {dir} && printf '#!/bin/sh\\\\nexec python3 {service}\\\\n' > {writes} && chmod +x {writes}\"]\n",
        dir = writes.parent().unwrap().display(),
        service = fixtures().join("contract_service.py").display(),
        writes = writes.display(),
    );
    service(name, "").replace(
        "    start: python3 contract_service.py\n",
        &format!("{build}    start: {}\n", start.display()),
    )
}

#[test]
fn a_start_executable_the_build_writes_is_checked_after_the_build() {
    let tmp = tempfile::tempdir().unwrap();
    let server = tmp.path().join("srv/alpha-server");
    let elsewhere = tmp.path().join("srv/misbuilt-elsewhere");
    let runtimes = built_service("alpha", &server, &server)
        + &service("beta", "")
        + &built_service(
            "misbuilt",
            &elsewhere,
            &tmp.path().join("srv/misbuilt-server"),
        );
    let path = spec(tmp.path(), &runtimes, VERIFY);
    let (code, out, err) = verify(&path, &[]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("alpha ") && l.contains("ran: built in")),
        "alpha is built, then checked: {out}"
    );
    assert!(
        out.contains("- misbuilt: build failed: runtime misbuilt: `")
            && out.contains("misbuilt-server` (run by `start`) does not exist or is not executable after the build"),
        "{out}"
    );
}

#[test]
fn only_and_json_select_runtimes_and_format() {
    let tmp = tempfile::tempdir().unwrap();
    let runtimes = service("alpha", "") + &service("broken", ", WORK_SCORE_OFFSET: \"7\"");
    let path = spec(tmp.path(), &runtimes, VERIFY);
    let (code, out, err) = verify(&path, &["--only", "runtime=alpha", "--format", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["equivalent"], true);
    assert_eq!(report["verdict"]["runtimes"], serde_json::json!(["alpha"]));
    assert_eq!(report["requests"].as_array().unwrap().len(), 7);
}

#[test]
fn spec_problems_and_a_missing_verify_list_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let path = spec(tmp.path(), &service("alpha", ""), "");
    let (code, _, err) = verify(&path, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("the spec has no `verify` requests"), "{err}");

    let bad = spec(
        tmp.path(),
        &service("alpha", ""),
        "verify:\n  - { name: x, path: /health, expect_stauts: 200 }\n",
    );
    let (code, _, err) = verify(&bad, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("spec.yaml:"), "{err}");
    assert!(err.contains("expect_status"), "{err}");
    assert!(!tmp.path().join("results").exists());

    let nowhere = service("alpha", "").replace(
        &fixtures().display().to_string(),
        "/nonexistent/runner-verify-dir",
    );
    let (code, _, err) = verify(&spec(tmp.path(), &nowhere, VERIFY), &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("runtime alpha: directory /nonexistent/runner-verify-dir does not exist"),
        "{err}"
    );
}
