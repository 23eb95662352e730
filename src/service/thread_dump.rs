//! A thread dump of a hung JVM, taken before runner stops it: the only
//! record of why a service stopped answering (a deadlock, every carrier
//! thread of its virtual threads pinned, a pool exhausted) once the process
//! is gone. Asked of the JVM with its own JDK's `jcmd` (the attach
//! listener is a thread of its own, so a JVM whose request threads are all
//! stuck still answers): on JDK 21 and later `Thread.dump_to_file`, which
//! lists virtual threads too; before 21 `Thread.print`.
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long jcmd may take (attaching to a loaded JVM takes a second or two).
const JCMD_TIMEOUT: Duration = Duration::from_secs(30);

/// Why no dump was taken.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ThreadDumpError {
    #[error("no java process among the service's processes")]
    NoJvm,
    #[error("{jcmd} did not answer within {}s", JCMD_TIMEOUT.as_secs())]
    TimedOut { jcmd: String },
    #[error("{jcmd} failed: {output}")]
    Failed { jcmd: String, output: String },
}

/// Dumps the threads of the first `java` process among `pids` into `to`,
/// with `jdk_home`'s jcmd; `major` is that JDK's major version.
pub fn dump_jvm_threads(
    pids: &[i32],
    jdk_home: &Path,
    major: u32,
    to: &Path,
) -> Result<PathBuf, ThreadDumpError> {
    let pid = pids
        .iter()
        .copied()
        .find(|&pid| is_java(pid))
        .ok_or(ThreadDumpError::NoJvm)?;
    let jcmd = jdk_home.join("bin").join("jcmd");
    let shown = jcmd.display().to_string();
    // The JVM writes the file itself, and jcmd reads `key=value` out of
    // its arguments: a cell's file name (`payload=16`) would be taken for
    // an option, so it writes a plain name beside it, renamed after.
    let written = to.with_file_name(format!("jcmd-{pid}.threads.txt"));
    let pid = pid.to_string();
    let target = written.display().to_string();
    let args: Vec<&str> = if major >= 21 {
        vec![
            &pid,
            "Thread.dump_to_file",
            "-overwrite",
            "-format=plain",
            &target,
        ]
    } else {
        vec![&pid, "Thread.print", "-l"]
    };
    let handle = duct::cmd(&jcmd, &args)
        .stdin_null()
        .stderr_to_stdout()
        .stdout_capture()
        .unchecked()
        .start()
        .map_err(|e| ThreadDumpError::Failed {
            jcmd: shown.clone(),
            output: e.to_string(),
        })?;
    let output = match handle.wait_timeout(JCMD_TIMEOUT) {
        Ok(Some(out)) => out.clone(),
        _ => {
            let _ = handle.kill();
            return Err(ThreadDumpError::TimedOut { jcmd: shown });
        }
    };
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() {
        return Err(ThreadDumpError::Failed {
            jcmd: shown,
            output: text.lines().last().unwrap_or_default().to_string(),
        });
    }
    let saved = if major >= 21 {
        std::fs::rename(&written, to)
    } else {
        std::fs::write(to, &text)
    };
    // jcmd exits 0 when the command itself failed: the missing file says so.
    saved.map_err(|e| ThreadDumpError::Failed {
        jcmd: shown,
        output: format!(
            "{} ({}: {e})",
            text.lines().last().unwrap_or_default(),
            to.display()
        ),
    })?;
    Ok(to.to_path_buf())
}

/// Whether `pid` runs a `java` launcher (its executable's file name).
fn is_java(pid: i32) -> bool {
    std::fs::read_link(format!("/proc/{pid}/exe"))
        .is_ok_and(|exe| exe.file_name().is_some_and(|n| n == "java"))
}
