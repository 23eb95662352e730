//! `runner exec` end to end: the real binary against tiny python services on
//! 127.0.0.1, with faults on purpose. Every test checks that no process it
//! caused survives (by the pids the services recorded).
mod common;

use std::collections::HashSet;
use std::os::unix::process::ExitStatusExt;
use std::process::{Output, Stdio};
use std::time::Duration;

use common::*;

fn exec(args: &[&str]) -> Output {
    runner().arg("exec").args(args).output().unwrap()
}

/// `runner exec SPEC`, which must exit with `code` (the output is shown if not).
fn exec_spec(spec: &std::path::Path, code: i32) -> Output {
    let out = exec(&[spec.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(code), "{}", text(&out));
    out
}

/// One runtime (`py-a`) over the small matrix, run to completion in `dir`:
/// the spec and the run directory, for the tests that then alter the run.
fn one_complete_run(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let spec = write_spec(
        dir,
        &[PyRuntime {
            name: "py-a",
            env: &[],
            extra: "",
        }],
        SMALL_MATRIX,
    );
    exec_spec(&spec, 0);
    (spec, run_dir(dir))
}

fn text(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn assert_no_leftovers(dir: &std::path::Path) {
    let pids = all_pids(dir);
    assert!(!pids.is_empty(), "the services recorded their pids");
    let alive = wait_all_gone(&pids, Duration::from_secs(5));
    assert!(alive.is_empty(), "processes survived: {alive:?}");
}

#[test]
fn full_run_over_two_runtimes_records_everything() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(
        tmp.path(),
        &[
            PyRuntime {
                name: "py-a",
                env: &[("HELPER_CHILD", "1")],
                extra: "",
            },
            PyRuntime {
                name: "py-b",
                env: &[],
                extra: "",
            },
        ],
        SMALL_MATRIX,
    );
    let out = exec_spec(&spec, 0);
    let run = run_dir(tmp.path());
    let rows = measurements(&run);
    assert_eq!(rows.len(), 8, "{rows:?}");
    for row in &rows {
        assert_eq!(row["status"], "ok", "{row:?}");
        assert!(row["requests"].parse::<u64>().unwrap() > 0, "{row:?}");
        assert!(row["throughput_rps"].parse::<f64>().unwrap() > 0.0);
        assert!(row["latency_p99_ms"].parse::<f64>().unwrap() > 0.0);
        assert!(row["service_rss_max_bytes"].parse::<u64>().unwrap() > 1_000_000);
        let stem = row["cell_id"].replace('/', "__");
        for file in [
            format!("samples/{stem}.csv"),
            format!("timelines/{stem}.csv"),
            format!("histograms/{stem}.hlog"),
        ] {
            assert!(run.join(&file).is_file(), "{file} missing");
        }
    }
    let runtimes: Vec<&str> = rows.iter().map(|r| r["runtime"].as_str()).collect();
    assert_eq!(
        runtimes,
        [
            "py-a", "py-a", "py-a", "py-a", "py-b", "py-b", "py-b", "py-b"
        ]
    );
    let conf = read_rows(&run.join("configurations.csv"));
    assert_eq!(conf.len(), 2);
    assert!(conf.iter().all(|r| r["status"] == "ran"), "{conf:?}");
    let life = read_rows(&run.join("lifecycle.csv"));
    assert_eq!(life.len(), 2, "one start per runtime: {life:?}");
    for row in &life {
        assert_eq!(row["stop"], "graceful", "{row:?}");
        assert!(row["startup_ms"].parse::<f64>().unwrap() > 0.0);
        assert!(
            row["first_request_ms"].parse::<f64>().unwrap()
                >= row["startup_ms"].parse::<f64>().unwrap()
        );
        assert!(row["idle_rss_bytes"].parse::<u64>().unwrap() > 0);
        assert!(row["post_load_rss_bytes"].parse::<u64>().unwrap() > 0);
    }
    let status: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("status.json")).unwrap()).unwrap();
    assert_eq!(status["state"], "complete");
    assert_eq!(status["cells_done"], 8);
    let env: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("environment.json")).unwrap())
            .unwrap();
    assert!(env["host"]["logical_cpus"].as_u64().unwrap() >= 1);
    // The toolchains its runtimes use (python3 here), and not the others.
    assert!(
        env["toolchains"]["python3"]
            .as_str()
            .unwrap()
            .starts_with("Python 3"),
        "{}",
        env["toolchains"]
    );
    assert!(
        env["toolchains"].get("rustc").is_none(),
        "{}",
        env["toolchains"]
    );
    assert_eq!(
        std::fs::read(run.join("spec.yaml")).unwrap(),
        std::fs::read(&spec).unwrap()
    );
    assert!(run.join("logs/py-a.log").is_file());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cell py-b/payload=256/concurrency=2/r1: ok"),
        "{stderr}"
    );
    assert_no_leftovers(tmp.path());
}

