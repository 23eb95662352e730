//! The sampling thread: one [`SampleRow`] of a session's resources per interval.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::procfs::{ProcStat, TreeUsage, read_stat, session_members, thread_cpu_seconds};
use crate::cgroup::{CgroupUsage, UsageFiles};

/// How often the whole of /proc is scanned for the session's processes;
/// in between, only the processes already known are read. A full scan
/// reads one file per process on the host (about 2 ms of CPU for ~85
/// processes), a known-member read costs one file per service process.
pub const RESCAN_PERIOD: Duration = Duration::from_secs(1);

/// Children of `pid`'s main thread, from /proc (empty when unreadable).
fn children(pid: i32) -> Vec<i32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .map(|t| {
            t.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The session's live processes, rescanning /proc only every `rescan_every` calls.
struct Members {
    sid: i32,
    known: Vec<i32>,
    calls: u64,
    rescan_every: u64,
}

impl Members {
    fn read(&mut self) -> Vec<ProcStat> {
        let full = self.calls.is_multiple_of(self.rescan_every) || self.known.is_empty();
        self.calls += 1;
        let stats = if full {
            session_members(self.sid)
        } else {
            // Known members plus their main threads' new children (a fork
            // between full scans is seen at the next sample).
            let mut pids = self.known.clone();
            for &pid in &self.known {
                for child in children(pid) {
                    if !pids.contains(&child) {
                        pids.push(child);
                    }
                }
            }
            pids.iter()
                .filter_map(|&pid| read_stat(pid))
                .filter(|s| s.session == self.sid && s.is_live())
                .collect()
        };
        self.known = stats.iter().map(|s| s.pid).collect();
        stats
    }
}
use crate::results::SampleRow;

/// What a sampling thread measured.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct SamplerOutput {
    pub rows: Vec<SampleRow>,
    /// CPU seconds the sampling thread itself used (its overhead).
    pub own_cpu_s: f64,
    /// True when the session had no live process left at some sample: the
    /// service died during sampling.
    pub session_vanished: bool,
    /// The cgroup's memory peak over the sampling window (see
    /// [`crate::cgroup::PeakWindow`]); `None` without a memory cgroup.
    pub cgroup_peak_bytes: Option<u64>,
}

impl SamplerOutput {
    /// CPU seconds (user + system) the tree used during sampling: the
    /// highest cumulative figure minus the first (a process that exits takes
    /// its counters with it, so the last row may be lower than an earlier one).
    pub fn cpu_seconds(&self) -> Option<f64> {
        let total = |r: &SampleRow| r.cpu_user_s + r.cpu_system_s;
        let first = total(self.rows.first()?);
        let peak = self.rows.iter().map(total).fold(first, f64::max);
        Some(peak - first)
    }

    pub fn rss_mean(&self) -> Option<u64> {
        let live: Vec<_> = self.rows.iter().filter(|r| r.processes > 0).collect();
        (!live.is_empty())
            .then(|| live.iter().map(|r| r.rss_bytes).sum::<u64>() / live.len() as u64)
    }

    pub fn rss_max(&self) -> Option<u64> {
        self.rows.iter().map(|r| r.rss_bytes).max()
    }

    pub fn threads_max(&self) -> Option<u32> {
        self.rows.iter().map(|r| r.threads).max()
    }
}

/// A running sampler; [`Sampler::finish`] stops it and returns its rows.
pub struct Sampler {
    stop: Arc<(Mutex<bool>, Condvar)>,
    handle: JoinHandle<SamplerOutput>,
}

impl Sampler {
    /// Samples session `sid` every `interval` (first sample at once), times
    /// relative to `t0`. `on_vanished` is called once if the session empties
    /// (e.g. to cancel the load of a cell whose service died).
    pub fn start(
        sid: i32,
        interval: Duration,
        t0: Instant,
        on_vanished: Box<dyn Fn() + Send>,
    ) -> Sampler {
        Sampler::start_with_cgroup(sid, None, interval, t0, on_vanished)
    }

    /// [`Sampler::start`], also reading the service's cgroup from `cgroup`.
    pub fn start_with_cgroup(
        sid: i32,
        cgroup: Option<UsageFiles>,
        interval: Duration,
        t0: Instant,
        on_vanished: Box<dyn Fn() + Send>,
    ) -> Sampler {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let stop_in_thread = Arc::clone(&stop);
        let handle = thread::Builder::new()
            .name("runner-sampler".into())
            .spawn(move || sample_loop(sid, cgroup, interval, t0, &stop_in_thread, on_vanished))
            .expect("spawning the sampler thread");
        Sampler { stop, handle }
    }

    /// Takes one last sample, stops the thread and returns everything.
    pub fn finish(self) -> SamplerOutput {
        let (lock, cvar) = &*self.stop;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        cvar.notify_all();
        self.handle.join().unwrap_or_default()
    }
}

fn sample_loop(
    sid: i32,
    cgroup: Option<UsageFiles>,
    interval: Duration,
    t0: Instant,
    stop: &(Mutex<bool>, Condvar),
    on_vanished: Box<dyn Fn() + Send>,
) -> SamplerOutput {
    let cpu_start = thread_cpu_seconds();
    let mut members = Members {
        sid,
        known: Vec::new(),
        calls: 0,
        rescan_every: (RESCAN_PERIOD.as_nanos() / interval.as_nanos().max(1)).max(1) as u64,
    };
    let vanished_flag = AtomicBool::new(false);
    let mut out = SamplerOutput::default();
    let mut peak = cgroup.as_ref().and_then(UsageFiles::peak_window);
    // PSS and fds (one smaps_rollup and fd directory per process) are read
    // at the /proc rescan cadence and at the first and last sample.
    let per_process_every = members.rescan_every;
    let read_cgroup = |n: u64, last: bool| {
        cgroup
            .as_ref()
            .map(|c| c.read(last || n.is_multiple_of(per_process_every)))
    };
    let mut next = Instant::now();
    loop {
        let usage = TreeUsage::of(&members.read());
        let cg = read_cgroup(members.calls - 1, false);
        out.rows.push(row(t0.elapsed(), usage, cg));
        if usage.processes == 0 && !vanished_flag.swap(true, Ordering::Relaxed) {
            out.session_vanished = true;
            on_vanished();
        }
        next += interval;
        let (lock, cvar) = stop;
        let mut stopped = lock.lock().unwrap_or_else(|e| e.into_inner());
        while !*stopped {
            let now = Instant::now();
            if now >= next {
                break;
            }
            stopped = cvar
                .wait_timeout(stopped, next - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        if *stopped {
            break;
        }
    }
    // The final sample closes the window exactly at finish().
    let usage = TreeUsage::of(&members.read());
    let cg = read_cgroup(members.calls - 1, true);
    out.rows.push(row(t0.elapsed(), usage, cg));
    out.cgroup_peak_bytes = peak.as_mut().and_then(|p| p.read());
    out.own_cpu_s = thread_cpu_seconds() - cpu_start;
    out
}

fn row(t: Duration, u: TreeUsage, cg: Option<CgroupUsage>) -> SampleRow {
    let cg = cg.unwrap_or_default();
    SampleRow {
        t_s: t.as_secs_f64(),
        rss_bytes: u.rss_bytes,
        cpu_user_s: u.cpu_user_s,
        cpu_system_s: u.cpu_system_s,
        threads: u.threads,
        processes: u.processes,
        cgroup_cpu_s: cg.cpu_s,
        cgroup_memory_bytes: cg.memory_bytes,
        cgroup_anon_bytes: cg.anon_bytes,
        cgroup_file_bytes: cg.file_bytes,
        cgroup_tasks: cg.tasks,
        pss_bytes: cg.pss_bytes,
        fds: cg.fds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::Command;
    use std::sync::atomic::AtomicUsize;

    /// A busy process in its own session, so the sampler sees only it.
    fn spawn_busy(seconds: f64) -> std::process::Child {
        let mut cmd = Command::new("sh");
        cmd.args([
            "-c",
            &format!("timeout {seconds} sh -c 'while :; do :; done'"),
        ]);
        // SAFETY: setsid is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        cmd.spawn().unwrap()
    }

    #[test]
    fn samples_a_busy_session_and_notices_its_end() {
        let mut child = spawn_busy(0.6);
        let sid = child.id() as i32;
        let calls = Arc::new(AtomicUsize::new(0));
        let c = Arc::clone(&calls);
        let sampler = Sampler::start(
            sid,
            Duration::from_millis(50),
            Instant::now(),
            Box::new(move || {
                c.fetch_add(1, Ordering::SeqCst);
            }),
        );
        thread::sleep(Duration::from_millis(400));
        child.wait().unwrap();
        thread::sleep(Duration::from_millis(200));
        let out = sampler.finish();
        assert!(out.rows.len() >= 8, "{} rows", out.rows.len());
        assert!(out.rows.iter().any(|r| r.processes >= 2), "{:?}", out.rows);
        assert!(out.cpu_seconds().unwrap() > 0.05, "{:?}", out.cpu_seconds());
        assert!(out.rss_max().unwrap() > 0);
        assert!(out.session_vanished);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert!(out.own_cpu_s < 0.5);
    }
}

#[cfg(test)]
mod overhead {
    use super::*;

    /// The figure quoted in docs/exec.md: CPU per sample of the sampling
    /// thread. Run with `cargo test --release sampler_overhead -- --nocapture`.
    #[test]
    fn sampler_overhead_per_sample() {
        let sid = crate::sample::procfs::read_stat(std::process::id() as i32)
            .unwrap()
            .session;
        let sampler = Sampler::start(
            sid,
            Duration::from_millis(5),
            Instant::now(),
            Box::new(|| {}),
        );
        // 5 ms interval: one full /proc scan per 200 samples; the figure is
        // dominated by known-member reads. The full-scan cost is printed too.
        let t = thread_cpu_seconds();
        let scans = 20;
        for _ in 0..scans {
            session_members(sid);
        }
        let full_scan_ms = (thread_cpu_seconds() - t) * 1000.0 / scans as f64;
        thread::sleep(Duration::from_millis(1000));
        let out = sampler.finish();
        let per_sample_ms = out.own_cpu_s * 1000.0 / out.rows.len() as f64;
        let procs = std::fs::read_dir("/proc")
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
            })
            .count();
        // At the default 200 ms: 4 known-member sample (stat + children)s + 1 full scan per second.
        let per_second_ms = 4.0 * per_sample_ms + full_scan_ms;
        println!(
            "sampler: {} samples, {per_sample_ms:.3} ms CPU per known-member sample (stat + children), \
             {full_scan_ms:.3} ms per full /proc scan ({procs} processes on the host); \
             at the default 200 ms interval: {per_second_ms:.2} ms CPU per second = {:.2}% of one core",
            out.rows.len(),
            per_second_ms / 10.0
        );
        assert!(per_sample_ms < 20.0, "{per_sample_ms} ms per sample");
    }
}
