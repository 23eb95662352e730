//! The generator's own CPU time, per worker thread (getrusage RUSAGE_THREAD).

use std::time::Duration;

/// User and system CPU time consumed by the calling thread so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThreadCpu {
    pub user: Duration,
    pub system: Duration,
}

impl ThreadCpu {
    pub fn now() -> ThreadCpu {
        // SAFETY: getrusage fills the zeroed struct we own; RUSAGE_THREAD is Linux-specific.
        let ru = unsafe {
            let mut ru: libc::rusage = std::mem::zeroed();
            if libc::getrusage(libc::RUSAGE_THREAD, &mut ru) != 0 {
                return ThreadCpu::default();
            }
            ru
        };
        let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        ThreadCpu {
            user: tv(ru.ru_utime),
            system: tv(ru.ru_stime),
        }
    }

    /// CPU used between `earlier` and `self`.
    pub fn since(self, earlier: ThreadCpu) -> ThreadCpu {
        ThreadCpu {
            user: self.user.saturating_sub(earlier.user),
            system: self.system.saturating_sub(earlier.system),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_cpu_burnt_by_this_thread() {
        let before = ThreadCpu::now();
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while start.elapsed() < Duration::from_millis(60) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let used = ThreadCpu::now().since(before);
        // A busy machine may preempt us, but some CPU was certainly used.
        assert!(
            used.user + used.system >= Duration::from_millis(10),
            "{used:?}"
        );
    }
}
