//! Spawning with containment: cgroup, new session, parent-death signal, CPU pinning.
//!
//! `PR_SET_PDEATHSIG` fires when the *thread* that forked the child exits,
//! not the process. Services must outlive short-lived worker threads, so every
//! contained child is forked by one dedicated thread that lives as long as
//! the runner.
use std::ffi::CString;
use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Mutex, OnceLock};

use crate::affinity::CpuSet;

/// How a child is contained.
#[derive(Debug, Clone, Default)]
pub struct Containment {
    /// `setsid()`: its own session and process group (pgid = sid = pid).
    pub new_session: bool,
    /// SIGKILL it when the runner dies.
    pub die_with_runner: bool,
    /// Pin it (and, by inheritance, every thread and process it creates).
    pub cpus: Option<Vec<usize>>,
    /// `cgroup.procs` files the child writes itself into before it execs,
    /// so nothing it forks is ever outside its cgroup (see `crate::cgroup`).
    pub cgroup_procs: Vec<CString>,
}

type Job = (Command, Sender<io::Result<Child>>);

fn spawner() -> &'static Mutex<Sender<Job>> {
    static SPAWNER: OnceLock<Mutex<Sender<Job>>> = OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (tx, rx) = channel::<Job>();
        std::thread::Builder::new()
            .name("runner-spawner".into())
            .spawn(move || {
                for (mut cmd, reply) in rx {
                    let _ = reply.send(cmd.spawn());
                }
            })
            .expect("spawning the runner-spawner thread");
        Mutex::new(tx)
    })
}

/// Spawns `cmd` contained as `how` says, from the long-lived spawner thread.
pub fn spawn_contained(mut cmd: Command, how: &Containment) -> io::Result<Child> {
    let parent = std::process::id() as libc::pid_t;
    let new_session = how.new_session;
    let die_with_runner = how.die_with_runner;
    // Built here, before the fork: the child only applies it.
    let cpu_set = how.cpus.as_deref().map(CpuSet::of).transpose()?;
    let cgroup_procs = how.cgroup_procs.clone();
    // SAFETY: the closure only calls async-signal-safe functions (open,
    // write, close, setsid, prctl, getppid, sched_setaffinity, getrlimit,
    // setrlimit) on data prepared before the fork.
    unsafe {
        cmd.pre_exec(move || {
            // First: joining a v1 cpuset resets the CPU affinity set below.
            for path in &cgroup_procs {
                join_cgroup(path)?;
            }
            super::open_files::raise_soft_to_hard()?;
            if new_session && libc::setsid() == -1 {
                return Err(io::Error::last_os_error());
            }
            if die_with_runner {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                    return Err(io::Error::last_os_error());
                }
                // The runner may have died between fork and prctl.
                if libc::getppid() != parent {
                    return Err(io::Error::other("the runner exited during spawn"));
                }
            }
            match &cpu_set {
                Some(set) => set.apply_to_current_thread(),
                None => Ok(()),
            }
        });
    }
    let (tx, rx) = channel();
    spawner()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send((cmd, tx))
        .map_err(|_| io::Error::other("the runner-spawner thread is gone"))?;
    rx.recv()
        .map_err(|_| io::Error::other("the runner-spawner thread is gone"))?
}

/// Writes "0" (the writing process) to a `cgroup.procs` file: the calling
/// process moves into that cgroup. Async-signal-safe: open, write, close.
fn join_cgroup(procs: &CString) -> io::Result<()> {
    // SAFETY: `procs` is a valid NUL-terminated path; the buffer is one byte.
    unsafe {
        let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let written = libc::write(fd, b"0".as_ptr().cast(), 1);
        let error = io::Error::last_os_error();
        libc::close(fd);
        if written != 1 {
            return Err(error);
        }
    }
    Ok(())
}

/// Sends `signal` to process group `pgid`; a group already gone is fine.
pub fn signal_group(pgid: i32, signal: i32) {
    // SAFETY: kill has no memory-safety preconditions; a negative pid
    // addresses the group.
    unsafe {
        libc::kill(-pgid, signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contained_child_gets_its_own_session_and_cpus() {
        let mut cmd = Command::new("sh");
        cmd.args([
            "-c",
            "cat /proc/self/stat; grep Cpus_allowed_list /proc/self/status",
        ]);
        cmd.stdout(std::process::Stdio::piped());
        let how = Containment {
            new_session: true,
            die_with_runner: true,
            cpus: Some(vec![0]),
            ..Default::default()
        };
        let child = spawn_contained(cmd, &how).unwrap();
        let pid = child.id() as i32;
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let stat = crate::sample::procfs::ProcStat::parse(text.lines().next().unwrap()).unwrap();
        assert_eq!((stat.session, stat.pgrp), (pid, pid), "{text}");
        assert!(text.contains("Cpus_allowed_list:\t0\n"), "{text}");
    }

    #[test]
    fn contained_child_gets_its_soft_open_file_limit_raised_to_the_hard_one() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "ulimit -Sn; ulimit -Hn"]);
        cmd.stdout(std::process::Stdio::piped());
        // Runs before spawn_contained's own pre_exec: the child starts with
        // a soft limit of 256, as a host with a low default would give it.
        // SAFETY: getrlimit and setrlimit only, between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                let mut limit = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
                limit.rlim_cur = limit.rlim_max.min(256);
                libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
                Ok(())
            });
        }
        let out = spawn_contained(cmd, &Containment::default())
            .unwrap()
            .wait_with_output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert_eq!(
            lines[0], lines[1],
            "soft limit not raised to the hard one: {text}"
        );
    }

    #[test]
    fn contained_child_is_in_its_cgroup_before_it_execs() {
        let host = crate::cgroup::host();
        if host.mode == crate::cgroup::Mode::None {
            eprintln!("skipped: no writable cgroups here ({})", host.why);
            return;
        }
        let name = crate::cgroup::start_name("spawn-test");
        let limits = crate::cgroup::Limits::default();
        let mut group = crate::cgroup::ServiceCgroup::create(host, &name, &limits, None).unwrap();
        let mut cmd = Command::new("cat");
        cmd.arg("/proc/self/cgroup")
            .stdout(std::process::Stdio::piped());
        let how = Containment {
            cgroup_procs: group.procs_files(),
            ..Default::default()
        };
        let out = spawn_contained(cmd, &how)
            .unwrap()
            .wait_with_output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        // `cat` itself, the exec'd program, reads its cgroup: every hierarchy names it.
        let lines: Vec<&str> = text.lines().filter(|l| l.ends_with(&name)).collect();
        assert!(lines.len() >= 2, "{text}");
        group.remove().unwrap();
    }
}
