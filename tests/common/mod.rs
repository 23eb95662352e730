//! Helpers shared by the test targets: the runner binary, golden files,
//! fixture paths, free ports, process checks.
#![allow(dead_code)]
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Debian's nginx (scripts/install-web-servers.sh installs it from .ci/run).
pub const NGINX: &str = "/usr/sbin/nginx";

/// True (and the test is said to be skipped) when nginx is not installed.
pub fn nginx_missing() -> bool {
    let missing = !Path::new(NGINX).exists();
    if missing {
        eprintln!(
            "skipped: nginx is not installed ({NGINX}); scripts/install-web-servers.sh installs it"
        );
    }
    missing
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/exec")
}

/// A port that no socket on this host uses, chosen below the kernel's
/// ephemeral range (32768 and up) like the runner's own auto ports: test
/// servers bound to port 0 and outgoing connections, both from that range,
/// cannot take it before the service under test binds it.
///
/// It reads /proc/net/tcp{,6} instead of binding a probe socket: a probe
/// socket open at the moment another test thread forks a service would be
/// inherited by that child until it execs, and the service's own
/// "port in use" check would then see it taken (seen once in CI).
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let base = std::process::id().wrapping_mul(7919);
    loop {
        let port = 20000 + (base.wrapping_add(NEXT.fetch_add(1, Ordering::Relaxed)) % 12000) as u16;
        if !ports_in_use().contains(&port) {
            return port;
        }
    }
}

