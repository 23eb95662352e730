//! `runner remote` as a service host, without SSH: the real binary with its
//! stdin and stdout as pipes builds a runtime (its log sent back, the second
//! build found in its cache), starts the fixture service, answers whether it
//! is alive, samples it, sends its log, stops it with grace; and the
//! property a lost connection rests on: when stdin closes while the service
//! runs, every process of the service is gone within seconds.
mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

struct Remote {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Remote {
    fn start(cwd: &Path) -> Remote {
        let mut child = common::runner()
            .arg("remote")
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("runner remote starts");
        Remote {
            stdin: child.stdin.take(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
        }
    }

    /// Sends a service call; returns the `log` answers' text and the last answer.
    fn call(&mut self, call: Value) -> (String, Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{}", json!({ "op": "service", "call": call })).unwrap();
        stdin.flush().unwrap();
        let mut logs = String::new();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "runner remote ended"
            );
            let v: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(v["op"], "service", "{v}");
            let answer = v["answer"].clone();
            if answer["answer"] == "log" && call["call"] == "build" {
                logs.push_str(answer["text"].as_str().unwrap());
                continue;
            }
            return (logs, answer);
        }
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_call(dir: &Path, port: u16, pid_file: &Path) -> Value {
    json!({
        "call": "start", "runtime": "py", "dir": dir.display().to_string(),
        "command": "python3 service.py",
        "env": { "PORT": port.to_string(), "PID_FILE": pid_file.display().to_string(), "HELPER_CHILD": "1" },
        "port": port, "limit_cpus": null, "limit_memory_bytes": null, "log_cap": 1 << 20,
        "health": {
            "check": { "http": "/health" },
            "timeout": { "secs": 10, "nanos": 0 },
            "interval": { "secs": 0, "nanos": 50_000_000 }
        },
        "state_dir": "state"
    })
}

#[test]
fn a_build_is_logged_back_and_cached_by_its_inputs() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir(&src).unwrap();
    std::fs::write(src.join("main.txt"), "sources").unwrap();
    let mut r = Remote::start(tmp.path());
    let build = json!({
        "call": "build", "runtime": "t", "dir": "src",
        "commands": ["echo building-it && cp main.txt out.txt"],
        "env": { "PORT": "1234", "A": "1" }, "artifact": "out.txt", "state_dir": "state"
    });
    let (log, built) = r.call(build.clone());
    assert_eq!(built["answer"], "built", "{built}");
    assert_eq!(built["cached"], false);
    assert_eq!(built["artifact_bytes"], 7);
    assert!(
        log.contains("building-it"),
        "the build's output comes back: {log}"
    );
    assert!(src.join("out.txt").exists());
    let (log, again) = r.call(build);
    assert_eq!(again["cached"], true, "{again}");
    assert!(log.contains("skipped on this host"), "{log}");
    let failing = json!({
        "call": "build", "runtime": "t", "dir": "src", "commands": ["echo broken >&2; exit 3"],
        "env": {}, "artifact": null, "state_dir": "state"
    });
    let (log, failed) = r.call(failing);
    assert_eq!(failed["answer"], "failed", "{failed}");
    assert!(log.contains("broken"), "{log}");
}

#[test]
fn a_service_is_started_sampled_logged_and_stopped_with_grace() {
    let tmp = tempfile::tempdir().unwrap();
    let port = common::free_port();
    let pids = tmp.path().join("pids");
    let mut r = Remote::start(tmp.path());
    let (_, started) = r.call(start_call(&common::fixtures(), port, &pids));
    assert_eq!(started["answer"], "started", "{started}");
    let pid = started["pid"].as_i64().unwrap() as i32;
    assert!(common::pid_alive(pid));
    assert!(started["startup_ms"].as_f64().unwrap() > 0.0);
    let (_, alive) = r.call(json!({ "call": "alive" }));
    assert_eq!(alive["alive"], true, "{alive}");
    let (_, usage) = r.call(json!({ "call": "usage" }));
    assert!(usage["rss_bytes"].as_u64().unwrap() > 0, "{usage}");
    let (_, sampling) = r.call(json!({ "call": "sample_start", "interval_ms": 50 }));
    assert_eq!(sampling["answer"], "sampling");
    std::thread::sleep(Duration::from_millis(300));
    let (_, samples) = r.call(json!({ "call": "sample_stop" }));
    let rows = samples["rows"].as_array().unwrap();
    assert!(rows.len() >= 2, "{samples}");
    assert!(
        rows.iter()
            .all(|row| row["rss_bytes"].as_u64().unwrap() > 0)
    );
    // The service host's own CPU counters over the same span: its idle
    // share is the row's, not the controlling host's.
    let host = &samples["host"];
    assert!(host["cpus"].as_u64().unwrap() >= 1, "{samples}");
    assert_eq!(host["generator_on_it"], false, "{samples}");
    let total = |end: &str| {
        host[end]["total"]["secs"].as_u64().unwrap() as f64
            + host[end]["total"]["nanos"].as_u64().unwrap() as f64 / 1e9
    };
    assert!(total("after") >= total("before"), "{samples}");
    let (_, healthy) = r.call(json!({ "call": "still_healthy", "within_ms": 2000 }));
    assert_eq!(healthy["why_not"], Value::Null, "{healthy}");
    let (_, stopped) = r.call(json!({
        "call": "stop", "signal": libc::SIGTERM, "signal_name": "TERM", "grace_ms": 5000
    }));
    assert_eq!(stopped["answer"], "stopped", "{stopped}");
    assert_eq!(stopped["kind"], "graceful", "{stopped}");
    let all = common::pids_in(&pids);
    assert!(common::wait_all_gone(&all, Duration::from_secs(5)).is_empty());
    let (_, log) = r.call(json!({ "call": "log_from", "from": 0 }));
    assert!(
        log["text"].as_str().unwrap().contains("starting py"),
        "the log is readable after the stop: {log}"
    );
    let (_, none) = r.call(json!({ "call": "alive" }));
    assert_eq!(
        none["answer"], "failed",
        "no service after the stop: {none}"
    );
}

#[test]
fn closing_stdin_while_the_service_runs_stops_all_of_it() {
    let tmp = tempfile::tempdir().unwrap();
    let port = common::free_port();
    let pids = tmp.path().join("pids");
    let mut r = Remote::start(tmp.path());
    let (_, started) = r.call(start_call(&common::fixtures(), port, &pids));
    assert_eq!(started["answer"], "started", "{started}");
    let all = common::pids_in(&pids);
    assert!(all.len() >= 2, "the service and its helper child: {all:?}");
    // The session drops.
    drop(r.stdin.take());
    let left = common::wait_all_gone(&all, Duration::from_secs(10));
    assert!(
        left.is_empty(),
        "still running after the session closed: {left:?}"
    );
    assert!(common::wait_for(Duration::from_secs(5), || matches!(
        r.child.try_wait(),
        Ok(Some(_))
    )));
}

/// A dependency as the service host runs one: started from its plan (its
/// folder moved to the copy there), checked, its log sent back, stopped with
/// grace and its scratch folder removed; and, started again, killed when the
/// session closes.
#[test]
fn a_dependency_is_started_checked_logged_stopped_and_dies_with_the_session() {
    let tmp = tempfile::tempdir().unwrap();
    let pids = tmp.path().join("pids");
    let spec = format!(
        "experiment: {{ name: remote-dep }}\n\
         dependencies:\n  audit:\n    dir: /not/here\n    start: python3 stats_dependency.py\n    \
         env: {{ PID_FILE: {} }}\n    health: {{ path: /health, timeout: 20s, interval: 50ms }}\n\
         runtimes:\n  a: {{ dir: ., start: ./a }}\n\
         workload: {{ path: /x }}\nload: {{ connections: 1 }}\nmeasure: {{ duration: 1s }}\n",
        pids.display()
    );
    let loaded = runner::spec::from_text(spec, &tmp.path().join("remote-dep.yaml")).unwrap();
    let plan = runner::plan::build(&loaded, &runner::plan::PlanOptions::default()).unwrap();
    let dep = serde_json::to_value(&plan.dependencies[0]).unwrap();
    let start = json!({
        "call": "dependency_start", "plan": dep,
        "dir": common::fixtures().display().to_string(), "state_dir": "state"
    });
    let mut r = Remote::start(tmp.path());
    let (_, started) = r.call(start.clone());
    assert_eq!(started["answer"], "dependency", "{started}");
    let (_, checked) = r.call(json!({ "call": "dependency_check", "name": "audit" }));
    assert_eq!(checked["problem"], Value::Null, "{checked}");
    let (_, log) = r.call(json!({ "call": "log_from", "from": 0, "dependency": "audit" }));
    assert_eq!(log["answer"], "log", "{log}");
    let first = common::pids_in(&pids);
    assert_eq!(first.len(), 1, "{first:?}");
    let (_, stopped) = r.call(json!({ "call": "dependency_stop", "name": "audit" }));
    assert_eq!(stopped["problem"], Value::Null, "{stopped}");
    assert!(common::wait_all_gone(&first, Duration::from_secs(5)).is_empty());
    let (_, gone) = r.call(json!({ "call": "dependency_check", "name": "audit" }));
    assert_eq!(gone["answer"], "failed", "a stopped dependency: {gone}");
    assert!(
        gone["message"].as_str().unwrap().contains("is not running"),
        "{gone}"
    );
    // Started again, then the session drops: the far side kills it.
    let (_, again) = r.call(start);
    assert_eq!(again["answer"], "dependency", "{again}");
    let second: Vec<i32> = common::pids_in(&pids)
        .into_iter()
        .filter(|p| !first.contains(p))
        .collect();
    assert_eq!(second.len(), 1, "{second:?}");
    drop(r.stdin.take());
    let left = common::wait_all_gone(&second, Duration::from_secs(10));
    assert!(
        left.is_empty(),
        "the dependency still runs after the session closed: {left:?}"
    );
}
