//! The results store against real engines: an SQLite file and a real
//! PostgreSQL 15 started here (as `runner-pg`, PostgreSQL refuses root),
//! driven through the real binary. Imports of the committed runs (twice: no
//! duplicates), history and compare from the store giving the same
//! verdicts as from the folders, a second host as its own series, a store
//! that is down losing nothing (one tiny real `runner exec`), and a canary
//! password that must reach no output, no run directory and no store.
mod common;
mod report_support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::Duration;

use common::{PyRuntime, SMALL_MATRIX, free_port, runner, wait_for, write_spec};
use report_support::{copy_dir, fixtures, history_verdicts};
use serde_json::Value;

const PG_BIN: &str = "/usr/lib/postgresql/15/bin";
const CANARY: &str = "CANARY123";

/// A PostgreSQL server of its own for one test, stopped (by its pid) on drop.
struct Postgres {
    _tmp: tempfile::TempDir,
    child: Child,
    port: u16,
}

impl Postgres {
    /// None (the test skips) when PostgreSQL 15 or its user is absent.
    fn start() -> Option<Postgres> {
        if !Path::new(PG_BIN).join("postgres").exists()
            || !Command::new("id")
                .arg("runner-pg")
                .output()
                .unwrap()
                .status
                .success()
        {
            eprintln!(
                "skipped: PostgreSQL 15 or the user runner-pg is absent (scripts/install-postgres.sh)"
            );
            return None;
        }
        let tmp = tempfile::tempdir().unwrap();
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let data = tmp.path().join("data");
        let pwfile = tmp.path().join("pw");
        std::fs::write(&pwfile, CANARY).unwrap();
        std::fs::set_permissions(&pwfile, std::fs::Permissions::from_mode(0o644)).unwrap();
        let as_pg = |program: &str| {
            let mut c = Command::new("setpriv");
            c.args([
                "--reuid=runner-pg",
                "--regid=runner-pg",
                "--clear-groups",
                "--",
            ])
            .arg(Path::new(PG_BIN).join(program));
            c
        };
        let init = as_pg("initdb")
            .arg("-D")
            .arg(&data)
            .args(["-U", "runner", "-A", "scram-sha-256", "--no-sync"])
            .arg(format!("--pwfile={}", pwfile.display()))
            .output()
            .unwrap();
        assert!(
            init.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&init.stderr)
        );
        let port = free_port();
        let child = as_pg("postgres")
            .arg("-D")
            .arg(&data)
            .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-k"])
            .arg(tmp.path())
            .args(["-c", "fsync=off"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let server = Postgres {
            _tmp: tmp,
            child,
            port,
        };
        let up = wait_for(Duration::from_secs(60), || {
            postgres::Client::connect(&server.url(), postgres::NoTls).is_ok()
        });
        assert!(
            up,
            "PostgreSQL did not accept connections on 127.0.0.1:{port}"
        );
        Some(server)
    }

    /// The URL, with the canary as the password (database `postgres`).
    fn url(&self) -> String {
        format!(
            "postgres://runner:{CANARY}@127.0.0.1:{}/postgres",
            self.port
        )
    }

    /// Every text the store holds, for the canary check.
    fn dump(&self) -> String {
        let mut client = postgres::Client::connect(&self.url(), postgres::NoTls).unwrap();
        let mut text = String::new();
        for table in [
            "runs",
            "run_files",
            "configurations",
            "repeats",
            "schema_version",
        ] {
            for row in client
                .query(&format!("SELECT CAST(t.* AS TEXT) FROM {table} t"), &[])
                .unwrap()
            {
                text.push_str(&row.get::<_, String>(0));
            }
        }
        text
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // SIGTERM: a smart shutdown of this server only.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `runner ARGS` in `cwd`, asserting the exit code; stdout + stderr.
fn run_in(cwd: &Path, args: &[&str], code: i32) -> String {
    let out = runner()
        .current_dir(cwd)
        .args(args)
        .env_remove("RUNNER_STORE")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "runner {args:?}: {}",
        text(&out)
    );
    text(&out)
}

fn json(cwd: &Path, args: &[&str], code: i32) -> Value {
    let (got, value) = json_any(cwd, args);
    assert_eq!(got, code, "runner {args:?}");
    value
}

/// The exit code and the JSON on stdout.
fn json_any(cwd: &Path, args: &[&str]) -> (i32, Value) {
    let out = runner()
        .current_dir(cwd)
        .args(args)
        .env_remove("RUNNER_STORE")
        .output()
        .unwrap();
    let value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("runner {args:?}: {e}: {}", text(&out)));
    (out.status.code().unwrap_or(-1), value)
}

/// An experiment of `runs` copies of the fixture run, one a day, the
/// throughput of one configuration 20% lower from run 4 on (so history has a
/// step to find and the newest run a verdict), under `root/results/`.
fn experiment(root: &Path, runs: usize) -> PathBuf {
    let dir = root.join("results/go-java-go-2026");
    for i in 0..runs {
        let run = dir.join(format!("202612{:02}T020000Z", i + 1));
        copy_dir(&fixtures().join("base"), &run);
        let path = run.join("status.json");
        let mut status: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        status["run_id"] = format!("202612{:02}T020000Z", i + 1).into();
        status["started_at"] = format!("2026-12-{:02}T02:00:00Z", i + 1).into();
        std::fs::write(&path, serde_json::to_string_pretty(&status).unwrap()).unwrap();
        scale(&run, i, if i >= 4 { 0.8 } else { 1.0 });
    }
    dir
}

/// Scales the first configuration's throughput by `factor` and adds a
/// little deterministic noise to every row's.
fn scale(run: &Path, run_index: usize, factor: f64) {
    let path = run.join("measurements.csv");
    let mut reader = csv::Reader::from_path(&path).unwrap();
    let headers = reader.headers().unwrap().clone();
    let rps = headers.iter().position(|h| h == "throughput_rps").unwrap();
    let config = headers.iter().position(|h| h == "config_id").unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let first = rows[0][config].to_string();
    let mut writer = csv::Writer::from_path(&path).unwrap();
    writer.write_record(&headers).unwrap();
    for (r, row) in rows.iter().enumerate() {
        let noise = 1.0 + 0.01 * (((run_index * 7 + r * 3) % 5) as f64 - 2.0);
        let f = if row[config] == first { factor } else { 1.0 } * noise;
        let fields: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, v)| {
                if c == rps {
                    format!("{:.3}", v.parse::<f64>().unwrap() * f)
                } else {
                    v.to_string()
                }
            })
            .collect();
        writer.write_record(&fields).unwrap();
    }
    writer.flush().unwrap();
}

