//! Dependencies end to end, with a real PostgreSQL (Debian's postgresql 15,
//! installed by .ci/run): the real binary starts it from the spec, a CRUD
//! fixture service (tests/fixtures/exec/crud_service.py, pg8000) runs a
//! weighted mix against it, the database is reset between repeats (the
//! service records the rows it finds at each start), and no postgres
//! process, socket or data directory is left after a normal end, SIGINT or
//! SIGKILL of the runner. A dependency that never becomes ready skips the
//! runtimes that need it, with the reason, and only those.
mod common;

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use common::*;

const PG_BIN: &str = "/usr/lib/postgresql/15/bin";

/// Skips a test when PostgreSQL 15 is not installed (.ci/run installs it).
macro_rules! needs_postgres {
    () => {
        if !Path::new(PG_BIN).join("postgres").exists() {
            eprintln!("skipped: PostgreSQL 15 is not installed ({PG_BIN}); .ci/run installs it");
            return;
        }
    };
}

/// A test folder the database's own user can enter (tempdirs are 0700),
/// with `scratch/` as the runner's TMPDIR: where dependency scratch
/// folders (the data directory and the socket) are made.
fn test_dir() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let scratch = tmp.path().join("scratch");
    std::fs::create_dir(&scratch).unwrap();
    std::fs::set_permissions(&scratch, std::fs::Permissions::from_mode(0o1777)).unwrap();
    (tmp, scratch)
}

/// The CRUD spec: `db` (kind postgres, reset between repeats) needed by
/// `crud`; each measured window lasts `measure`.
fn crud_spec(dir: &Path, measure: &str, repeats: u32, warmup: &str) -> PathBuf {
    let f = fixtures();
    let yaml = format!(
        r#"experiment: {{ name: exec-test }}
dependencies:
  db:
    kind: postgres
    postgres:
      schema: [{f}/sql/schema.sql, {f}/sql/seed.sql]
      settings: {{ max_connections: 20 }}
    reset: {{ when: repeat }}
  audit:
    dir: {f}
    start: python3 stats_dependency.py
    env: {{ PID_FILE: {audit_pids} }}
    health: {{ path: /health, timeout: 20s, interval: 50ms }}
    stats: /__stats
runtimes:
  crud:
    dir: {f}
    start: python3 crud_service.py
    needs: [db, audit]
    env:
      DATABASE_URL: "{{{{ deps.db.url }}}}"
      AUDIT_URL: "http://{{{{ deps.audit.host }}}}:{{{{ deps.audit.port }}}}"
      ROWS_FILE: {rows}
      PID_FILE: {pids}
    health: {{ path: /health, timeout: 20s, interval: 50ms }}
    stop: {{ signal: TERM, grace: 3s }}
workload:
  - {{ name: read, path: "/items/{{{{ rand(1, 100) }}}}", weight: 60 }}
  - {{ name: list, path: /items, weight: 20 }}
  - {{ name: create, method: POST, path: /items, body: "new {{{{ seq }}}}", expect: {{ status: 201 }}, weight: 10 }}
  - {{ name: update, method: PUT, path: "/items/{{{{ rand(1, 100) }}}}", body: "upd {{{{ seq }}}}", weight: 10 }}
axes: {{ concurrency: [2] }}
load: {{ mode: closed, timeout: 2s }}
repeats: {repeats}
warmup: {{ service: 100ms, cell: {warmup} }}
measure: {{ duration: {measure} }}
sample: {{ interval: 100ms }}
results: {results}
{QUIET_HOST}"#,
        f = f.display(),
        rows = dir.join("rows").display(),
        pids = dir.join("pids-crud").display(),
        audit_pids = dir.join("pids-audit").display(),
        results = dir.join("results").display(),
    );
    let path = dir.join("spec.yaml");
    std::fs::write(&path, yaml).unwrap();
    path
}

fn start_runner(spec: &Path, scratch: &Path) -> Child {
    runner()
        .args(["exec", spec.to_str().unwrap()])
        .env("TMPDIR", scratch)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The postmaster's pid and every process of its group, once it is up
/// (read from postmaster.pid in the scratch folder).
fn postgres_pids(scratch: &Path) -> Vec<i32> {
    let mut postmaster = None;
    assert!(
        wait_for(Duration::from_secs(30), || {
            postmaster = std::fs::read_dir(scratch)
                .into_iter()
                .flatten()
                .flatten()
                .find_map(|e| {
                    let text =
                        std::fs::read_to_string(e.path().join("data/postmaster.pid")).ok()?;
                    text.lines().next()?.trim().parse::<i32>().ok()
                });
            postmaster.is_some()
        }),
        "no postmaster.pid under {}",
        scratch.display()
    );
    let postmaster = postmaster.unwrap();
    let mut pids = vec![postmaster];
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let pgrp = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(2)?.parse::<i32>().ok());
        if pgrp == Some(postmaster) && pid != postmaster {
            pids.push(pid);
        }
    }
    pids
}

