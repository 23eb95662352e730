//! A cgroup per service start, seen from outside: a daemon that escapes its
//! session is still ended, limits hold, an OOM kill is reported as such,
//! and limits on a host without cgroups are refused before anything starts.
//!
//! Tests that need writable cgroups (root; CI runs as root) print why they
//! skip elsewhere.
mod common;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use common::*;

/// `Some(why)` when this host gives the runner no writable cgroups.
fn no_cgroups() -> Option<String> {
    let host = runner::cgroup::host();
    (host.mode == runner::cgroup::Mode::None).then(|| host.why.clone())
}

macro_rules! needs_cgroups {
    () => {
        if let Some(why) = no_cgroups() {
            eprintln!("skipped: this test needs writable cgroups ({why})");
            return;
        }
    };
}

/// A spec over `cgroup_service.py` in `mode`, one runtime `svc` on `port`,
/// with `runtime_extra` (YAML lines indented by 4) and `rest` after the runtimes.
fn spec(dir: &Path, mode: &str, port: u16, runtime_extra: &str, rest: &str) -> PathBuf {
    let yaml = format!(
        "experiment: {{ name: exec-test, title: cgroup test }}\n\
         runtimes:\n  svc:\n    dir: {fixtures}\n    start: python3 cgroup_service.py\n    port: {port}\n\
         \x20   health: {{ path: /health, timeout: 10s, interval: 50ms }}\n\
         \x20   stop: {{ signal: TERM, grace: 1s }}\n\
         \x20   env: {{ MODE: {mode}, PID_FILE: {pids} }}\n{runtime_extra}\
         workload: {{ method: GET, path: \"/work/16\", expect: {{ status: 200 }} }}\n\
         load: {{ mode: closed, timeout: 2s }}\n{rest}",
        fixtures = fixtures().display(),
        pids = dir.join("pids-svc").display(),
    );
    let path = dir.join("spec.yaml");
    std::fs::write(&path, yaml).unwrap();
    path
}

const SHORT: &str = "axes: { concurrency: [1] }\nrepeats: 1\nwarmup: { service: 0s, cell: 0s }\n\
                     measure: { duration: 300ms }\nsample: { interval: 50ms }\n";
const LONG: &str = "axes: { concurrency: [1, 2] }\nrepeats: 2\nwarmup: { service: 0s, cell: 0s }\n\
                    measure: { duration: 2s }\nsample: { interval: 50ms }\n";

fn start(spec: &Path) -> Child {
    runner()
        .args(["exec", spec.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for the service and its daemon (2 pids) to be up; returns them.
fn daemon_up(dir: &Path) -> Vec<i32> {
    let file = dir.join("pids-svc");
    assert!(
        wait_for(Duration::from_secs(20), || pids_in(&file).len() >= 2),
        "the service and its daemon started: {:?}",
        pids_in(&file)
    );
    let pids = pids_in(&file);
    assert!(pids.iter().all(|&p| pid_alive(p)), "{pids:?}");
    pids
}

/// Nothing of the service left: every pid gone and its port free, within a bounded wait.
fn assert_nothing_left(pids: &[i32], port: u16) {
    let alive = wait_all_gone(pids, Duration::from_secs(10));
    assert!(alive.is_empty(), "survived the run: {alive:?}");
    assert!(
        wait_for(Duration::from_secs(5), || runner::service::port_is_free(port)),
        "port {port} still held"
    );
}

#[test]
fn a_double_forking_setsid_daemon_is_gone_after_a_normal_end() {
    needs_cgroups!();
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let spec = spec(tmp.path(), "daemon", port, "", SHORT);
    let out = runner_within(Duration::from_secs(60))
        .args(["exec", spec.to_str().unwrap()])
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{text}");
    let pids = pids_in(&tmp.path().join("pids-svc"));
    assert_eq!(pids.len(), 2, "service and daemon recorded: {pids:?}");
    assert_nothing_left(&pids, port);
    let rows = measurements(&run_dir(tmp.path()));
    assert_eq!(rows[0]["status"], "ok", "{rows:?}");
}

#[test]
fn a_double_forking_setsid_daemon_is_gone_after_sigint_of_the_runner() {
    needs_cgroups!();
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut child = start(&spec(tmp.path(), "daemon", port, "", LONG));
    let pids = daemon_up(tmp.path());
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert!(wait_for(Duration::from_secs(30), || child.try_wait().unwrap().is_some()));
    assert_eq!(child.wait().unwrap().code(), Some(130));
    assert_nothing_left(&pids, port);
}

#[test]
fn a_double_forking_setsid_daemon_is_gone_after_sigkill_of_the_runner() {
    needs_cgroups!();
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut child = start(&spec(tmp.path(), "daemon", port, "", LONG));
    let pids = daemon_up(tmp.path());
    child.kill().unwrap();
    assert_eq!(child.wait().unwrap().signal(), Some(libc::SIGKILL));
    assert_nothing_left(&pids, port);
}