#[test]
fn a_crash_mid_cell_fails_that_cell_then_restarts_or_skips() {
    let tmp = tempfile::tempdir().unwrap();
    let flag = tmp.path().join("crashed-once");
    let flag = flag.to_str().unwrap();
    let spec = write_spec(
        tmp.path(),
        &[
            // Crashes in its first cell, survives after the restart.
            PyRuntime {
                name: "once",
                env: &[
                    ("MODE", "crash_after"),
                    ("CRASH_AFTER", "30"),
                    ("CRASH_FLAG", flag),
                ],
                extra: "",
            },
            // Crashes every time: failed, restarted once, failed again, skipped.
            PyRuntime {
                name: "always",
                env: &[("MODE", "crash_after"), ("CRASH_AFTER", "30")],
                extra: "",
            },
        ],
        // No warmups: the 30th request comes during the first measurement.
        &SMALL_MATRIX.replace(
            "warmup: { service: 200ms, cell: 100ms }",
            "warmup: { service: 0s, cell: 0s }",
        ),
    );
    exec_spec(&spec, 1);
    let rows = measurements(&run_dir(tmp.path()));
    let once: Vec<_> = rows.iter().filter(|r| r["runtime"] == "once").collect();
    assert_eq!(once.len(), 4, "{rows:?}");
    assert_eq!(once[0]["status"], "failed");
    assert!(
        once[0]["reason"].contains("service died during the measurement (exit code 3)"),
        "{:?}",
        once[0]
    );
    assert!(
        once[0]["reason"].contains("crashing on purpose"),
        "{:?}",
        once[0]
    );
    assert!(once[1..].iter().all(|r| r["status"] == "ok"), "{once:?}");
    let always: Vec<_> = rows.iter().filter(|r| r["runtime"] == "always").collect();
    assert_eq!(always.len(), 2, "two deaths, then skipped: {always:?}");
    assert!(always.iter().all(|r| r["status"] == "failed"));
    let always_conf = configuration(&run_dir(tmp.path()), "always");
    assert_eq!(always_conf["status"], "skipped");
    assert!(
        always_conf["reason"].contains("died or stopped answering 2 time(s)"),
        "{always_conf:?}"
    );
    let life = read_rows(&run_dir(tmp.path()).join("lifecycle.csv"));
    assert_eq!(
        life.iter().filter(|r| r["runtime"] == "once").count(),
        2,
        "{life:?}"
    );
    assert_no_leftovers(tmp.path());
}

#[test]
fn a_hung_service_fails_its_cell_and_is_restarted() {
    let tmp = tempfile::tempdir().unwrap();
    let flag = tmp.path().join("hung-once");
    let spec = write_spec(
        tmp.path(),
        &[PyRuntime {
            name: "hangs",
            // Alive but answering nothing (not even /health) after 30
            // requests of its first life; the restarted one is fine.
            env: &[
                ("MODE", "hang_after"),
                ("CRASH_AFTER", "30"),
                ("CRASH_FLAG", flag.to_str().unwrap()),
            ],
            extra: "    health: { path: /health, timeout: 1500ms, interval: 50ms }\n",
        }],
        &SMALL_MATRIX.replace(
            "warmup: { service: 200ms, cell: 100ms }",
            "warmup: { service: 0s, cell: 0s }",
        ),
    );
    // A failed cell makes the exit 1 (cron notices).
    exec_spec(&spec, 1);
    let rows = measurements(&run_dir(tmp.path()));
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert_eq!(rows[0]["status"], "failed", "{:?}", rows[0]);
    assert!(
        rows[0]["reason"].contains("service stopped answering: no 200 from GET /health"),
        "{:?}",
        rows[0]
    );
    assert!(
        rows[1..].iter().all(|r| r["status"] == "ok"),
        "the restarted service measured the rest: {rows:?}"
    );
    let life = read_rows(&run_dir(tmp.path()).join("lifecycle.csv"));
    assert_eq!(life.len(), 2, "started twice: {life:?}");
    assert_no_leftovers(tmp.path());
}

