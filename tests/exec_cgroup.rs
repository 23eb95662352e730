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
         load: {{ mode: closed, timeout: 2s }}\n{QUIET_HOST}{rest}",
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
        wait_for(Duration::from_secs(5), || runner::service::port_is_free(
            port
        )),
        "port {port} still held"
    );
}

#[test]
fn a_double_forking_setsid_daemon_is_gone_after_a_normal_end() {
    needs_cgroups!();
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let spec = spec(tmp.path(), "daemon", port, "", SHORT);
    exec_ok(&spec, Duration::from_secs(60));
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
    assert!(wait_for(Duration::from_secs(30), || child
        .try_wait()
        .unwrap()
        .is_some()));
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

/// cgroup CPU seconds per second between the first and last sample of a cell.
fn cgroup_cpu_rate(samples: &Path) -> f64 {
    let rows = read_rows(samples);
    let (first, last) = (rows.first().unwrap(), rows.last().unwrap());
    let num = |r: &std::collections::HashMap<String, String>, k: &str| -> f64 {
        r[k].parse()
            .unwrap_or_else(|_| panic!("{k} = {:?} in {}", r[k], samples.display()))
    };
    (num(last, "cgroup_cpu_s") - num(first, "cgroup_cpu_s"))
        / (num(last, "t_s") - num(first, "t_s"))
}

#[test]
fn a_cpu_limit_of_half_a_core_holds_a_busy_service_there() {
    needs_cgroups!();
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let rest = "axes: { concurrency: [1] }\nrepeats: 1\nwarmup: { service: 0s, cell: 0s }\n\
                measure: { duration: 3s }\nsample: { interval: 100ms }\n";
    let spec = spec(
        tmp.path(),
        "spin",
        port,
        "    limits: { cpus: 0.5 }\n",
        rest,
    );
    exec_ok(&spec, Duration::from_secs(90));
    let run = run_dir(tmp.path());
    let samples = run.join("samples/svc__concurrency=1__r1.csv");
    let rate = cgroup_cpu_rate(&samples);
    // Two busy processes want 2 cores; the quota (50 ms per 100 ms period)
    // makes the bound exact: at most one period's quota above 0.5 over 3 s.
    assert!(
        rate <= 0.55,
        "the cgroup used {rate:.3} of a core under a 0.5 limit"
    );
    // The low bound only shows the service spun. The scheduler guarantees
    // it: the service's cgroup is one entity of equal weight among the
    // host's runnable ones, so on 2 CPUs it gets 0.1 of a core as long as
    // fewer than 20 others run (scripts/test-busy.sh adds two).
    assert!(
        rate >= 0.1,
        "the busy service used only {rate:.3} of a core: was it spinning?"
    );
    let row = &measurements(&run)[0];
    let cpu: f64 = row["cgroup_cpu_s"].parse().unwrap();
    assert!(cpu > 0.3 && cpu < 0.55 * 3.5, "{row:?}");
    assert!(
        row["cgroup_tasks_max"].parse::<u32>().unwrap() >= 3,
        "{row:?}"
    );
    assert!(
        row["service_pss_max_bytes"].parse::<u64>().unwrap() > 0,
        "{row:?}"
    );
    let conf = configuration(&run, "svc");
    assert_eq!(conf["limits"], "cpus=0.5", "{conf:?}");
    assert!(conf["limits_seen"].contains("quota 0.5 CPU"), "{conf:?}");
    assert_nothing_left(&pids_in(&tmp.path().join("pids-svc")), port);
}

#[test]
fn a_memory_limit_below_the_need_ends_in_a_reported_oom_kill() {
    needs_cgroups!();
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let rest = "axes: { concurrency: [1] }\nrepeats: 1\nwarmup: { service: 0s, cell: 0s }\n\
                measure: { duration: 3s }\nsample: { interval: 100ms }\nfaults: { max_restarts: 0 }\n";
    let extra = "    limits: { memory: 64MiB }\n    env: { MODE: grow, GROW_MIB: \"256\", GROW_AFTER: \"20\" }\n";
    let yaml_spec = spec(tmp.path(), "grow", port, "", rest);
    // The runtime's env with the growth settings (the helper writes MODE only).
    let yaml = std::fs::read_to_string(&yaml_spec).unwrap().replace(
        "    env: { MODE: grow, ",
        &format!(
            "{}    env: {{ MODE: grow, GROW_MIB: \"256\", GROW_AFTER: \"20\", ",
            &extra[..extra.find("    env").unwrap()]
        ),
    );
    std::fs::write(&yaml_spec, yaml).unwrap();
    let (_, text) = exec_within(&yaml_spec, Duration::from_secs(90));
    let run = run_dir(tmp.path());
    let rows = measurements(&run);
    assert_eq!(rows.len(), 1, "{text}");
    assert_eq!(rows[0]["status"], "failed", "{rows:?}");
    let reason = &rows[0]["reason"];
    assert!(
        reason.contains("OOM-killed") && reason.contains("memory limit of 64MiB"),
        "the cell's reason names the OOM kill and the limit: {reason}"
    );
    let conf = configuration(&run, "svc");
    assert!(
        conf["limits_seen"].contains("memory limit 64MiB"),
        "{conf:?}"
    );
    assert_nothing_left(&pids_in(&tmp.path().join("pids-svc")), port);
}

#[test]
fn a_limit_as_an_axis_starts_the_service_anew_for_each_value() {
    needs_cgroups!();
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let rest = "axes: { cpus: [0.5, 1], concurrency: [1] }\nrepeats: 1\nlifecycle: { restart: run }\n\
                warmup: { service: 0s, cell: 0s }\nmeasure: { duration: 300ms }\nsample: { interval: 50ms }\n";
    let spec = spec(
        tmp.path(),
        "daemon",
        port,
        "    limits: { cpus: \"{{ cpus }}\" }\n",
        rest,
    );
    exec_ok(&spec, Duration::from_secs(90));
    let run = run_dir(tmp.path());
    let starts = read_rows(&run.join("lifecycle.csv"));
    assert_eq!(
        starts.len(),
        2,
        "one start per limit, even with restart: run: {starts:?}"
    );
    let conf = configuration(&run, "svc");
    assert_eq!(conf["limits"], "cpus=0.5 | cpus=1", "{conf:?}");
    assert!(
        conf["limits_seen"].contains("quota 0.5 CPU")
            && conf["limits_seen"].contains("quota 1 CPU"),
        "{conf:?}"
    );
    assert_nothing_left(&pids_in(&tmp.path().join("pids-svc")), port);
}

/// Runs everywhere: `RUNNER_CGROUP=none` makes the runner see no cgroups.
#[test]
fn limits_on_a_host_without_cgroups_are_refused_before_anything_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let spec = spec(
        tmp.path(),
        "daemon",
        port,
        "    limits: { cpus: 1, memory: 512MiB }\n",
        SHORT,
    );
    let out = runner_within(Duration::from_secs(60))
        .env("RUNNER_CGROUP", "none")
        .args(["exec", spec.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    for field in ["limits.cpus", "limits.memory"] {
        assert!(
            stderr.contains(&format!("runtime svc: `{field}` needs the"))
                && stderr.contains("RUNNER_CGROUP=none")
                && stderr.contains(&format!("or remove `{field}` from runtime svc")),
            "{stderr}"
        );
    }
    assert!(
        pids_in(&tmp.path().join("pids-svc")).is_empty(),
        "nothing was started"
    );
}

#[test]
fn a_limit_that_is_not_a_size_is_an_error_at_its_line_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = spec(
        tmp.path(),
        "daemon",
        free_port(),
        "    limits: { cpus: \"{{ cpus }}\", memory: lots }\n",
        "axes: { cpus: [1, none], concurrency: [1] }\nmeasure: { duration: 1s }\n",
    );
    let out = runner_within(Duration::from_secs(30))
        .args(["validate", spec.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("spec.yaml:10:"),
        "file:line:col of the limits: {stderr}"
    );
    assert!(
        stderr.contains("`limits.memory` is `lots`, not a memory size"),
        "{stderr}"
    );
    assert!(
        stderr.contains("`limits.cpus` is `none`, not a number of CPUs"),
        "{stderr}"
    );
}

#[test]
fn the_cgroup_keeps_the_cpu_of_children_that_exited_during_the_cell() {
    needs_cgroups!();
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let rest = "axes: { concurrency: [1] }\nrepeats: 1\nwarmup: { service: 0s, cell: 0s }\n\
                measure: { duration: 2s }\nsample: { interval: 100ms }\n";
    let spec = spec(tmp.path(), "burst", port, "", rest);
    exec_ok(&spec, Duration::from_secs(90));
    let row = &measurements(&run_dir(tmp.path()))[0];
    let num = |k: &str| -> f64 { row[k].parse().unwrap_or_else(|_| panic!("{k} in {row:?}")) };
    // Every request forked a child that burned 50 ms of CPU and exited.
    let children_cpu = num("requests") * 0.050;
    assert!(num("requests") >= 5.0, "{row:?}");
    let lost_by_the_tree = num("cgroup_cpu_s") - num("service_cpu_s");
    assert!(
        lost_by_the_tree >= 0.8 * children_cpu,
        "the cgroup CPU ({}) should exceed the live-process sum ({}) by the exited children's {children_cpu:.2} s",
        row["cgroup_cpu_s"],
        row["service_cpu_s"]
    );
}
