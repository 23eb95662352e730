//! The guard: a tiny `sh` per service that kills the service's process
//! group when the runner dies, however it dies.
//!
//! The guard blocks reading a pipe whose only writer is the runner. When the
//! runner exits (even by SIGKILL) the kernel closes that pipe, `read` returns
//! and the guard SIGKILLs the group. It lives in its own session, so a Ctrl-C
//! on the terminal does not reach it, and it holds no other resources.
use std::io;
use std::process::{Child, Command, Stdio};

use crate::process::{Containment, spawn_contained};

const SCRIPT: &str = r#"read _ignored; kill -s KILL -- "-$1" 2>/dev/null; exit 0"#;

pub struct Guard {
    child: Child,
}

impl Guard {
    /// Arms a guard for process group `pgid`.
    pub fn arm(pgid: i32) -> io::Result<Guard> {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", SCRIPT, "runner-guard", &pgid.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let how = Containment {
            new_session: true,
            ..Default::default()
        };
        Ok(Guard {
            child: spawn_contained(cmd, &how)?,
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