/// A JVM that stops answering (every request thread stuck, /health
/// included) fails its cell, and its threads are dumped before it is
/// stopped: with `Thread.print` on JDK 17, with `Thread.dump_to_file`
/// (virtual threads included) on JDK 25. The file is named in the reason.
#[test]
fn a_hung_jvm_leaves_its_thread_dump() {
    let tmp = tempfile::tempdir().unwrap();
    let runtimes: Vec<(String, String)> = ["17", "25"]
        .iter()
        .map(|v| {
            (
                format!("hang{v}"),
                format!(
                    "    java: {{ version: \"{v}\" }}\n    start: \"{{{{ java }}}} Hang.java\"\n    health: {{ path: /health, timeout: 60s, interval: 50ms }}\n"
                ),
            )
        })
        .collect();
    let spec = write_spec(
        tmp.path(),
        &runtimes
            .iter()
            .map(|(name, extra)| PyRuntime {
                name,
                // Its first 3 /work requests are answered (the start's
                // first request among them), then nothing.
                env: &[("HANG_AFTER", "3")],
                extra,
            })
            .collect::<Vec<_>>(),
        &SMALL_MATRIX
            .replace(
                "axes: { payload: [16, 256], concurrency: [1, 2] }",
                "axes: { payload: [16], concurrency: [1] }",
            )
            .replace("faults: { max_restarts: 1 }", "faults: { max_restarts: 0 }"),
    );
    exec_spec(&spec, 1);
    let run = run_dir(tmp.path());
    for row in measurements(&run) {
        assert_eq!(row["status"], "failed", "{row:?}");
        let reason = &row["reason"];
        let (_, file) = reason
            .split_once("its JVM's threads before the stop: ")
            .unwrap_or_else(|| panic!("no thread dump named: {reason}"));
        let dump = std::fs::read_to_string(file.trim()).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(
            dump.contains("Hang.waitForever"),
            "{}: {dump}",
            row["runtime"]
        );
    }
    assert_eq!(measurements(&run).len(), 2);
    assert_no_leftovers(tmp.path());
}

#[test]
fn never_healthy_and_failing_build_skip_only_their_runtime() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(
        tmp.path(),
        &[
            PyRuntime {
                name: "sick",
                env: &[("MODE", "never_healthy")],
                extra: "    health: { path: /health, timeout: 1500ms, interval: 50ms }\n",
            },
            PyRuntime {
                name: "unbuildable",
                env: &[],
                extra: "    build: [\"echo compiling; echo 'error: missing semicolon' >&2; exit 5\"]\n",
            },
            PyRuntime {
                name: "fine",
                env: &[],
                extra: "",
            },
        ],
        SMALL_MATRIX,
    );
    let out = exec_spec(&spec, 1);
    let run = run_dir(tmp.path());
    let rows = measurements(&run);
    assert!(
        rows.iter()
            .all(|r| r["runtime"] == "fine" && r["status"] == "ok"),
        "{rows:?}"
    );
    assert_eq!(rows.len(), 4);
    let sick = configuration(&run, "sick");
    assert_eq!(sick["status"], "skipped");
    assert!(sick["reason"].contains("no 200 from"), "{sick:?}");
    assert!(sick["reason"].contains("status 503"), "{sick:?}");
    let unbuildable = configuration(&run, "unbuildable");
    assert_eq!(unbuildable["status"], "skipped");
    let reason = &unbuildable["reason"];
    assert!(
        reason.contains("exit code 5") && reason.contains("logs/build-unbuildable.log"),
        "{reason}"
    );
    assert!(reason.contains("missing semicolon"), "{reason}");
    assert_eq!(configuration(&run, "fine")["status"], "ran");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("SKIP sick") && stderr.contains("SKIP unbuildable"),
        "{stderr}"
    );
    assert_no_leftovers(tmp.path());
}

/// A server that takes its port from its own config, not from $PORT: its
/// runtime is skipped after the first start's health timeout (here a cold
/// start's), with where it listens and what to do, and the others run
/// (one of them with a `version:` command, recorded and reported).
#[test]
fn a_service_on_another_port_is_skipped_after_one_timeout_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let other = free_port().to_string();
    let spec = write_spec(
        tmp.path(),
        &[
            PyRuntime {
                name: "stubborn",
                env: &[("LISTEN_PORT", &other)],
                extra: "    health: { path: /health, timeout: 1500ms, interval: 50ms }\n",
            },
            PyRuntime {
                name: "fine",
                env: &[],
                extra: "    version: python3 --version\n",
            },
        ],
        &SMALL_MATRIX.replace("startup: { repeats: 0 }", "startup: { repeats: 2 }"),
    );
    let out = exec_spec(&spec, 1);
    let run = run_dir(tmp.path());
    let stubborn = configuration(&run, "stubborn");
    assert_eq!(stubborn["status"], "skipped");
    let reason = &stubborn["reason"];
    assert!(
        reason.contains(&format!("the service is listening on 127.0.0.1:{other}"))
            && reason.contains("make it read $PORT"),
        "{reason}"
    );
    let life = read_rows(&run.join("lifecycle.csv"));
    let starts: Vec<_> = life.iter().filter(|r| r["runtime"] == "stubborn").collect();
    assert_eq!(
        starts.len(),
        1,
        "one cold start, no measured start: {starts:?}"
    );
    assert_eq!(configuration(&run, "fine")["status"], "ran");
    assert!(text(&out).contains("SKIP stubborn"), "{}", text(&out));
    // `version:` is recorded before the builds and shown in the report.
    let env: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("environment.json")).unwrap())
            .unwrap();
    let version = env["versions"]["runtime fine"].as_str().unwrap_or_default();
    assert!(version.starts_with("Python 3."), "{env}");
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(
        report.contains(&format!(
            "- version of runtime fine (its `version:` command): `{version}`"
        )),
        "{report}"
    );
    assert!(
        report.contains(&format!("| no | `{version}` |")),
        "the Configuration table's version column: {report}"
    );
    assert_no_leftovers(tmp.path());
}

