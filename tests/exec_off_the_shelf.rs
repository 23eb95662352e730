//! A server the user did not build (Debian's nginx, installed by
//! scripts/install-web-servers.sh from .ci/run), benchmarked end to end
//! through the real binary: its port exists only in a config file rendered
//! per start from a template (`files:`), it is ready when its port accepts
//! (`health: { tcp: true }`: nginx has no health endpoint), its `start` has
//! no shell syntax so it runs directly (no `sh` in the measured tree), and
//! its version (`version: nginx -v`) is recorded; a changed version makes
//! `runner compare` exit 2 naming it.
mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::*;

/// A spec serving the fixture's static files with nginx through `bin/nginx`
/// (a wrapper in `dir`, so that a test can stand in an upgrade), results in
/// `dir/results`.
fn nginx_spec(dir: &Path) -> PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/off_the_shelf");
    let yaml = format!(
        r#"experiment: {{ name: exec-test }}
runtimes:
  nginx:
    dir: {fixture}
    version: {dir}/bin/nginx -v
    files: {{ nginx.conf: nginx.conf.j2 }}
    start: {dir}/bin/nginx -e stderr -c {{{{ scratch }}}}/nginx.conf
    health: {{ tcp: true, timeout: 10s }}
    stop: {{ signal: QUIT, grace: 5s }}
workload: {{ path: "/{{{{ size }}}}.txt" }}
axes: {{ size: [1k, 16k] }}
# An open loop well below what nginx serves: a closed loop against nginx
# saturates the (debug-built) generator, rightly flagged `suspect`.
load: {{ mode: open, rate: 200, connections: 2, timeout: 2s }}
repeats: 1
warmup: {{ service: 100ms, cell: 100ms }}
measure: {{ duration: 1s }}
startup: {{ repeats: 0 }}
gates: {{ generator_wait: off, littles_law: off }}
results: {dir}/results
"#,
        fixture = fixture.display(),
        dir = dir.display(),
    );
    let spec = dir.join("spec.yaml");
    std::fs::write(&spec, yaml).unwrap();
    spec
}

/// `bin/nginx`: the real nginx, or, with `claims` set, one whose `-v` says
/// that version (what an upgrade of the server looks like to runner).
fn install_wrapper(dir: &Path, claims: Option<&str>) {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = match claims {
        None => format!("#!/bin/sh\nexec {NGINX} \"$@\"\n"),
        Some(v) => format!(
            "#!/bin/sh\nif [ \"$1\" = -v ]; then echo 'nginx version: nginx/{v}' >&2; exit 0; fi\nexec {NGINX} \"$@\"\n"
        ),
    };
    let path = bin.join("nginx");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

/// Runs `spec` with TMPDIR at `tmpdir` (where scratch folders are made).
fn exec(spec: &Path, tmpdir: &Path) -> std::process::Output {
    let out = runner_within(Duration::from_secs(120))
        .arg("exec")
        .arg(spec)
        .env("TMPDIR", tmpdir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The one run folder under `results/exec-test` whose name is not in `not`.
fn new_run(dir: &Path, not: &[PathBuf]) -> PathBuf {
    let runs: Vec<PathBuf> = std::fs::read_dir(dir.join("results/exec-test"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && !p.ends_with(".build-cache") && !not.contains(p))
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs[0].clone()
}

#[test]
fn nginx_from_a_rendered_config_is_measured_directly_with_its_version() {
    if nginx_missing() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let tmpdir = dir.join("tmp");
    std::fs::create_dir(&tmpdir).unwrap();
    install_wrapper(dir, None);
    let spec = nginx_spec(dir);
    exec(&spec, &tmpdir);
    let run = new_run(dir, &[]);

    // Every cell measured, every answer the 1 KiB file.
    let rows = measurements(&run);
    assert_eq!(rows.len(), 2, "{rows:?}");
    for row in &rows {
        assert_eq!(row["status"], "ok", "{row:?}");
        assert_eq!(row["errors"], "0", "{row:?}");
        assert!(row["requests"].parse::<u64>().unwrap() > 0, "{row:?}");
    }
    // The config as rendered for the run is kept, with the planned port in it.
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("plan.json")).unwrap()).unwrap();
    let port = plan["runtimes"][0]["port"].as_u64().unwrap();
    let conf = std::fs::read_to_string(run.join("files/nginx/nginx.conf")).unwrap();
    assert!(
        conf.contains(&format!("listen 127.0.0.1:{port};")),
        "{conf}"
    );
    // Started directly: the log says so, and no shell held memory.
    let log = std::fs::read_to_string(run.join("logs/nginx.log")).unwrap();
    assert!(log.contains(" directly: "), "{log}");
    for row in read_rows(&run.join("lifecycle.csv")) {
        assert_eq!(row["shell_rss_bytes"], "", "{row:?}");
    }
    // The version is recorded and shown.
    let env: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("environment.json")).unwrap())
            .unwrap();
    let version = env["versions"]["runtime nginx"].as_str().unwrap();
    // The toolchains recorded are those the spec's runtimes use: none here.
    let tools = env["toolchains"].as_object().unwrap();
    assert!(
        !tools.contains_key("go") && !tools.contains_key("mvn"),
        "{tools:?}"
    );
    assert!(version.starts_with("nginx version: nginx/"), "{version}");
    // Each start's scratch folder is gone with its stop.
    let left: Vec<_> = std::fs::read_dir(&tmpdir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "scratch folders left: {left:?}");

    // The same spec against an "upgraded" nginx: not comparable, named.
    install_wrapper(dir, Some("1.99.0"));
    exec(&spec, &tmpdir);
    let upgraded = new_run(dir, std::slice::from_ref(&run));
    let out = runner()
        .arg("compare")
        .arg(&run)
        .arg(&upgraded)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "version of runtime nginx: \"{version}\" vs \"nginx version: nginx/1.99.0\""
        )),
        "{stderr}"
    );
}
