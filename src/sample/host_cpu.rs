//! The whole host's CPU time from the first line of /proc/stat: how idle the
//! host was during a cell. A closed loop at peak on a shared host is always
//! busy; the cell row records it so that the report can say the host was
//! shared, beside the gate on what matters (whether the generator waited).
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Cumulative CPU time of all CPUs since boot, split into idle and the rest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostCpu {
    /// idle + iowait.
    pub idle: Duration,
    /// Every field of the `cpu` line (guest time is already in user).
    pub total: Duration,
}

/// Linux reports /proc/stat in USER_HZ, which is 100 on every architecture it runs on.
const USER_HZ: u64 = 100;

impl HostCpu {
    /// Now, or `None` when /proc/stat cannot be read.
    pub fn now() -> Option<HostCpu> {
        parse_proc_stat(&std::fs::read_to_string("/proc/stat").ok()?)
    }

    /// Share of the host's CPU time that was idle between `earlier` and `self`.
    pub fn idle_share_since(&self, earlier: &HostCpu) -> Option<f64> {
        let total = self.total.checked_sub(earlier.total)?;
        let idle = self.idle.checked_sub(earlier.idle)?;
        (!total.is_zero()).then(|| idle.as_secs_f64() / total.as_secs_f64())
    }
}

/// The service's host around one measured window: its CPU counters at the
/// window's two ends, read on that host (the far side reads them for a
/// service host over SSH and sends them back with the samples).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostWindow {
    pub before: Option<HostCpu>,
    pub after: Option<HostCpu>,
    pub cpus: u32,
    /// Whether the load generator ran on this host too: only then is its
    /// CPU part of what service and generator took of it.
    pub generator_on_it: bool,
}

impl HostWindow {
    /// Starts watching this host (call right when the measured window opens).
    pub fn open(generator_on_it: bool) -> HostWindow {
        HostWindow {
            before: HostCpu::now(),
            after: None,
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
            generator_on_it,
        }
    }

    /// Ends the window (call right when the measured window ends).
    pub fn close(self) -> HostWindow {
        HostWindow {
            after: HostCpu::now(),
            ..self
        }
    }

    pub fn idle_share(&self) -> Option<f64> {
        self.after?.idle_share_since(&self.before?)
    }
}

/// Reads `cpu  user nice system idle iowait irq softirq steal guest guest_nice`.
fn parse_proc_stat(text: &str) -> Option<HostCpu> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let ticks: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    if ticks.len() < 5 {
        return None;
    }
    // guest and guest_nice (fields 9, 10) are already counted in user and nice.
    let total: u64 = ticks.iter().take(8).sum();
    let idle = ticks[3] + ticks[4];
    let as_duration = |t: u64| Duration::from_millis(t * 1000 / USER_HZ);
    Some(HostCpu {
        idle: as_duration(idle),
        total: as_duration(total),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_and_iowait_count_as_idle_guest_time_is_not_counted_twice() {
        let before =
            parse_proc_stat("cpu  100 0 100 700 100 0 0 0 50 0\ncpu0 1 2 3 4 5\n").unwrap();
        let after = parse_proc_stat("cpu  250 0 150 1000 100 0 0 0 90 0\n").unwrap();
        assert_eq!(before.total, Duration::from_secs(10));
        assert_eq!(before.idle, Duration::from_secs(8));
        // 5 s passed on the host's CPUs, 3 s of it idle.
        assert_eq!(after.idle_share_since(&before), Some(0.6));
    }

    #[test]
    fn a_short_or_garbled_line_is_none() {
        assert_eq!(parse_proc_stat("cpu  1 2 3\n"), None);
        assert_eq!(parse_proc_stat("cpu  1 x 3 4 5\n"), None);
        assert_eq!(parse_proc_stat("intr 1 2\n"), None);
    }

    #[test]
    fn this_host_has_a_proc_stat() {
        let now = HostCpu::now().unwrap();
        assert!(now.total >= now.idle);
    }
}