#[test]
fn a_runtime_whose_toolchain_is_missing_is_skipped_and_the_others_run() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(
        tmp.path(),
        &[
            PyRuntime {
                name: "toolless",
                env: &[],
                extra: "    build: [no-such-compiler-for-runner-tests --release]\n",
            },
            PyRuntime {
                name: "fine",
                env: &[],
                extra: "",
            },
        ],
        SMALL_MATRIX,
    );
    // The run completes for `fine`; a skipped runtime makes the exit 1 (cron notices).
    let out = exec_spec(&spec, 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("SKIP toolless")
            && stderr.contains("`no-such-compiler-for-runner-tests` is not on PATH"),
        "{stderr}"
    );
    let run = run_dir(tmp.path());
    let toolless = configuration(&run, "toolless");
    assert_eq!(toolless["status"], "skipped");
    assert!(
        toolless["reason"].contains("toolchain missing on this host"),
        "{toolless:?}"
    );
    let rows = measurements(&run);
    assert_eq!(rows.len(), 4, "only `fine` was measured: {rows:?}");
    assert!(rows.iter().all(|r| r["runtime"] == "fine"));
    assert_no_leftovers(tmp.path());
}

#[test]
fn a_port_in_use_stops_everything_before_it_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = holder.local_addr().unwrap().port();
    let spec = write_spec(
        tmp.path(),
        &[
            PyRuntime {
                name: "blocked",
                env: &[],
                extra: &format!("    port: {port}\n"),
            },
            PyRuntime {
                name: "nodir",
                env: &[],
                extra: "    dir: /nonexistent/runner-test-dir\n",
            },
        ],
        &format!("{SMALL_MATRIX}affinity: {{ service: [0], load: [999] }}\n"),
    );
    let out = exec_spec(&spec, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("preflight found 3 problem(s); nothing was started"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("runtime blocked: port {port} is already in use")),
        "{stderr}"
    );
    assert!(
        stderr.contains("runtime nodir: directory /nonexistent/runner-test-dir does not exist"),
        "{stderr}"
    );
    assert!(
        !tmp.path().join("results/exec-test").exists()
            || std::fs::read_dir(tmp.path().join("results/exec-test"))
                .unwrap()
                .next()
                .is_none()
    );
    assert!(
        stderr.contains("affinity.load: CPU(s) [999] are not available to the runner"),
        "{stderr}"
    );
    assert!(all_pids(tmp.path()).is_empty(), "nothing was started");
}

/// A run long enough to interrupt: 2 runtimes x 4 cells of ~0.6 s.
fn long_spec(dir: &std::path::Path) -> std::path::PathBuf {
    write_spec(
        dir,
        &[
            PyRuntime {
                name: "py-a",
                env: &[("HELPER_CHILD", "1")],
                extra: "",
            },
            PyRuntime {
                name: "py-b",
                env: &[],
                extra: "",
            },
        ],
        &SMALL_MATRIX.replace("duration: 300ms", "duration: 500ms"),
    )
}

fn wait_rows(dir: &std::path::Path, n: usize) -> bool {
    wait_for(Duration::from_secs(30), || {
        let exp = dir.join("results/exec-test");
        exp.is_dir()
            && std::fs::read_dir(&exp)
                .unwrap()
                .flatten()
                .any(|e| measurements(&e.path()).len() >= n)
    })
}

#[test]
fn sigint_mid_run_then_resume_completes_without_duplicates() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = long_spec(tmp.path());
    let child = runner()
        .args(["exec", spec.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(wait_rows(tmp.path(), 2), "two cells recorded");
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    let run = run_dir(tmp.path());
    let status: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("status.json")).unwrap()).unwrap();
    assert_eq!(status["state"], "interrupted");
    assert!(
        status["message"].as_str().unwrap().contains("SIGINT"),
        "{status}"
    );
    let before = measurements(&run);
    assert!(before.len() >= 2 && before.len() < 8, "{}", before.len());
    assert!(
        before.iter().all(|r| r["status"] == "ok"),
        "no partial row: {before:?}"
    );
    assert_no_leftovers(tmp.path());

    let out = exec(&[spec.to_str().unwrap(), "--resume", run.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let after = measurements(&run);
    let ids: Vec<&str> = after.iter().map(|r| r["cell_id"].as_str()).collect();
    let unique: HashSet<&str> = ids.iter().copied().collect();
    assert_eq!(ids.len(), 8, "{ids:?}");
    assert_eq!(unique.len(), 8, "no duplicates: {ids:?}");
    assert_eq!(
        after[..before.len()],
        before[..],
        "earlier rows kept as they were"
    );
    let status: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("status.json")).unwrap()).unwrap();
    assert_eq!(status["state"], "complete");
    assert_eq!(status["cells_done"], 8);
    assert_no_leftovers(tmp.path());
}