/// Local ports of every TCP socket on this host, in any state.
fn ports_in_use() -> std::collections::HashSet<u16> {
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .flat_map(|text| {
            text.lines()
                .skip(1)
                .filter_map(|line| {
                    let local = line.split_whitespace().nth(1)?;
                    let (_, port) = local.rsplit_once(':')?;
                    u16::from_str_radix(port, 16).ok()
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// True when `pid` names a live (non-zombie) process.
pub fn pid_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(text) => {
            let state = text
                .rsplit_once(')')
                .and_then(|(_, r)| r.trim_start().chars().next());
            !matches!(state, Some('Z') | Some('X') | None)
        }
        Err(_) => false,
    }
}

/// The pids listed one per line in `file` (none when it does not exist).
pub fn pids_in(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// Waits up to `timeout` for every pid in `pids` to be gone; returns the survivors.
pub fn wait_all_gone(pids: &[i32], timeout: Duration) -> Vec<i32> {
    let deadline = Instant::now() + timeout;
    loop {
        let alive: Vec<i32> = pids.iter().copied().filter(|&p| pid_alive(p)).collect();
        if alive.is_empty() || Instant::now() >= deadline {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits up to `timeout` for `cond`.
pub fn wait_for(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    cond()
}

/// A runtime running `tests/fixtures/exec/service.py` from `dir` with `env`.
pub fn py_runtime(
    name: &str,
    dir: &Path,
    port: u16,
    env: &[(&str, &str)],
) -> runner::plan::RuntimePlan {
    use runner::plan::*;
    let mut all: std::collections::BTreeMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    all.insert("PORT".into(), port.to_string());
    RuntimePlan {
        name: name.into(),
        dir: dir.to_path_buf(),
        build: vec![],
        start: format!("python3 {}", fixtures().join("service.py").display()),
        env: all,
        pass_env: vec![],
        jvm_flags: vec![],
        java: None,
        port,
        scratch: None,
        restart: Restart::Repeat,
        repeats: RepeatPolicy::Fixed { repeats: 1 },
        health: HealthPlan::http(
            "/health",
            Duration::from_secs(10),
            Duration::from_millis(50),
        ),
        stop: StopPlan {
            signal: libc::SIGTERM,
            signal_name: "TERM".into(),
            grace: Duration::from_secs(5),
        },
        train: None,
        tags: vec![],
        artifact: None,
        deployable: Vec::new(),
        tools: vec!["python3".into()],
        startup_repeats: 0,
        log_cap_bytes: 16 << 20,
        needs: vec![],
        protocols: vec![runner::plan::Protocol::Http1],
        profile: None,
        first_requests: 0,
        source: None,
    }
}

/// One runtime of a test spec: the fixture service with `env`.
pub struct PyRuntime<'a> {
    pub name: &'a str,
    pub env: &'a [(&'a str, &'a str)],
    /// Extra YAML lines for the runtime (already indented by 4 spaces).
    pub extra: &'a str,
}

/// Writes a spec over the fixture service into `dir/spec.yaml`: every
/// runtime records its pids in `dir/pids-<name>`; results go to `dir/results`.
pub fn write_spec(dir: &Path, runtimes: &[PyRuntime], rest: &str) -> PathBuf {
    let mut yaml = String::from(
        "experiment: { name: exec-test, title: exec test, description: tiny python services }\nruntimes:\n",
    );
    for rt in runtimes {
        yaml.push_str(&format!("  {}:\n", rt.name));
        if !rt.extra.contains("    start:") {
            yaml.push_str("    start: python3 service.py\n");
        }
        // Defaults unless the runtime's extra lines set them.
        if !rt.extra.contains("    dir:") {
            yaml.push_str(&format!("    dir: {}\n", fixtures().display()));
        }
        if !rt.extra.contains("    health:") {
            yaml.push_str("    health: { path: /health, timeout: 10s, interval: 50ms }\n");
        }
        yaml.push_str(&format!(
            "    stop: {{ signal: TERM, grace: 3s }}\n    env:\n      PID_FILE: {}\n",
            dir.join(format!("pids-{}", rt.name)).display()
        ));
        for (k, v) in rt.env {
            yaml.push_str(&format!("      {k}: \"{v}\"\n"));
        }
        yaml.push_str(rt.extra);
    }
    yaml.push_str(rest);
    let path = dir.join("spec.yaml");
    std::fs::write(&path, yaml).unwrap();
    path
}

/// The usual tail of a test spec: 2 payloads x 2 concurrencies, short cells.
/// No cold starts (tests/exec_gates.rs covers them), and the two gates that
/// judge the host rather than the service off, as [`QUIET_HOST`] says why:
/// these tests check the lifecycle, on a 2-core host shared with builds.
pub const SMALL_MATRIX: &str = r#"workload: { method: GET, path: "/work/{{ payload }}", expect: { status: 200 } }
axes: { payload: [16, 256], concurrency: [1, 2] }
load: { mode: closed, timeout: 2s }
repeats: 1
warmup: { service: 200ms, cell: 100ms }
measure: { duration: 300ms }
sample: { interval: 50ms }
faults: { max_restarts: 1 }
startup: { repeats: 0 }
gates: { generator_wait: off, littles_law: off }
"#;

/// What test specs add (SMALL_MATRIX has it already) so that their verdicts judge the service, not this
/// shared host: no extra cold starts (tests count starts and pids), and the
/// two gates that judge the host off, since a busy CI host makes cells
/// `suspect` by them at random. The generator waiting for a CPU:
/// tests/exec_busy_host.rs makes the host busy on purpose and checks it
/// fires. Little's law: the debug build's generator spends tens of
/// microseconds of its own between an answer and the next request, against
/// the fixture's answers in a fraction of a millisecond, so at one
/// connection it sits near its 10% limit; CI once saw 0.85 in flight at 1
/// connection with the generator waiting 63% of the window. Its arithmetic
/// is unit-tested (exec::gates); no construction tried here (busy loops on
/// the generator's CPU at 1 to 64 connections) makes it fire on demand.
pub const QUIET_HOST: &str =
    "startup: { repeats: 0 }\ngates: { generator_wait: off, littles_law: off }\n";

/// Every pid any runtime of a test spec recorded under `dir`.
pub fn all_pids(dir: &Path) -> Vec<i32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.file_name().to_string_lossy().starts_with("pids-") {
            pids.extend(pids_in(&entry.path()));
        }
    }
    pids
}

/// The single run directory under `dir/results/exec-test`.
pub fn run_dir(dir: &Path) -> PathBuf {
    let exp = dir.join("results/exec-test");
    let runs: Vec<PathBuf> = std::fs::read_dir(&exp)
        .unwrap_or_else(|e| panic!("{}: {e}", exp.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && !p.ends_with(".build-cache"))
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs[0].clone()
}

/// measurements.csv rows as maps column -> value.
pub fn measurements(run: &Path) -> Vec<std::collections::HashMap<String, String>> {
    read_rows(&run.join("measurements.csv"))
}

/// The configurations.csv row of `runtime` in `run` (panics when absent).
pub fn configuration(run: &Path, runtime: &str) -> std::collections::HashMap<String, String> {
    let rows = read_rows(&run.join("configurations.csv"));
    rows.into_iter()
        .find(|r| r["runtime"] == runtime)
        .unwrap_or_else(|| panic!("no configurations.csv row for {runtime}"))
}

pub fn read_rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let Ok(mut reader) = csv::Reader::from_path(path) else {
        return Vec::new();
    };
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .map(String::from)
                .zip(r.iter().map(String::from))
                .collect()
        })
        .collect()
}

/// The `runner` binary cargo built for this test run, as a plain Command (so
/// tests can spawn and signal it); `use assert_cmd::prelude::*` adds
/// `.assert()`.
pub fn runner() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_runner"))
}

/// [`runner`] killed after `limit`: a run that hangs fails its test instead
/// of hanging the suite.
pub fn runner_within(limit: Duration) -> assert_cmd::Command {
    let mut command = assert_cmd::Command::from(runner());
    command.timeout(limit);
    command
}

/// Runs `runner exec spec` within `limit`: its exit code and its stdout + stderr.
pub fn exec_within(spec: &Path, limit: Duration) -> (Option<i32>, String) {
    let out = runner_within(limit).arg("exec").arg(spec).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

/// [`exec_within`], which must exit 0: its output.
pub fn exec_ok(spec: &Path, limit: Duration) -> String {
    let (code, text) = exec_within(spec, limit);
    assert_eq!(code, Some(0), "{text}");
    text
}

/// Set it (`UPDATE_GOLDEN=1 cargo test --test NAME`) to rewrite the golden
/// files with what the tests produce, then review the diff.
pub const UPDATE_GOLDEN: &str = "UPDATE_GOLDEN";

/// Compares `actual` with the golden file at `path` (relative to the
/// repository root, or absolute); panics on a difference or a missing file,
/// unless [`UPDATE_GOLDEN`] is set, which writes the file instead.
pub fn assert_golden(path: impl AsRef<Path>, actual: &str) {
    let update = std::env::var_os(UPDATE_GOLDEN).is_some();
    if let Err(why) = check_golden(path.as_ref(), actual, update) {
        panic!("{why}");
    }
}

/// [`assert_golden`] as a value: `Err` says which file and where it differs.
/// With `update`, writes `actual` to the file (creating folders) instead.
pub fn check_golden(path: &Path, actual: &str, update: bool) -> Result<(), String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    if update {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        return std::fs::write(&path, actual).map_err(|e| format!("{}: {e}", path.display()));
    }
    let expected = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "golden file {} cannot be read ({e}); run with {UPDATE_GOLDEN}=1 to create it, then review it",
            path.display()
        )
    })?;
    if expected == actual {
        return Ok(());
    }
    let (e_lines, a_lines): (Vec<&str>, Vec<&str>) =
        (expected.lines().collect(), actual.lines().collect());
    let first = e_lines
        .iter()
        .zip(&a_lines)
        .position(|(e, a)| e != a)
        .unwrap_or(e_lines.len().min(a_lines.len()));
    // Short outputs (messages) are shown whole; long ones (reports) by line.
    let whole = if actual.len() < 4000 {
        format!("--- golden ---\n{expected}--- actual ---\n{actual}--- end ---\n")
    } else {
        String::new()
    };
    Err(format!(
        "{} differs at line {}:\n  golden: {:?}\n  actual: {:?}\n{whole}\
         If the change is intended, rerun with {UPDATE_GOLDEN}=1 and review the diff.",
        path.display(),
        first + 1,
        e_lines.get(first).copied().unwrap_or("<end of file>"),
        a_lines.get(first).copied().unwrap_or("<end of output>"),
    ))
}

