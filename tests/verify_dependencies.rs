//! `runner verify` with dependencies and vectors files, end to end: the
//! real binary starts a real PostgreSQL (`kind: postgres`, seeded with
//! runtimes/contract/products.sql) for fixture services
//! (tests/fixtures/verify/shop_service.py: the contract's reference for the
//! order API, pg8000 for the products steps) and replays the shared vectors
//! of runtimes/contract/microservices.json: every order case as written, and
//! a sliver of the products steps taken from the same file. The database is
//! reset before each runtime (both create id 1001), a deliberately wrong
//! price is named with its field and runtime, a dependency that never gets
//! ready fails the runtimes that need it with its log, and nothing is left
//! after a normal end or a SIGINT.
mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use common::*;

const PG_BIN: &str = "/usr/lib/postgresql/15/bin";

/// Skips a test when PostgreSQL 15 is not installed (scripts/install-postgres.sh installs it).
macro_rules! needs_postgres {
    () => {
        if !Path::new(PG_BIN).join("postgres").exists() {
            eprintln!(
                "skipped: PostgreSQL 15 is not installed ({PG_BIN}); scripts/install-postgres.sh installs it"
            );
            return;
        }
    };
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn contract() -> PathBuf {
    repo().join("runtimes/contract")
}

/// The products steps the fixture serves, in the shared file's order.
const PRODUCT_STEPS: &[&str] = &[
    "read-first",
    "read-absent",
    "create",
    "read-created",
    "update",
    "read-updated",
    "list-first-3",
    "list-across-created",
];

/// The order cases of the shared vectors.
fn shared_orders() -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(contract().join("microservices.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    doc["orders"].as_array().unwrap().clone()
}

/// A test folder the database's own user can enter (tempdirs are 0700),
/// with `scratch/` as the runner's TMPDIR (the data directory and socket).
fn test_dir() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let scratch = tmp.path().join("scratch");
    std::fs::create_dir(&scratch).unwrap();
    std::fs::set_permissions(&scratch, std::fs::Permissions::from_mode(0o1777)).unwrap();
    (tmp, scratch)
}

/// Writes `products.json`: the [`PRODUCT_STEPS`] cases copied from the
/// shared vectors (a vectors file of its own, format 1, a list at the top).
fn write_product_sliver(dir: &Path) {
    let text = std::fs::read_to_string(contract().join("microservices.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let steps: Vec<&serde_json::Value> = doc["products"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| PRODUCT_STEPS.contains(&c["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        steps.len(),
        PRODUCT_STEPS.len(),
        "the shared vectors changed"
    );
    std::fs::write(
        dir.join("products.json"),
        serde_json::to_string_pretty(&steps).unwrap(),
    )
    .unwrap();
}

/// A spec with `runtimes` (name, extra env lines) needing `db` (kind
/// postgres on `db_port`) and `extra_dependencies` YAML lines.
fn spec(dir: &Path, runtimes: &[(&str, &str)], db_port: u16, extra_dependencies: &str) -> PathBuf {
    write_product_sliver(dir);
    let mut yaml = format!(
        "experiment: {{ name: verify-test, title: t, description: t }}\n\
         results: results\n\
         dependencies:\n  db:\n    kind: postgres\n    port: {db_port}\n    \
         postgres: {{ schema: [{sql}] }}\n{extra_dependencies}\
         runtimes:\n",
        sql = contract().join("products.sql").display(),
    );
    for (name, env) in runtimes {
        yaml += &format!(
            "  {name}:\n    dir: {fixtures}\n    start: python3 shop_service.py\n    \
             needs: [db]\n    \
             env: {{ DATABASE_URL: \"{{{{ deps.db.url }}}}\", CONTRACT_DIR: {contract}, \
             PID_FILE: {pids}{env} }}\n    \
             health: {{ path: /health, timeout: 30s, interval: 50ms }}\n    \
             stop: {{ grace: 3s }}\n",
            fixtures = repo().join("tests/fixtures/verify").display(),
            contract = contract().display(),
            pids = dir.join(format!("pids-{name}")).display(),
        );
    }
    yaml += &format!(
        "workload: {{ path: /health }}\n\
         load: {{ mode: closed, connections: 1, timeout: 5s }}\n\
         measure: {{ duration: 1s }}\n\
         verify:\n  \
         - {{ name: health, path: /health, compare: [status] }}\n  \
         - {{ vectors: {shared}, cases: orders, method: POST, path: /api/orders/calculate, \
         headers: {{ content-type: application/json }}, prefix: \"order \" }}\n  \
         - {{ vectors: products.json, headers: {{ content-type: application/json }} }}\n",
        shared = contract().join("microservices.json").display(),
    );
    let path = dir.join("spec.yaml");
    std::fs::write(&path, yaml).unwrap();
    path
}

fn start_verify(spec: &Path, scratch: &Path) -> std::process::Child {
    runner()
        .arg("verify")
        .arg(spec)
        .env("TMPDIR", scratch)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs verify to its end (at most 3 minutes): exit code, stdout, stderr.
fn verify(spec: &Path, scratch: &Path) -> (Option<i32>, String, String) {
    let mut child = start_verify(spec, scratch);
    let ended = wait_for(Duration::from_secs(180), || {
        child.try_wait().unwrap().is_some()
    });
    if !ended {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(ended, "verify did not end:\n{stdout}\n{stderr}");
    (out.status.code(), stdout, stderr)
}

/// The postmaster's pid once it is up (postmaster.pid under the scratch folder).
fn postmaster(scratch: &Path) -> Option<i32> {
    std::fs::read_dir(scratch)
        .into_iter()
        .flatten()
        .flatten()
        .find_map(|e| {
            let text = std::fs::read_to_string(e.path().join("data/postmaster.pid")).ok()?;
            text.lines().next()?.trim().parse::<i32>().ok()
        })
}

/// Nothing is left: the services' and the database's processes, its port,
/// the scratch folder (data directory and socket).
fn assert_nothing_left(dir: &Path, scratch: &Path, db_port: u16, postmaster: Option<i32>) {
    let mut pids = all_pids(dir);
    assert!(!pids.is_empty(), "the services recorded their pids");
    pids.extend(postmaster);
    let alive = wait_all_gone(&pids, Duration::from_secs(15));
    assert!(alive.is_empty(), "processes survived: {alive:?}");
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
            db_port
        )),
        "the database's port {db_port} is still held"
    );
}

/// The verify.json of the single verify folder under `dir`.
fn report(dir: &Path) -> serde_json::Value {
    let root = dir.join("results/verify-test");
    let folder = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("verify-")
        })
        .unwrap();
    serde_json::from_slice(&std::fs::read(folder.join("verify.json")).unwrap()).unwrap()
}