/// Nothing of the database is left: its processes, its port, its scratch
/// folder (data directory and unix socket).
fn assert_no_postgres_left(pids: &[i32], scratch: &Path, port: u16) {
    let alive = wait_all_gone(pids, Duration::from_secs(15));
    assert!(alive.is_empty(), "postgres processes survived: {alive:?}");
    // The service and the downstream dependency recorded theirs beside the scratch folder.
    let others = all_pids(scratch.parent().unwrap());
    assert!(
        others.len() >= 2,
        "service and audit pids recorded: {others:?}"
    );
    let alive = wait_all_gone(&others, Duration::from_secs(15));
    assert!(
        alive.is_empty(),
        "service or audit processes survived: {alive:?}"
    );
    let empty = || std::fs::read_dir(scratch).unwrap().next().is_none();
    assert!(
        wait_for(Duration::from_secs(15), empty),
        "scratch left behind: {:?}",
        std::fs::read_dir(scratch)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect::<Vec<_>>()
    );
    assert!(
        wait_for(Duration::from_secs(5), || runner::service::port_is_free(
            port
        )),
        "port {port} still held"
    );
}

fn db_port(run: &Path) -> u16 {
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("plan.json")).unwrap()).unwrap();
    plan["dependencies"][0]["port"].as_u64().unwrap() as u16
}

#[test]
fn postgres_serves_a_weighted_crud_mix_is_reset_between_repeats_and_leaves_nothing() {
    needs_postgres!();
    let (tmp, scratch) = test_dir();
    let spec = crud_spec(tmp.path(), "1s", 2, "1s");
    let mut child = start_runner(&spec, &scratch);
    let pids = postgres_pids(&scratch);
    assert!(
        wait_for(Duration::from_secs(90), || child
            .try_wait()
            .unwrap()
            .is_some()),
        "the run did not end"
    );
    let out = child.wait_with_output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("dependency db reset"), "{text}");

    let run = run_dir(tmp.path());
    let rows = measurements(&run);
    assert_eq!(rows.len(), 2, "{rows:?}");
    for row in &rows {
        assert_ne!(row["status"], "failed", "{row:?}");
        assert!(row["requests"].parse::<u64>().unwrap() > 20, "{row:?}");
    }
    // The creates really wrote rows, and each repeat's service found the seed's 100.
    let creates: u64 = std::fs::read_dir(run.join("requests"))
        .unwrap()
        .flatten()
        .flat_map(|f| read_rows(&f.path()))
        .filter(|r| r["request"] == "create")
        .map(|r| r["ok"].parse::<u64>().unwrap())
        .sum();
    assert!(creates > 0, "no create answered 201");
    let found = std::fs::read_to_string(tmp.path().join("rows")).unwrap();
    assert_eq!(found, "100\n100\n", "rows at each service start");

    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    // The database's cost beside the service's, per cell.
    let usage = read_rows(&run.join("dependency-usage.csv"));
    assert_eq!(usage.len(), 4, "{usage:?}");
    for u in usage.iter().filter(|u| u["dependency"] == "db") {
        assert!(u["cpu_seconds"].parse::<f64>().unwrap() > 0.0, "{u:?}");
    }
    // The downstream's own figures cover the measured window only: zeroed at
    // its start (after a 1 s cell warmup full of creates), read right after.
    let stats = read_rows(&run.join("dependency-stats.csv"));
    assert_eq!(stats.len(), 2, "{stats:?}");
    for s in &stats {
        assert_eq!(
            (s["dependency"].as_str(), s["route"].as_str()),
            ("audit", "audit")
        );
        let cell = runner::results::cell_file_stem(&s["cell_id"]);
        let window_creates: u64 = read_rows(&run.join("requests").join(format!("{cell}.csv")))
            .iter()
            .filter(|r| r["request"] == "create")
            .map(|r| r["ok"].parse::<u64>().unwrap())
            .sum();
        let count: u64 = s["count"].parse().unwrap();
        assert!(
            count.abs_diff(window_creates) <= 4,
            "audit calls {count} vs creates in the window {window_creates}: {s:?}"
        );
    }
    assert!(report.contains("| audit |"), "{report}");
    assert!(report.contains("## Dependencies"), "{report}");
    assert_no_postgres_left(&pids, &scratch, db_port(&run));
}

