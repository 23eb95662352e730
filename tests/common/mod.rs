//! Helpers shared by the exec tests: fixture paths, free ports, process checks.
#![allow(dead_code)]
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/exec")
}

/// A port that was free a moment ago.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
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
        jvm_flags: vec![],
        java: None,
        port,
        health: HealthPlan {
            path: "/health".into(),
            timeout: Duration::from_secs(10),
            interval: Duration::from_millis(50),
        },
        stop: StopPlan {
            signal: libc::SIGTERM,
            signal_name: "TERM".into(),
            grace: Duration::from_secs(5),
        },
        train: None,
        tags: vec![],
        artifact: None,
        tools: vec!["python3".into()],
    }
}