/// What a compare JSON concludes: its outcome and every cell's figures and
/// verdict (the run references differ: a folder and a store).
fn compare_verdicts(compare: &Value) -> (Value, Value) {
    (compare["outcome"].clone(), compare["cells"].clone())
}

fn run_count(url: &str) -> i64 {
    let url = runner::store::StoreUrl::parse(url).unwrap();
    runner::store::Store::open(&url)
        .unwrap()
        .run_count()
        .unwrap()
}

/// The committed reference runs, copied (the repository's results/ is never written).
fn committed_runs(root: &Path) -> (PathBuf, usize) {
    let copy = root.join("committed");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("results"),
        &copy,
    );
    // Complete runs only: a run still being recorded in the work tree's
    // results/ (not committed) is left out of an import, with a note.
    let count = runner::store::find_run_dirs(&copy)
        .unwrap()
        .iter()
        .filter(|run| {
            std::fs::read_to_string(run.join("status.json"))
                .is_ok_and(|s| s.contains("\"state\": \"complete\""))
        })
        .count();
    assert!(count >= 10, "{count} committed runs");
    (copy, count)
}

/// What both engines must do alike.
fn same_as_the_folders(url: &str, root: &Path) {
    let (committed, count) = committed_runs(root);
    let committed = committed.to_str().unwrap();
    let first = run_in(root, &["store", "import", url, committed], 0);
    assert!(
        first.contains(&format!("{count} run(s) added, 0 replaced")),
        "{first}"
    );
    let again = run_in(root, &["store", "import", url, committed], 0);
    assert!(
        again.contains(&format!("0 run(s) added, {count} replaced")),
        "{again}"
    );
    assert_eq!(
        run_count(url),
        count as i64,
        "importing twice duplicated runs"
    );

    let dir = experiment(root, 7);
    run_in(root, &["store", "import", url, dir.to_str().unwrap()], 0);
    let from_folder = json_any(
        root,
        &["history", dir.to_str().unwrap(), "--format", "json"],
    );
    let from_store = json_any(
        root,
        &[
            "history",
            "--store",
            url,
            "go-java-go-2026",
            "--format",
            "json",
        ],
    );
    assert_eq!(from_store.0, from_folder.0, "exit codes");
    assert_eq!(
        history_verdicts(&from_store.1),
        history_verdicts(&from_folder.1)
    );
    assert_eq!(from_store.1["series"], from_folder.1["series"]);
    assert_eq!(from_store.1["runs"].as_array().unwrap().len(), 7);

    let (folder_code, compare_folder) = json_any(
        root,
        &[
            "compare",
            "--baseline",
            "history",
            dir.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let (store_code, compare_store) = json_any(
        root,
        &[
            "compare",
            "--baseline",
            "history",
            "--store",
            url,
            "go-java-go-2026",
            "--format",
            "json",
        ],
    );
    assert_eq!(store_code, folder_code);
    assert!(
        !compare_folder["cells"].as_array().unwrap().is_empty(),
        "{compare_folder}"
    );
    assert_eq!(
        compare_verdicts(&compare_store),
        compare_verdicts(&compare_folder)
    );
}

/// A run on another host (another CPU model, so another fingerprint) is a
/// series of its own beside the first host's, not a break.
fn a_second_host_is_its_own_series(url: &str, root: &Path) {
    let other = root.join("other-host/go-java-go-2026/20261220T020000Z");
    copy_dir(&fixtures().join("base"), &other);
    let env_path = other.join("environment.json");
    let mut env: Value =
        serde_json::from_str(&std::fs::read_to_string(&env_path).unwrap()).unwrap();
    env["host"]["cpu_model"] = "Another CPU".into();
    env["host"]["hostname"] = "second-host".into();
    std::fs::write(&env_path, env.to_string()).unwrap();
    let status_path = other.join("status.json");
    let mut status: Value =
        serde_json::from_str(&std::fs::read_to_string(&status_path).unwrap()).unwrap();
    status["run_id"] = "20261220T020000Z".into();
    status["started_at"] = "2026-12-20T02:00:00Z".into();
    std::fs::write(&status_path, status.to_string()).unwrap();
    run_in(root, &["store", "import", url, other.to_str().unwrap()], 0);

    // The newest run is the second host's: its own series of one run, no break.
    let newest = json(
        root,
        &[
            "history",
            "--store",
            url,
            "go-java-go-2026",
            "--format",
            "json",
        ],
        0,
    );
    assert_eq!(newest["runs"].as_array().unwrap().len(), 1, "{newest}");
    assert!(newest["breaks"].as_array().unwrap().is_empty(), "{newest}");
    assert!(
        newest["dir"].as_str().unwrap().contains("second-host"),
        "{newest}"
    );
    let all = json(
        root,
        &[
            "history",
            "--store",
            url,
            "go-java-go-2026",
            "--hosts",
            "all",
            "--format",
            "json",
        ],
        0,
    );
    let hosts = all["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 2, "{all}");
    let row = &all["rows"][0];
    assert_eq!(row["cells"][0]["runs"], 1, "{all}");
    assert_eq!(row["cells"][1]["runs"], 7, "{all}");
    let md = run_in(
        root,
        &[
            "history",
            "--store",
            url,
            "go-java-go-2026",
            "--hosts",
            "all",
        ],
        0,
    );
    assert!(
        md.contains("second-host") && md.contains("across hosts"),
        "{md}"
    );
}

#[test]
fn sqlite_imports_twice_without_duplicates_and_judges_as_the_folders_do() {
    let tmp = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", tmp.path().join("store/runs.db").display());
    same_as_the_folders(&url, tmp.path());
    a_second_host_is_its_own_series(&url, tmp.path());
}

#[test]
fn postgres_imports_twice_without_duplicates_and_judges_as_the_folders_do() {
    let Some(pg) = Postgres::start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    same_as_the_folders(&pg.url(), tmp.path());
    a_second_host_is_its_own_series(&pg.url(), tmp.path());
    assert!(!pg.dump().contains(CANARY));
}

/// Every file under `dir` that contains the canary.
fn files_with_canary(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if std::fs::read(&path)
                .is_ok_and(|b| b.windows(CANARY.len()).any(|w| w == CANARY.as_bytes()))
            {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn a_store_that_is_down_loses_no_run_the_next_call_catches_up_and_no_password_is_written() {
    let Some(pg) = Postgres::start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(
        tmp.path(),
        &[PyRuntime {
            name: "py-a",
            env: &[],
            extra: "",
        }],
        &SMALL_MATRIX.replace(
            "axes: { payload: [16, 256], concurrency: [1, 2] }",
            "axes: { payload: [16], concurrency: [1] }",
        ),
    );
    // Nothing listens on this port: the store is down.
    let down = format!(
        "postgres://runner:{CANARY}@127.0.0.1:{}/postgres",
        free_port()
    );
    let exec = runner()
        .current_dir(tmp.path())
        .args(["exec", spec.to_str().unwrap()])
        .env("RUNNER_STORE", &down)
        .output()
        .unwrap();
    let exec_text = text(&exec);
    assert_eq!(exec.status.code(), Some(0), "{exec_text}");
    assert!(
        exec_text.contains("not in the results store yet"),
        "{exec_text}"
    );
    assert!(exec_text.contains("runner:***@127.0.0.1"), "{exec_text}");
    let run = common::run_dir(tmp.path());
    assert!(run.join(runner::store::pending::PENDING_FILE).is_file());
    assert!(run.join("measurements.csv").is_file());

    // The next call that opens a store indexes it and says so.
    let history = run_in(
        tmp.path(),
        &["history", "--store", &pg.url(), "exec-test"],
        0,
    );
    assert!(
        history.contains("(it was not yet in the store)"),
        "{history}"
    );
    assert!(!run.join(runner::store::pending::PENDING_FILE).exists());
    assert!(
        history.contains(run.file_name().unwrap().to_str().unwrap()),
        "{history}"
    );
    // An unreachable store for history: an error naming it, masked.
    let refused = run_in(tmp.path(), &["history", "--store", &down, "exec-test"], 2);
    assert!(
        refused.contains("cannot connect") && refused.contains("runner:***@"),
        "{refused}"
    );

    for output in [&exec_text, &history, &refused] {
        assert!(!output.contains(CANARY), "{output}");
    }
    assert_eq!(files_with_canary(tmp.path()), Vec::<PathBuf>::new());
    assert!(!pg.dump().contains(CANARY));
}

#[test]
fn the_store_keeps_the_findings_file_the_report_writes() {
    assert_eq!(runner::store::FINDINGS_FILE, runner::report::FINDINGS_FILE);
}

/// `runner exec --label`s reach the store's run_labels, one row a label,
/// and indexing the run again replaces them.
#[test]
fn a_runs_labels_are_indexed_with_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = experiment(tmp.path(), 1);
    let run = dir.join("20261201T020000Z");
    let path = run.join("environment.json");
    let mut env: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    env["labels"] = serde_json::json!({ "commit": "abc123", "ticket": "PERF-7" });
    std::fs::write(&path, serde_json::to_string_pretty(&env).unwrap()).unwrap();
    let db = tmp.path().join("runs.db");
    let url = format!("sqlite:{}", db.display());
    for _ in 0..2 {
        run_in(
            tmp.path(),
            &["store", "import", &url, dir.to_str().unwrap()],
            0,
        );
    }
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut query = conn
        .prepare("SELECT name, value FROM run_labels ORDER BY name")
        .unwrap();
    let labels: Vec<(String, String)> = query
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        labels,
        [
            ("commit".into(), "abc123".into()),
            ("ticket".into(), "PERF-7".into())
        ]
    );
}
