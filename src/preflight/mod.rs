//! Preflight: everything that can be checked before anything long starts.
//! All problems are collected and reported together.
pub mod build_output;
pub mod dependencies;
pub mod limits;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::affinity::allowed_cpus;
use crate::plan::{Plan, RuntimePlan, toolchains::tools};
use crate::process::runtime_env;
use crate::service::check_port_free;

/// What preflight found.
#[derive(Debug, Default)]
pub struct Preflight {
    /// Problems that stop the run before anything starts (exit 2).
    pub problems: Vec<String>,
    /// Runtimes whose toolchain (a tool on PATH, the JDK) is missing here, with
    /// why: they are skipped with a clear line and the others still run, so a
    /// first run on a machine without, say, Maven still measures the rest.
    /// What a build may produce (its start executable) is not checked here
    /// but after the build (see `build_output`).
    pub unavailable: Vec<(String, String)>,
}

/// Checks the runtimes named in `runtimes` (those with cells left to run)
/// and the results directory.
pub fn preflight(plan: &Plan, runtimes: &BTreeSet<String>) -> Preflight {
    let mut problems = Vec::new();
    let mut unavailable = Vec::new();
    let mut ports_seen = BTreeSet::new();
    for rt in plan.runtimes.iter().filter(|r| runtimes.contains(&r.name)) {
        check_dir(rt, &mut problems);
        let missing = toolchain_problems(rt);
        if !missing.is_empty() {
            unavailable.push((rt.name.clone(), missing.join("; ")));
        }
        if ports_seen.insert(rt.port)
            && let Err(in_use) = check_port_free(&rt.name, rt.port)
        {
            problems.push(in_use.to_string());
        }
    }
    for (name, why) in dependencies::unavailable(plan, runtimes) {
        match unavailable.iter_mut().find(|(n, _)| *n == name) {
            Some((_, earlier)) => *earlier = format!("{earlier}; {why}"),
            None => unavailable.push((name, why)),
        }
    }
    if let Some(affinity) = &plan.affinity {
        let allowed = allowed_cpus();
        for (what, cpus) in [("service", &affinity.service), ("load", &affinity.load)] {
            let missing: Vec<usize> = cpus
                .iter()
                .copied()
                .filter(|c| !allowed.contains(c))
                .collect();
            if !missing.is_empty() {
                problems.push(format!(
                    "affinity.{what}: CPU(s) {missing:?} are not available to the runner (allowed: {allowed:?}); \
                     fix `affinity` in the spec (`taskset -pc $$` lists the usable CPUs)"
                ));
            }
        }
    }
    problems.extend(limits::limit_problems(
        plan,
        runtimes,
        crate::cgroup::host(),
    ));
    if let Err(e) = check_writable(&plan.results_dir) {
        problems.push(format!(
            "results directory {} is not writable: {e}; fix its permissions or set `results:` in the spec",
            plan.results_dir.display()
        ));
    }
    if !runtimes.is_empty() && unavailable.len() == runtimes.len() {
        // Nothing could run at all: that is a problem, not a skip.
        for (name, why) in unavailable.drain(..) {
            problems.push(format!("runtime {name}: {why}"));
        }
    }
    Preflight {
        problems,
        unavailable,
    }
}

fn check_dir(rt: &RuntimePlan, problems: &mut Vec<String>) {
    if !rt.dir.is_dir() {
        problems.push(format!(
            "runtime {}: directory {} does not exist; fix `dir` in the spec",
            rt.name,
            rt.dir.display()
        ));
    }
}

/// What `rt` needs before its build but this host lacks (its JDK, the
/// tools of [`tools::needed_before_build`]), one message each; empty when it
/// can be built here. Shared with `runner verify`.
pub fn toolchain_problems(rt: &RuntimePlan) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some(java) = &rt.java {
        match &java.home {
            None => problems.push(format!(
                "no JDK {} found (looked at JAVA_HOME and {}); install it or point `java:` at its home",
                java.requested,
                crate::plan::toolchains::java::JVM_ROOT
            )),
            Some(home) if !is_executable(&home.join("bin/java")) => problems.push(format!(
                "JDK home {} has no bin/java; point `java:` at a complete JDK",
                home.display()
            )),
            Some(_) => {}
        }
    }
    let path = command_path(rt);
    for tool in tools::needed_before_build(rt) {
        if program_found(tool, &path) {
            continue;
        }
        problems.push(if Path::new(tool).is_absolute() {
            format!("`{tool}` does not exist or is not executable; fix the command or install it")
        } else {
            format!("`{tool}` is not on PATH; install it or fix the runtime's commands")
        });
    }
    problems
}

/// The PATH the commands of `rt` search (its env's, else the runner's).
pub fn command_path(rt: &RuntimePlan) -> String {
    runtime_env(rt)
        .get("PATH")
        .cloned()
        .or_else(|| std::env::var("PATH").ok())
        .unwrap_or_default()
}

/// Whether `tool` (a program of [`tools`]) can run with `path`: an absolute
/// path must be an executable file, a name must be on `path` or a shell
/// builtin. Paths relative to the runtime dir (./build/server) are build
/// outputs, never checked.
pub fn program_found(tool: &str, path: &str) -> bool {
    if Path::new(tool).is_absolute() {
        return is_executable(Path::new(tool));
    }
    tool.contains('/') || find_on_path(tool, path).is_some() || is_shell_builtin(tool)
}

/// The first executable file named `tool` in the `:`-separated `path`.
pub fn find_on_path(tool: &str, path: &str) -> Option<PathBuf> {
    path.split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join(tool))
        .find(|p| is_executable(p))
}

/// True for words `sh` knows without PATH (`cd`, `wait`, `exec`, ...).
fn is_shell_builtin(word: &str) -> bool {
    // With an empty PATH, `command -v` finds only builtins.
    duct::cmd!("/bin/sh", "-c", "command -v \"$1\" >/dev/null", "sh", word)
        .env("PATH", "")
        .stdin_null()
        .stdout_null()
        .stderr_null()
        .unchecked()
        .run()
        .is_ok_and(|o| o.status.success())
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

fn check_writable(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let probe = dir.join(format!(".runner-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"ok")?;
    std::fs::remove_file(&probe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_builtins_need_no_path() {
        assert!(is_shell_builtin("wait") && is_shell_builtin("cd"));
        assert!(!is_shell_builtin("go") && !is_shell_builtin("no-such-tool-xyz"));
    }

    #[test]
    fn finds_sh_but_not_a_made_up_tool() {
        let path = std::env::var("PATH").unwrap();
        assert!(find_on_path("sh", &path).is_some());
        assert!(find_on_path("no-such-tool-xyz", &path).is_none());
    }
}
