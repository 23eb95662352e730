//! The JVM's collectors, driven through `jcmd` on the service's JVM: Java
//! Flight Recorder (`JFR.start` / `JFR.stop`) and async-profiler, loaded
//! into the running JVM with `JVMTI.agent_load` (no launcher flag, so the
//! measured starts run exactly as written).
use std::path::{Path, PathBuf};
use std::process::Command;

use super::error::ProfileError;
use crate::sample::procfs;

/// The largest JFR recording kept (JFR's own `maxsize`: older chunks are dropped).
pub const JFR_MAX_SIZE: &str = "64m";

/// The JVM among the processes of session `sid` (the service's group): the
/// one whose executable is `java`.
pub fn find_jvm(runtime: &str, sid: i32) -> Result<i32, ProfileError> {
    procfs::session_pids(sid)
        .into_iter()
        .find(|pid| {
            std::fs::read_link(format!("/proc/{pid}/exe"))
                .is_ok_and(|exe| exe.file_name().is_some_and(|n| n == "java"))
        })
        .ok_or_else(|| ProfileError::NoJvm {
            runtime: runtime.to_string(),
            sid,
        })
}

/// `jcmd` of the runtime's JDK (`JAVA_HOME/bin/jcmd`), else the one on PATH.
pub fn jcmd_program(java_home: Option<&Path>) -> PathBuf {
    java_home
        .map(|h| h.join("bin").join("jcmd"))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("jcmd"))
}

/// Runs `jcmd PID ARGS...`; an answer with a non-zero `return code:` (how
/// an agent reports failure) is an error too.
pub fn jcmd(jcmd: &Path, runtime: &str, pid: i32, args: &[&str]) -> Result<String, ProfileError> {
    let output = Command::new(jcmd)
        .arg(pid.to_string())
        .args(args)
        .output()
        .map_err(|cause| ProfileError::Spawn {
            program: jcmd.display().to_string(),
            runtime: runtime.to_string(),
            cause,
        })?;
    let text = String::from_utf8_lossy(&output.stdout).to_string()
        + &String::from_utf8_lossy(&output.stderr);
    let agent_failed = text
        .lines()
        .filter_map(|l| l.strip_prefix("return code: "))
        .any(|code| code.trim() != "0");
    if !output.status.success() || agent_failed {
        return Err(ProfileError::Command {
            command: format!("jcmd {pid} {}", args.join(" ")),
            runtime: runtime.to_string(),
            status: output.status.to_string(),
            output: format!(
                "{}; the agent's own message is in the service log",
                text.trim().replace('\n', " / ")
            ),
        });
    }
    Ok(text)
}

/// Starts a JFR recording (the `profile` settings) that `JFR.stop` writes to `file`.
pub fn jfr_start(
    jcmd_path: &Path,
    runtime: &str,
    pid: i32,
    file: &Path,
) -> Result<(), ProfileError> {
    let filename = format!("filename={}", file.display());
    let maxsize = format!("maxsize={JFR_MAX_SIZE}");
    jcmd(
        jcmd_path,
        runtime,
        pid,
        &[
            "JFR.start",
            "name=runner",
            "settings=profile",
            &maxsize,
            &filename,
        ],
    )
    .map(drop)
}

pub fn jfr_stop(jcmd_path: &Path, runtime: &str, pid: i32) -> Result<(), ProfileError> {
    jcmd(jcmd_path, runtime, pid, &["JFR.stop", "name=runner"]).map(drop)
}

/// What async-profiler samples: one event at a time, since its folded
/// (`collapsed`) output takes only one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsyncEvent {
    /// CPU time (perf_events where allowed, else its timer fallback).
    Cpu,
    /// Heap allocations, one sample per 512 KiB allocated.
    Alloc,
}

impl AsyncEvent {
    fn option(self) -> &'static str {
        match self {
            AsyncEvent::Cpu => "event=cpu,interval=10ms",
            AsyncEvent::Alloc => "event=alloc,alloc=512k",
        }
    }
}

/// The agent's option string, quoted: jcmd splits an unquoted option at `=`.
fn agent_option(text: &str) -> String {
    format!("\"{text}\"")
}

pub fn async_start(
    jcmd_path: &Path,
    runtime: &str,
    pid: i32,
    lib: &Path,
    event: AsyncEvent,
) -> Result<(), ProfileError> {
    agent_load(
        jcmd_path,
        runtime,
        pid,
        lib,
        &format!("start,{}", event.option()),
    )
}

/// `jcmd <pid> JVMTI.agent_load <lib> "<options>"`: async-profiler's commands.
fn agent_load(
    jcmd_path: &Path,
    runtime: &str,
    pid: i32,
    lib: &Path,
    options: &str,
) -> Result<(), ProfileError> {
    let lib_text = lib.display().to_string();
    let option = agent_option(options);
    jcmd(
        jcmd_path,
        runtime,
        pid,
        &["JVMTI.agent_load", &lib_text, &option],
    )
    .map(drop)
}

/// Stops async-profiler and has it write its samples as folded stacks to `file`.
pub fn async_stop(
    jcmd_path: &Path,
    runtime: &str,
    pid: i32,
    lib: &Path,
    event: AsyncEvent,
    file: &Path,
) -> Result<(), ProfileError> {
    // Allocation stacks are weighed in bytes (`total`), CPU stacks in samples.
    let total = if event == AsyncEvent::Alloc {
        ",total"
    } else {
        ""
    };
    agent_load(
        jcmd_path,
        runtime,
        pid,
        lib,
        &format!("stop,collapsed{total},file={}", file.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_options_are_quoted_for_jcmd() {
        assert_eq!(agent_option("start,event=cpu"), "\"start,event=cpu\"");
    }

    #[test]
    fn a_session_without_java_has_no_jvm() {
        // A session of its own holding only `sleep`: the test's own session
        // may hold a JVM (scripts/test-all.sh runs the Java services' suites
        // beside this one, and CI failed on it once).
        use std::os::unix::process::CommandExt;
        let mut sleeper = std::process::Command::new("sleep");
        sleeper.arg("30");
        // SAFETY: setsid is async-signal-safe, called between fork and exec.
        unsafe {
            sleeper.pre_exec(|| {
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = sleeper.spawn().expect("sleep starts");
        let sid = child.id() as i32;
        let found = find_jvm("jvm", sid);
        let _ = child.kill();
        let _ = child.wait();
        let err = found.unwrap_err().to_string();
        assert!(err.contains("runtime jvm: no JVM found"), "{err}");
    }
}