/// A runner measuring a long CRUD cell, PostgreSQL and the service up: the
/// folder, the scratch folder, the runner and PostgreSQL's processes.
fn runner_mid_cell() -> (tempfile::TempDir, PathBuf, std::process::Child, Vec<i32>) {
    let (tmp, scratch) = test_dir();
    let spec = crud_spec(tmp.path(), "60s", 1, "100ms");
    let child = start_runner(&spec, &scratch);
    let pids = postgres_pids(&scratch);
    assert!(wait_for(Duration::from_secs(30), || tmp
        .path()
        .join("pids-crud")
        .exists()));
    (tmp, scratch, child, pids)
}

#[test]
fn nothing_of_postgres_is_left_after_sigint_of_the_runner() {
    needs_postgres!();
    let (tmp, scratch, mut child, pids) = runner_mid_cell();
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert!(wait_for(Duration::from_secs(30), || child
        .try_wait()
        .unwrap()
        .is_some()));
    assert_eq!(child.wait().unwrap().code(), Some(130));
    assert_no_postgres_left(&pids, &scratch, db_port(&run_dir(tmp.path())));
}

#[test]
fn nothing_of_postgres_is_left_after_sigkill_of_the_runner() {
    needs_postgres!();
    let (tmp, scratch, mut child, pids) = runner_mid_cell();
    child.kill().unwrap();
    assert_eq!(child.wait().unwrap().signal(), Some(libc::SIGKILL));
    assert_no_postgres_left(&pids, &scratch, db_port(&run_dir(tmp.path())));
}

#[test]
fn a_dependency_that_never_gets_ready_skips_the_runtimes_that_need_it_and_only_those() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(
        tmp.path(),
        &[
            PyRuntime {
                name: "needy",
                env: &[],
                extra: "    needs: [broken]\n",
            },
            PyRuntime {
                name: "free",
                env: &[],
                extra: "    needs: []\n",
            },
        ],
        &format!(
            "dependencies:\n  broken:\n    start: sleep 30\n    health: {{ tcp: true, timeout: 1s, interval: 50ms }}\n{SMALL_MATRIX}"
        ),
    );
    let (code, text) = exec_within(&spec, Duration::from_secs(90));
    assert_eq!(code, Some(1), "{text}");
    let run = run_dir(tmp.path());
    let needy = configuration(&run, "needy");
    assert_eq!(needy["status"], "skipped", "{needy:?}");
    let reason = &needy["reason"];
    for part in [
        "dependency `broken` failed to start",
        "the runtimes that need it (needy) are skipped",
        "a TCP connect to 127.0.0.1:",
        "did not pass within 1s",
        "dependency-broken.log",
        "--resume",
    ] {
        assert!(reason.contains(part), "`{part}` not in: {reason}");
    }
    assert_eq!(configuration(&run, "free")["status"], "ran");
    let rows = measurements(&run);
    assert!(rows.iter().all(|r| r["runtime"] == "free"), "{rows:?}");
    assert!(!rows.is_empty());
    let pids = all_pids(tmp.path());
    assert!(!pids.is_empty(), "the free runtime recorded its pids");
    assert!(wait_all_gone(&pids, Duration::from_secs(5)).is_empty());
}

/// A dependency's `files:` are rendered with its port into its scratch
/// folder before it starts: here Python's file server serves that folder
/// and its readiness is the rendered file itself, so the run only starts if
/// the file was there, with the port in it. The file is kept in the run
/// directory and the folder is gone after the run.
#[test]
fn a_dependency_serves_from_its_rendered_files_and_leaves_no_folder() {
    let (tmp, scratch) = test_dir();
    let dir = tmp.path();
    std::fs::write(dir.join("greeting.txt.j2"), "hello from port {{ port }}\n").unwrap();
    let yaml = format!(
        r#"experiment: {{ name: exec-test }}
dependencies:
  greeter:
    dir: {dir}
    files: {{ greeting.txt: greeting.txt.j2 }}
    start: python3 -m http.server --bind 127.0.0.1 --directory {{{{ scratch }}}} {{{{ port }}}}
    health: {{ path: /greeting.txt, timeout: 20s, interval: 50ms }}
runtimes:
  py:
    dir: {f}
    start: python3 service.py
    needs: [greeter]
workload: {{ path: /work/16 }}
axes: {{ concurrency: [1] }}
measure: {{ duration: 200ms }}
results: {dir}/results
{QUIET_HOST}"#,
        dir = dir.display(),
        f = fixtures().display(),
    );
    let spec = dir.join("spec.yaml");
    std::fs::write(&spec, yaml).unwrap();
    let out = start_runner(&spec, &scratch).wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = run_dir(dir);
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("plan.json")).unwrap()).unwrap();
    let port = plan["dependencies"][0]["port"].as_u64().unwrap();
    let kept = std::fs::read_to_string(run.join("files/dependency-greeter/greeting.txt")).unwrap();
    assert_eq!(kept, format!("hello from port {port}\n"));
    let left: Vec<_> = std::fs::read_dir(&scratch)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "scratch folders left: {left:?}");
}
