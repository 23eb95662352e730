//! The generator's own CPU time, per worker thread (getrusage RUSAGE_THREAD),
//! and the time each thread was runnable but waiting for a CPU (the second
//! field of /proc/thread-self/schedstat): on a host shared with the service,
//! that wait is what holds the generator back, whatever its own CPU use.

use std::time::Duration;

/// User and system CPU time consumed by the calling thread so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThreadCpu {
    pub user: Duration,
    pub system: Duration,
    /// Runnable but not running (waiting on a run queue); zero where the
    /// kernel has no schedstat.
    pub waited: Duration,
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
            waited: run_queue_wait(),
        }
    }

    /// CPU used between `earlier` and `self`.
    pub fn since(self, earlier: ThreadCpu) -> ThreadCpu {
        ThreadCpu {
            user: self.user.saturating_sub(earlier.user),
            system: self.system.saturating_sub(earlier.system),
            waited: self.waited.saturating_sub(earlier.waited),
        }
    }
}

/// The calling thread's time spent runnable but waiting for a CPU so far.
fn run_queue_wait() -> Duration {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|text| parse_schedstat_wait(&text))
        .unwrap_or_default()
}

/// `schedstat` is `<on-cpu ns> <waiting ns> <timeslices>`.
fn parse_schedstat_wait(text: &str) -> Option<Duration> {
    let ns = text.split_whitespace().nth(1)?.parse::<u64>().ok()?;
    Some(Duration::from_nanos(ns))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thread's CPU clock (CLOCK_THREAD_CPUTIME_ID): a second source
    /// for the same quantity, read apart from getrusage.
    fn thread_clock() -> Duration {
        let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
        // SAFETY: clock_gettime fills the timespec we own.
        assert_eq!(
            unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) },
            0
        );
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
    }

    /// Spins until the thread's own CPU clock says 50 ms were burnt (however
    /// long a busy host takes to give them), then checks getrusage saw
    /// them: no wall-clock share of a CPU is assumed.
    #[test]
    fn counts_cpu_burnt_by_this_thread() {
        let before = ThreadCpu::now();
        let clock = thread_clock();
        let mut x = 0u64;
        while thread_clock() - clock < Duration::from_millis(50) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let used = ThreadCpu::now().since(before);
        let burnt = thread_clock() - clock;
        // getrusage splits the same runtime into user and system by ticks:
        // the sum is the runtime, to within the microseconds between reads.
        let sum = used.user + used.system;
        assert!(
            sum >= Duration::from_millis(45) && sum <= burnt + Duration::from_millis(5),
            "getrusage {used:?}, thread clock {burnt:?}"
        );
    }

    #[test]
    fn the_wait_is_the_second_schedstat_field() {
        assert_eq!(
            parse_schedstat_wait("123456 7890000 42\n"),
            Some(Duration::from_nanos(7_890_000))
        );
        assert_eq!(parse_schedstat_wait("123456"), None);
        assert_eq!(parse_schedstat_wait(""), None);
    }

    #[test]
    fn this_kernel_reports_a_schedstat_for_the_thread() {
        let text = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
        assert!(parse_schedstat_wait(&text).is_some(), "{text}");
    }
}
