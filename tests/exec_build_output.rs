//! `runner exec` with a start command that the build produces outside the
//! service folder (`build: [go build -o /srv/bench/server ...]`,
//! `start: /srv/bench/server`): the start executable does not exist before
//! the build, so it is checked after the build, not taken for a missing
//! toolchain. The builds here are tiny `sh` scripts writing a start script
//! (which runs the fixture service) into a temp folder.
mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use common::*;

/// Writes `<dir>/svc/build.sh`: it writes, at the path given as `$1`, an
/// executable script starting the fixture service. Returns the service folder.
fn service_folder(dir: &Path) -> PathBuf {
    let svc = dir.join("svc");
    std::fs::create_dir_all(&svc).unwrap();
    std::fs::write(
        svc.join("build.sh"),
        format!(
            "mkdir -p \"$(dirname \"$1\")\"\n\
             printf '#!/bin/sh\\nexec python3 %s\\n' '{}' > \"$1\"\n\
             chmod +x \"$1\"\n",
            fixtures().join("service.py").display()
        ),
    )
    .unwrap();
    svc
}

/// A runtime block over the folder of [`service_folder`] whose build writes
/// `built` and whose start is `start`; `extra` lines go at its end.
fn built_runtime(dir: &Path, name: &str, built: &Path, start: &Path, extra: &str) -> String {
    format!(
        "  {name}:\n    dir: {svc}\n    build: [\"sh build.sh {built}\"]\n    start: {start}\n\
         \x20   health: {{ path: /health, timeout: 10s, interval: 50ms }}\n\
         \x20   stop: {{ signal: TERM, grace: 3s }}\n    env: {{ PID_FILE: {pids} }}\n{extra}",
        svc = service_folder(dir).display(),
        built = built.display(),
        start = start.display(),
        pids = dir.join(format!("pids-{name}")).display(),
    )
}

/// Writes `dir/spec.yaml` with `runtimes` (YAML blocks) and the small matrix.
fn write(dir: &Path, runtimes: &[String]) -> PathBuf {
    let spec = dir.join("spec.yaml");
    std::fs::write(
        &spec,
        format!(
            "experiment: {{ name: exec-test, title: build output, description: start built outside dir }}\n\
             runtimes:\n{}{SMALL_MATRIX}",
            runtimes.concat()
        ),
    )
    .unwrap();
    spec
}

fn exec_spec(spec: &Path, code: i32) -> Output {
    let out = runner().arg("exec").arg(spec).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn assert_no_leftovers(dir: &Path) {
    let pids = all_pids(dir);
    assert!(!pids.is_empty(), "the services recorded their pids");
    let alive = wait_all_gone(&pids, Duration::from_secs(5));
    assert!(alive.is_empty(), "processes survived: {alive:?}");
}

#[test]
fn a_start_executable_the_build_writes_outside_the_service_folder_is_built_then_run() {
    let tmp = tempfile::tempdir().unwrap();
    let server = tmp.path().join("srv/bench/server");
    // `artifact:` too: before the fix this made the whole run a preflight error.
    let artifact = format!("    artifact: {}\n", server.display());
    let spec = write(
        tmp.path(),
        &[built_runtime(
            tmp.path(),
            "built",
            &server,
            &server,
            &artifact,
        )],
    );
    assert!(!server.exists(), "only the build writes it");

    exec_spec(&spec, 0);
    let run = run_dir(tmp.path());
    let row = configuration(&run, "built");
    assert_eq!(row["status"], "ran", "{row:?}");
    assert_eq!(row["build_cached"], "false", "{row:?}");
    let rows = measurements(&run);
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert!(rows.iter().all(|r| r["status"] == "ok"), "{rows:?}");
    assert_no_leftovers(tmp.path());
}

#[test]
fn a_build_that_does_not_write_the_start_executable_skips_its_runtime_naming_the_build() {
    let tmp = tempfile::tempdir().unwrap();
    let server = tmp.path().join("srv/bench/server");
    let elsewhere = tmp.path().join("srv/bench/serv");
    let fine = format!(
        "  fine:\n    dir: {}\n    start: python3 service.py\n\
         \x20   health: {{ path: /health, timeout: 10s, interval: 50ms }}\n\
         \x20   env: {{ PID_FILE: {} }}\n",
        fixtures().display(),
        tmp.path().join("pids-fine").display()
    );
    let spec = write(
        tmp.path(),
        &[
            built_runtime(tmp.path(), "misbuilt", &elsewhere, &server, ""),
            fine,
        ],
    );

    // `fine` is measured; a skipped runtime makes the exit 1.
    let out = exec_spec(&spec, 1);
    let run = run_dir(tmp.path());
    let row = configuration(&run, "misbuilt");
    assert_eq!(row["status"], "skipped", "{row:?}");
    let reason = &row["reason"];
    let log = run.join("logs/build-misbuilt.log");
    for part in [
        "runtime misbuilt".to_string(),
        format!("`{}`", server.display()),
        format!("`sh build.sh {}`", elsewhere.display()),
        log.display().to_string(),
    ] {
        assert!(reason.contains(&part), "{part:?} not in {reason:?}");
    }
    assert!(!reason.contains("toolchain missing"), "{reason:?}");
    assert!(elsewhere.exists(), "the build ran before the check");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("SKIP misbuilt"), "{stderr}");
    let rows = measurements(&run);
    assert_eq!(rows.len(), 4, "only `fine` was measured: {rows:?}");
    assert!(rows.iter().all(|r| r["runtime"] == "fine"), "{rows:?}");
    assert_no_leftovers(tmp.path());
}