#[test]
fn two_runtimes_each_see_a_fresh_seed_match_every_vector_and_leave_nothing() {
    needs_postgres!();
    let (tmp, scratch) = test_dir();
    let port = free_port();
    let spec = spec(tmp.path(), &[("alpha", ""), ("beta", "")], port, "");
    let mut child = start_verify(&spec, &scratch);
    let mut seen = None;
    assert!(
        wait_for(Duration::from_secs(120), || {
            seen = seen.or_else(|| postmaster(&scratch));
            seen.is_some() || child.try_wait().unwrap().is_some()
        }),
        "the database never started"
    );
    assert!(wait_for(Duration::from_secs(180), || child
        .try_wait()
        .unwrap()
        .is_some()));
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    // Every order case of the shared file, and the sliver of products steps
    // (all but `read-absent` with an expected response).
    let orders = shared_orders();
    let answered = orders
        .iter()
        .filter(|c| c.get("response").is_some())
        .count();
    assert!(
        stdout.contains(&format!(
            "EQUIVALENT: 2 runtime(s) gave the expected status and identical compared fields for all {} request(s), \
             each equal to the expected response of the {} from vectors files",
            1 + orders.len() + PRODUCT_STEPS.len(),
            answered + PRODUCT_STEPS.len() - 1,
        )),
        "{stdout}"
    );
    assert!(!stdout.contains('✗'), "{stdout}");
    for row in [
        "order simple-eu ",
        "create ",
        "read-created ",
        "list-across-created ",
    ] {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(row) && l.matches('✓').count() == 2),
            "no row for {row}: {stdout}"
        );
    }
    // Both runtimes created id 1001: the second found the seed, not the first one's row.
    let report = report(tmp.path());
    let records = report["runtimes"].as_array().unwrap();
    let notes: Vec<String> = records.iter().map(|r| r["notes"].to_string()).collect();
    assert!(notes[0].contains("dependency db started in"), "{notes:?}");
    assert!(notes[1].contains("dependency db reset in"), "{notes:?}");
    let create = report["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "create")
        .unwrap();
    assert_eq!(create["expect"][0]["value"], 1001, "{create}");
    assert_nothing_left(tmp.path(), &scratch, port, seen);
}

#[test]
fn a_wrong_price_in_one_runtime_is_named_with_its_field_and_the_expected_value() {
    needs_postgres!();
    let (tmp, scratch) = test_dir();
    let port = free_port();
    let spec = spec(
        tmp.path(),
        &[("right", ""), ("wrong", ", WRONG_CENTS: \"1\"")],
        port,
        "",
    );
    let (code, stdout, stderr) = verify(&spec, &scratch);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(
            "- order simple-eu (POST /api/orders/calculate): field `totalCents`: wrong 6119, expected 6118"
        ),
        "{stdout}"
    );
    let priced = shared_orders()
        .iter()
        .filter(|c| c["status"] == 200)
        .count();
    assert!(priced > 10, "{priced}");
    assert!(
        stdout.contains(&format!(
            "in short: wrong differs in `totalCents` on {priced} requests"
        )),
        "{stdout}"
    );
    assert!(
        !stdout.contains(": right "),
        "the right one is not named: {stdout}"
    );
    assert!(
        !stdout.contains("- create"),
        "the wrong one's database was reset too: {stdout}"
    );
    assert_nothing_left(tmp.path(), &scratch, port, None);
}

