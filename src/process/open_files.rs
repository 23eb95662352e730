//! Services start with their soft open-file limit (RLIMIT_NOFILE) raised to
//! the hard limit, in the child between fork and exec: a service holding
//! 10,000 connections needs 10,000 descriptors, and the usual soft default
//! of 1024 would make it fail with EMFILE (or, for a runtime that raises it
//! itself, as Go and the JVM do, make runtimes differ in what they were
//! allowed). Raising the soft limit up to the hard one needs no privilege;
//! the hard limit is the host's (`ulimit -Hn`), recorded by `runner load`'s
//! error when a run needs more.

use std::io;

/// Sets the calling process's soft RLIMIT_NOFILE to its hard limit.
/// Only the getrlimit and setrlimit system calls: safe between fork and exec.
pub fn raise_soft_to_hard() -> io::Result<()> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: both calls read or write the struct we own.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return Err(io::Error::last_os_error());
        }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max;
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}
