//! The guard: a tiny `sh` per service that kills the service's process
//! group, and everything in its cgroup, when the runner dies, however it dies.
//!
//! The guard blocks reading a pipe whose only writer is the runner. When the
//! runner exits (even by SIGKILL) the kernel closes that pipe, `read` returns
//! and the guard SIGKILLs the group. It lives in its own session, so a Ctrl-C
//! on the terminal does not reach it, and it holds no other resources.
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::process::{Containment, spawn_contained};

/// `$1` the process group; `$2` a v2 `cgroup.kill` file or empty; then the
/// service's cgroup directories. After the group, the cgroup: `cgroup.kill`
/// where there is one, and on v1 (and as a backstop) the pids listed in
/// each `cgroup.procs` killed until none is left; then the directories go.
const SCRIPT: &str = r#"read _ignored; kill -s KILL -- "-$1" 2>/dev/null
[ -n "$2" ] && echo 1 > "$2" 2>/dev/null
shift 2
for d in "$@"; do
  i=0
  while [ "$i" -lt 200 ]; do
    p=$(cat "$d/cgroup.procs" 2>/dev/null)
    [ -z "$p" ] && break
    kill -s KILL $p 2>/dev/null
    sleep 0.02
    i=$((i+1))
  done
  rmdir "$d" 2>/dev/null
done
exit 0"#;

pub struct Guard {
    child: Child,
}

impl Guard {
    /// Arms a guard for process group `pgid`.
    pub fn arm(pgid: i32) -> io::Result<Guard> {
        Guard::arm_with_cgroup(pgid, None, &[])
    }

    /// Arms a guard for process group `pgid` and the cgroup whose v2
    /// `cgroup.kill` is `kill` and whose directories are `dirs`
    /// ([`crate::cgroup::ServiceCgroup::guard_targets`]).
    pub fn arm_with_cgroup(pgid: i32, kill: Option<&Path>, dirs: &[PathBuf]) -> io::Result<Guard> {
        let pgid = pgid.to_string();
        let mut args: Vec<&OsStr> =
            vec![pgid.as_ref(), kill.map(Path::as_os_str).unwrap_or_default()];
        args.extend(dirs.iter().map(|d| d.as_os_str()));
        Ok(Guard {
            child: spawn_watchdog(SCRIPT, "runner-guard", &args)?,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Releases the guard once the group is known to be gone: closing the
    /// pipe makes it run its (now harmless) kill and exit; it is then reaped.
    pub fn disarm(mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// Spawns `sh -c script name args...` in a session of its own with a pipe
/// on its stdin: a watchdog whose `read` returns when the runner dies (the
/// pipe closes, even on SIGKILL), which then does what `script` says. The
/// guard of a service and the guard of a dependency's scratch folder.
pub(super) fn spawn_watchdog(script: &str, name: &str, args: &[&OsStr]) -> io::Result<Child> {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", script, name])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let how = Containment {
        new_session: true,
        ..Default::default()
    };
    spawn_contained(cmd, &how)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::procfs::read_stat;
    use std::time::{Duration, Instant};

    #[test]
    fn closing_the_pipe_kills_the_group() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 30 & sleep 30; wait"]);
        let how = Containment {
            new_session: true,
            ..Default::default()
        };
        let mut service = spawn_contained(cmd, &how).unwrap();
        let pgid = service.id() as i32;
        let guard = Guard::arm(pgid).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        assert!(crate::sample::session_alive(pgid));
        let start = Instant::now();
        guard.disarm();
        let status = service.wait().unwrap();
        assert!(start.elapsed() < Duration::from_secs(5));
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(libc::SIGKILL)
        );
        std::thread::sleep(Duration::from_millis(100));
        assert!(!crate::sample::session_alive(pgid));
        assert!(read_stat(pgid).is_none());
    }
}