#[test]
fn resume_refuses_a_changed_spec_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let (spec, run) = one_complete_run(tmp.path());
    let out = exec(&[
        spec.to_str().unwrap(),
        "--resume",
        run.to_str().unwrap(),
        "--quick",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("was started with --quick (none) but this resume asks for 10"),
        "{}",
        text(&out)
    );
    let yaml = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, yaml.replace("title: exec test", "title: changed")).unwrap();
    let out = exec(&[spec.to_str().unwrap(), "--resume", run.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("the spec changed since run"),
        "{}",
        text(&out)
    );
    let out = exec(&[
        spec.to_str().unwrap(),
        "--resume",
        run.to_str().unwrap(),
        "--force",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        measurements(&run).len(),
        4,
        "everything was already recorded"
    );
}

#[test]
fn sigkilled_runner_leaves_no_service_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = long_spec(tmp.path());
    let mut child = runner()
        .args(["exec", spec.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Mid-cell: the first cell is recorded, the service and its helper run.
    assert!(wait_rows(tmp.path(), 1));
    assert!(wait_for(Duration::from_secs(5), || pids_in(
        &tmp.path().join("pids-py-a")
    )
    .len()
        == 2));
    let pids = all_pids(tmp.path());
    assert!(pids.iter().all(|&p| pid_alive(p)), "{pids:?}");
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    let alive = wait_all_gone(&pids, Duration::from_secs(5));
    assert!(alive.is_empty(), "survived the runner: {alive:?}");
}

/// Whether a runtime of a focused test trains, and whether the evidence of
/// its trained artifact then shows in its log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Training {
    None,
    /// The training run writes `<name>.conf` on SIGTERM, `after` copies it to
    /// `<name>.bin` (declared in `produces`), and measured starts print the
    /// evidence line only when `<name>.bin` exists (like -Xlog:aot).
    Proven,
    /// Trained the same way, but the evidence it declares is never printed.
    Unproven,
}

/// Writes `dir/spec.yaml` for one focused test: `runtimes` over
/// [`SMALL_MATRIX`] with each `(from, to)` of `matrix_edits` applied. Every
/// runtime writes the CPUs it may use to `dir/<name>.affinity`.
fn focused_spec(
    dir: &std::path::Path,
    runtimes: &[(&str, Training)],
    matrix_edits: &[(&str, &str)],
) -> std::path::PathBuf {
    let file = |name: &str, ext: &str| dir.join(format!("{name}.{ext}")).display().to_string();
    let setups: Vec<(Vec<(String, String)>, String)> = runtimes
        .iter()
        .map(|&(name, training)| {
            let mut env = vec![("AFFINITY_FILE".to_string(), file(name, "affinity"))];
            let (conf, bin) = (file(name, "conf"), file(name, "bin"));
            let evidence = match training {
                Training::None => return (env, String::new()),
                Training::Proven => {
                    env.push(("EVIDENCE_LINE".into(), format!("[aot] cache {bin} opened")));
                    env.push(("EVIDENCE_IF".into(), bin.clone()));
                    format!("cache .*{name}\\.bin opened")
                }
                Training::Unproven => "never printed".to_string(),
            };
            let train = format!(
                "    train:\n      env: {{ WRITE_FILE: {conf} }}\n      duration: 300ms\n      connections: 1\n      after: [\"cp {conf} {bin}\"]\n      produces: [{bin}]\n      evidence: '{evidence}'\n"
            );
            (env, train)
        })
        .collect();
    let envs: Vec<Vec<(&str, &str)>> = setups
        .iter()
        .map(|(env, _)| env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect())
        .collect();
    let py: Vec<PyRuntime> = runtimes
        .iter()
        .zip(&setups)
        .zip(&envs)
        .map(|((&(name, _), (_, extra)), env)| PyRuntime { name, env, extra })
        .collect();
    let matrix = matrix_edits
        .iter()
        .fold(SMALL_MATRIX.to_string(), |matrix, (from, to)| {
            assert!(matrix.contains(from), "SMALL_MATRIX has no `{from}`");
            matrix.replace(from, to)
        });
    write_spec(dir, &py, &matrix)
}

const INTERLEAVED: (&str, &str) = ("repeats: 1", "repeats: 2\norder: interleaved");

/// `runner exec --quick SPEC` read SPEC as the factor and failed in clap;
/// the spec must reach exec whichever side of it `--quick` stands (a
/// missing spec shows it: exec's own error, naming the file).
#[test]
fn quick_before_the_spec_leaves_the_spec_to_exec() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("x.yaml");
    let missing = missing.to_str().unwrap();
    for args in [
        ["--quick", missing],
        [missing, "--quick"],
        ["--quick=5", missing],
    ] {
        let out = exec(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(missing) && !err.contains("invalid value"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn quick_divides_the_measured_window_by_ten() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = focused_spec(
        tmp.path(),
        &[("a", Training::None)],
        &[("measure: { duration: 300ms }", "measure: { duration: 3s }")],
    );
    let out = exec(&[spec.to_str().unwrap(), "--quick"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let run = run_dir(tmp.path());
    let status: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("status.json")).unwrap()).unwrap();
    assert_eq!(status["quick_factor"], 10);
    let rows = measurements(&run);
    assert_eq!(rows.len(), 4);
    // 3 s / 10 = 300 ms measured.
    assert!(
        rows.iter()
            .all(|r| (r["duration_s"].parse::<f64>().unwrap() - 0.3).abs() < 0.1),
        "{rows:?}"
    );
    assert_no_leftovers(tmp.path());
}

#[test]
fn interleaved_order_runs_each_repeat_over_every_runtime_before_the_next() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = focused_spec(
        tmp.path(),
        &[("a", Training::None), ("b", Training::None)],
        &[INTERLEAVED],
    );
    exec_spec(&spec, 0);
    let run = run_dir(tmp.path());
    let rows = measurements(&run);
    assert_eq!(rows.len(), 16);
    // Interleaved: repeat 1 of both runtimes, then repeat 2.
    let order: Vec<String> = rows
        .iter()
        .map(|r| format!("{}/r{}", r["runtime"], r["repeat"]))
        .collect();
    assert_eq!(order[..4], ["a/r1"; 4]);
    assert_eq!(order[4..8], ["b/r1"; 4]);
    assert_eq!(order[8..12], ["a/r2"; 4]);
    assert_eq!(order[12..], ["b/r2"; 4]);
    // Each runtime is started anew for each of its repeats.
    let starts: Vec<String> = read_rows(&run.join("lifecycle.csv"))
        .iter()
        .map(|r| format!("{}:{}", r["runtime"], r["phase"]))
        .collect();
    assert_eq!(
        starts,
        ["a:measure", "b:measure", "a:measure", "b:measure"],
        "2 starts per runtime (interleaved)"
    );
    assert_no_leftovers(tmp.path());
}

#[test]
fn restart_repeat_starts_each_runtime_anew_for_each_repeat_even_in_sequential_order() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = focused_spec(
        tmp.path(),
        &[("a", Training::None), ("b", Training::None)],
        &[
            (
                "repeats: 1",
                "repeats: 2\norder: sequential\nlifecycle: { restart: repeat }",
            ),
            ("payload: [16, 256]", "payload: [16]"),
        ],
    );
    exec_spec(&spec, 0);
    let run = run_dir(tmp.path());
    let order: Vec<String> = measurements(&run)
        .iter()
        .map(|r| format!("{}/r{}", r["runtime"], r["repeat"]))
        .collect();
    assert_eq!(
        order,
        [
            "a/r1", "a/r1", "a/r2", "a/r2", "b/r1", "b/r1", "b/r2", "b/r2"
        ]
    );
    let starts: Vec<String> = read_rows(&run.join("lifecycle.csv"))
        .iter()
        .map(|r| format!("{}:{}#{}", r["runtime"], r["phase"], r["start_index"]))
        .collect();
    assert_eq!(
        starts,
        ["a:measure#1", "a:measure#2", "b:measure#1", "b:measure#2"],
        "2 measured starts per runtime, one per repeat"
    );
    for name in ["a", "b"] {
        let pids = pids_in(&tmp.path().join(format!("pids-{name}")));
        assert_eq!(
            pids.len(),
            2,
            "{name}: two processes, one per repeat: {pids:?}"
        );
        assert_ne!(pids[0], pids[1]);
    }
    assert_no_leftovers(tmp.path());
}

#[test]
fn every_runtime_trains_once_before_any_measured_start_and_logs_it() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = focused_spec(
        tmp.path(),
        &[("a", Training::Proven), ("b", Training::Proven)],
        &[INTERLEAVED],
    );
    exec_spec(&spec, 0);
    let run = run_dir(tmp.path());
    let life = read_rows(&run.join("lifecycle.csv"));
    let phases: Vec<String> = life
        .iter()
        .map(|r| format!("{}:{}", r["runtime"], r["phase"]))
        .collect();
    assert_eq!(phases[..2], ["a:train", "b:train"], "{phases:?}");
    assert_eq!(
        life.len(),
        6,
        "2 trainings + 2 starts per runtime (interleaved): {phases:?}"
    );
    assert!(run.join("logs/train-a.log").is_file());
    assert!(run.join("logs/train-b.log").is_file());
    assert_no_leftovers(tmp.path());
}