#[test]
fn a_dependency_that_never_gets_ready_fails_its_runtimes_naming_it_and_its_log() {
    let (tmp, scratch) = test_dir();
    let port = free_port();
    let mut path = spec(tmp.path(), &[("alpha", "")], port, "");
    // `alpha` needs a stub that never answers instead of the database.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("needs: [db]", "needs: [stub]")
        .replace("{{ deps.db.url }}", "postgresql://nobody@127.0.0.1:1/none");
    let text = text.replace(
        "runtimes:\n",
        "  stub:\n    start: sleep 30\n    health: { tcp: true, timeout: 1s, interval: 50ms }\nruntimes:\n",
    );
    path = tmp.path().join("broken.yaml");
    std::fs::write(&path, text).unwrap();
    let (code, stdout, stderr) = verify(&path, &scratch);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    for part in [
        "- alpha: dependency failed: dependency `stub` failed to start",
        "the runtimes that need it (alpha) cannot be checked",
        "did not pass within 1s",
        "dependency-stub.log",
        "alpha  FAILED at dependency",
    ] {
        assert!(stdout.contains(part), "`{part}` not in:\n{stdout}");
    }
    assert!(
        !stderr.contains("alpha: starting"),
        "the runtime was not started: {stderr}"
    );
    let empty = std::fs::read_dir(&scratch).unwrap().next().is_none();
    assert!(empty, "the stub's scratch folder is removed");
}

#[test]
fn nothing_is_left_after_sigint_while_a_runtime_starts() {
    needs_postgres!();
    let (tmp, scratch) = test_dir();
    let port = free_port();
    let spec = spec(tmp.path(), &[("slow", ", HEALTH_DELAY: \"60\"")], port, "");
    let mut child = start_verify(&spec, &scratch);
    let mut seen = None;
    assert!(
        wait_for(Duration::from_secs(120), || {
            seen = seen.or_else(|| postmaster(&scratch));
            seen.is_some() && tmp.path().join("pids-slow").exists()
        }),
        "the database and the service never started"
    );
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert!(wait_for(Duration::from_secs(60), || child
        .try_wait()
        .unwrap()
        .is_some()));
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains(
            "verify: interrupted by SIGINT: every service and dependency it started is stopped"
        ),
        "{stderr}"
    );
    assert_nothing_left(tmp.path(), &scratch, port, seen);
}

#[test]
fn the_whole_shared_microservices_file_is_read_as_format_1() {
    let tmp = tempfile::tempdir().unwrap();
    let shared = contract().join("microservices.json");
    let path = tmp.path().join("spec.yaml");
    std::fs::write(
        &path,
        format!(
            "experiment: {{ name: t }}\nruntimes: {{ a: {{ start: x }} }}\nworkload: {{ path: / }}\n\
             load: {{ connections: 1 }}\nmeasure: {{ requests: 1 }}\nverify:\n\
             \x20 - {{ vectors: {f}, cases: orders, method: POST, path: /api/orders/calculate, prefix: \"order \" }}\n\
             \x20 - {{ vectors: {f}, cases: products }}\n\
             \x20 - {{ vectors: {f}, cases: dashboard.cases }}\n",
            f = shared.display()
        ),
    )
    .unwrap();
    let out = runner_within(Duration::from_secs(30))
        .args(["plan", path.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&shared).unwrap()).unwrap();
    let lists = [&doc["orders"], &doc["products"], &doc["dashboard"]["cases"]];
    let cases: Vec<&serde_json::Value> = lists.iter().flat_map(|l| l.as_array().unwrap()).collect();
    let planned = plan["verify"].as_array().unwrap();
    assert_eq!(planned.len(), cases.len());
    // In file order, each with its status and every expected member.
    for (request, case) in planned.iter().zip(&cases) {
        assert!(
            request["name"]
                .as_str()
                .unwrap()
                .ends_with(case["name"].as_str().unwrap()),
            "{request} vs {case}"
        );
        let status = case.get("status").and_then(|s| s.as_u64()).unwrap_or(200);
        assert_eq!(request["expect_status"], status, "{request}");
        let members = case
            .get("response")
            .map_or(0, |r| r.as_object().unwrap().len());
        let expected = request
            .get("expect")
            .map_or(0, |e| e.as_array().unwrap().len());
        assert_eq!(expected, members, "{request}");
    }
}