/// A runtime block: the downstream stub (runtimes/stub) built into
/// `dir/stub-<name>` and started with one route `work=/work/{n}` delayed by
/// `delay`.
pub fn stub_runtime(dir: &Path, name: &str, delay: &str) -> String {
    let stub = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("runtimes/stub");
    let bin = dir.join(format!("stub-{name}"));
    format!(
        "  {name}:\n    dir: {stub}\n    build: [\"go build -trimpath -o {bin} .\"]\n\
         \x20   start: \"{bin} --seed 7 --route 'work=/work/{{n}}:{delay}:fixtures/user.json'\"\n\
         \x20   health: {{ path: /health, timeout: 20s, interval: 50ms }}\n\
         \x20   stop: {{ signal: TERM, grace: 3s }}\n",
        stub = stub.display(),
        bin = bin.display(),
    )
}

/// `git ARGS` in `repo` as a fixed author, never signing: its trimmed
/// standard output (a repository a test builds, so its commits are known).
pub fn git(repo: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A copy of the fixture service in `dir`.
pub fn service_in(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::copy(fixtures().join("service.py"), dir.join("service.py")).unwrap();
}

/// The newest run under `dir/results/exec-test` (run ids sort by time).
pub fn newest_run(dir: &Path) -> PathBuf {
    let mut runs: Vec<PathBuf> = std::fs::read_dir(dir.join("results/exec-test"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("status.json").is_file())
        .collect();
    runs.sort();
    runs.pop().unwrap()
}

/// Where `file` can be planned: itself, or, when its runtimes are built
/// from git revisions (`source: { git: REV }`, which resolve only in the
/// repository that has them, as scripts/test-guides.sh runs the guide's),
/// a copy at the root of a throwaway repository under `tmp` whose one
/// commit carries every revision it names as a tag (a revision git refuses
/// as a tag name stays unresolved, as it would anywhere).
pub fn plannable(file: &Path, tmp: &Path) -> PathBuf {
    // A file that is not text names no revision (the bad-spec corpus has one).
    let Ok(text) = std::fs::read_to_string(file) else {
        return file.to_path_buf();
    };
    let revisions: Vec<&str> = text
        .split("source: { git: ")
        .skip(1)
        .filter_map(|rest| rest.split(['}', ' ']).next())
        .collect();
    if revisions.is_empty() {
        return file.to_path_buf();
    }
    let repo = tmp.join(format!(
        "repo-of-{}",
        file.file_stem().unwrap().to_string_lossy()
    ));
    std::fs::create_dir_all(&repo).unwrap();
    let copy = repo.join(file.file_name().unwrap());
    std::fs::write(&copy, &text).unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "the spec"]);
    for rev in revisions {
        let _ = std::process::Command::new("git")
            .args(["tag", rev])
            .current_dir(&repo)
            .output();
    }
    copy
}