#[test]
fn training_evidence_found_keeps_cells_ok_and_missing_makes_them_suspect() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = focused_spec(
        tmp.path(),
        &[
            ("trained", Training::Proven),
            ("unproven", Training::Unproven),
        ],
        &[],
    );
    exec_spec(&spec, 0);
    let run = run_dir(tmp.path());
    let trained = configuration(&run, "trained");
    assert_eq!(trained["trained"], "true");
    assert!(
        trained["training_evidence"].contains("opened"),
        "{trained:?}"
    );
    let unproven = configuration(&run, "unproven");
    assert!(
        unproven["training_evidence"].starts_with("NOT FOUND"),
        "{unproven:?}"
    );
    let rows = measurements(&run);
    assert_eq!(rows.len(), 8);
    for row in &rows {
        let expected = if row["runtime"] == "trained" {
            "ok"
        } else {
            "suspect"
        };
        assert_eq!(row["status"], expected, "{row:?}");
    }
    assert!(
        rows.iter()
            .any(|r| r["reason"].contains("training evidence not found"))
    );
    assert_no_leftovers(tmp.path());
}

#[test]
fn affinity_pins_the_service_to_its_cpus() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = focused_spec(
        tmp.path(),
        &[("a", Training::None)],
        &[(
            "repeats: 1",
            "repeats: 1\naffinity: { service: [0], load: [1] }",
        )],
    );
    exec_spec(&spec, 0);
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("a.affinity")).unwrap(),
        "0",
        "service pinned to CPU 0"
    );
    assert_no_leftovers(tmp.path());
}

#[test]
fn sigint_during_a_build_stops_the_build_promptly() {
    let tmp = tempfile::tempdir().unwrap();
    let build_pids = tmp.path().join("pids-build");
    let build = format!(
        "    build: [\"sleep 30 & echo $! > {p}; echo $$ >> {p}; wait\"]\n",
        p = build_pids.display()
    );
    let spec = write_spec(
        tmp.path(),
        &[PyRuntime {
            name: "slow-build",
            env: &[],
            extra: &build,
        }],
        SMALL_MATRIX,
    );
    let child = runner()
        .args(["exec", spec.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(wait_for(Duration::from_secs(20), || pids_in(&build_pids)
        .len()
        == 2));
    let started = std::time::Instant::now();
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let alive = wait_all_gone(&pids_in(&build_pids), Duration::from_secs(5));
    assert!(alive.is_empty(), "build processes survived: {alive:?}");
    assert!(measurements(&run_dir(tmp.path())).is_empty());
}

#[test]
fn sigterm_interrupts_and_a_second_signal_exits_at_once() {
    // One SIGTERM: a clean interruption, status says SIGTERM.
    let tmp = tempfile::tempdir().unwrap();
    let spec = long_spec(tmp.path());
    let child = runner()
        .args(["exec", spec.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(wait_rows(tmp.path(), 1));
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    let status: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(run_dir(tmp.path()).join("status.json")).unwrap(),
    )
    .unwrap();
    assert!(
        status["message"].as_str().unwrap().contains("SIGTERM"),
        "{status}"
    );
    assert_no_leftovers(tmp.path());

    // Two signals in a row: the runner exits at once with 130 and the guards
    // still take the services down.
    let tmp = tempfile::tempdir().unwrap();
    let spec = long_spec(tmp.path());
    let child = runner()
        .args(["exec", spec.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(wait_rows(tmp.path(), 1));
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert_no_leftovers(tmp.path());
}

#[test]
fn resume_retries_a_runtime_whose_build_failed() {
    let tmp = tempfile::tempdir().unwrap();
    let ready = tmp.path().join("dependency-ready");
    let build = format!("    build: [\"test -f {}\"]\n", ready.display());
    let spec = write_spec(
        tmp.path(),
        &[
            PyRuntime {
                name: "py-a",
                env: &[],
                extra: "",
            },
            PyRuntime {
                name: "flaky-build",
                env: &[],
                extra: &build,
            },
        ],
        SMALL_MATRIX,
    );
    exec_spec(&spec, 1);
    let run = run_dir(tmp.path());
    assert_eq!(measurements(&run).len(), 4);
    // The cause is fixed; the same spec resumes the same run.
    std::fs::write(&ready, "").unwrap();
    let out = exec(&[spec.to_str().unwrap(), "--resume", run.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let rows = measurements(&run);
    assert_eq!(rows.len(), 8);
    assert_eq!(
        rows.iter()
            .filter(|r| r["runtime"] == "flaky-build")
            .count(),
        4
    );
    let conf = read_rows(&run.join("configurations.csv"));
    assert!(
        conf.iter()
            .all(|r| r["status"] == "ran" && r["reason"].is_empty()),
        "{conf:?}"
    );
    assert_no_leftovers(tmp.path());
}

/// A report that cannot be written (here report.md is a directory in the
/// way: deterministic, and root is not stopped by a read-only folder) fails
/// `runner exec` with the file and the cause named, and keeps the run
/// complete; `runner report RUN_DIR` fails the same way, and renders once
/// the cause is gone.
#[test]
fn a_report_that_cannot_be_written_is_a_failure_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let (spec, run) = one_complete_run(tmp.path());
    assert_eq!(measurements(&run).len(), 4);
    let report_md = run.join("report.md");
    std::fs::remove_file(&report_md).unwrap();
    std::fs::create_dir(&report_md).unwrap();

    let out = exec(&[spec.to_str().unwrap(), "--resume", run.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}: cannot write:", report_md.display())),
        "{}",
        text(&out)
    );
    assert!(stderr.contains("Is a directory"), "{}", text(&out));
    assert_eq!(measurements(&run).len(), 4, "the measurements are kept");

    let out = runner().arg("report").arg(&run).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}: cannot write:", report_md.display()))
            && stderr.contains("Is a directory"),
        "{}",
        text(&out)
    );

    std::fs::remove_dir(&report_md).unwrap();
    let out = runner().arg("report").arg(&run).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(report_md.is_file());
    assert_no_leftovers(tmp.path());
}

/// A runtime's commands get the documented environment, not the caller's
/// whole one: `CARGO_TARGET_DIR` and `JAVA_TOOL_OPTIONS` in the caller's
/// environment reach neither its build nor its service, `GOFLAGS` only
/// because the runtime names it in `pass_env:`; environment.json records
/// the names passed.
#[test]
fn a_callers_variable_reaches_a_runtime_only_when_named_in_pass_env() {
    let tmp = tempfile::tempdir().unwrap();
    let build_env = tmp.path().join("build-env");
    let start_env = tmp.path().join("start-env");
    let dump = tmp.path().join("dump-env.sh");
    std::fs::write(&dump, "env > \"$1\"\n").unwrap();
    let extra = format!(
        "    build: [\"sh {dump} {}\"]\n    start: \"sh {dump} {} && exec python3 service.py\"\n    pass_env: [GOFLAGS]\n",
        build_env.display(),
        start_env.display(),
        dump = dump.display()
    );
    let spec = write_spec(
        tmp.path(),
        &[PyRuntime {
            name: "py-env",
            env: &[],
            extra: &extra,
        }],
        SMALL_MATRIX,
    );
    let out = runner()
        .arg("exec")
        .arg(&spec)
        .env("CARGO_TARGET_DIR", "/elsewhere")
        .env("JAVA_TOOL_OPTIONS", "-Xmx1m")
        .env("GOFLAGS", "-trimpath")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    for file in [&build_env, &start_env] {
        let env = std::fs::read_to_string(file).unwrap();
        let names: Vec<&str> = env
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, _)| k)
            .collect();
        assert!(env.lines().any(|l| l == "GOFLAGS=-trimpath"), "{env}");
        assert!(names.contains(&"PATH"), "{env}");
        assert!(!names.contains(&"CARGO_TARGET_DIR"), "{env}");
        assert!(!names.contains(&"JAVA_TOOL_OPTIONS"), "{env}");
    }
    let start = std::fs::read_to_string(&start_env).unwrap();
    assert!(start.lines().any(|l| l.starts_with("PORT=")), "{start}");
    let run = run_dir(tmp.path());
    let environment: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("environment.json")).unwrap())
            .unwrap();
    let passed: Vec<&str> = environment["passed_env"]["runtime py-env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        passed.contains(&"GOFLAGS") && passed.contains(&"PATH"),
        "{passed:?}"
    );
    assert!(!passed.contains(&"CARGO_TARGET_DIR"), "{passed:?}");
    assert_no_leftovers(tmp.path());
}

/// A caller's `CARGO_TARGET_DIR` does not move a Rust runtime's build: the
/// build lands in the runtime's own `target/`, where its `artifact` and
/// `start` say, and the run measures it (it used to be skipped as "declared
/// artifact does not exist").
#[test]
fn a_callers_cargo_target_dir_does_not_move_a_rust_runtimes_build() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("rust-tiny");
    std::fs::create_dir_all(src.join("src")).unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rust-tiny");
    for file in ["Cargo.toml", "src/main.rs"] {
        std::fs::copy(fixture.join(file), src.join(file)).unwrap();
    }
    let elsewhere = tmp.path().join("elsewhere");
    let extra = format!(
        "    dir: {}\n    build: [\"cargo build --offline --quiet\"]\n    start: ./target/debug/rust-tiny\n    artifact: target/debug/rust-tiny\n",
        src.display()
    );
    let spec = write_spec(
        tmp.path(),
        &[PyRuntime {
            name: "rust-tiny",
            env: &[],
            extra: &extra,
        }],
        &SMALL_MATRIX.replace("/work/{{ payload }}", "/").replace(
            "axes: { payload: [16, 256], concurrency: [1, 2] }",
            "axes: { concurrency: [1] }",
        ),
    );
    let out = runner()
        .arg("exec")
        .arg(&spec)
        .env("CARGO_TARGET_DIR", &elsewhere)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(src.join("target/debug/rust-tiny").is_file());
    assert!(
        !elsewhere.exists(),
        "the caller's CARGO_TARGET_DIR was not used"
    );
    let run = run_dir(tmp.path());
    let rows = measurements(&run);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["status"], "ok", "{rows:?}");
}
