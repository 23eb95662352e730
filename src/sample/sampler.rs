//! The sampling thread: one [`SampleRow`] of a session's resources per interval.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::procfs::{TreeUsage, session_members, thread_cpu_seconds};
use crate::results::SampleRow;

/// What a sampling thread measured.
#[derive(Debug, Clone, Default)]
pub struct SamplerOutput {
    pub rows: Vec<SampleRow>,
    /// CPU seconds the sampling thread itself used (its overhead).
    pub own_cpu_s: f64,
    /// True when the session had no live process left at some sample: the
    /// service died during sampling.
    pub session_vanished: bool,
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
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let stop_in_thread = Arc::clone(&stop);
        let handle = thread::Builder::new()
            .name("runner-sampler".into())
            .spawn(move || sample_loop(sid, interval, t0, &stop_in_thread, on_vanished))
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
    interval: Duration,
    t0: Instant,
    stop: &(Mutex<bool>, Condvar),
    on_vanished: Box<dyn Fn() + Send>,
) -> SamplerOutput {
    let cpu_start = thread_cpu_seconds();
    let vanished_flag = AtomicBool::new(false);
    let mut out = SamplerOutput::default();
    let mut next = Instant::now();
    loop {
        let usage = TreeUsage::of(&session_members(sid));
        out.rows.push(row(t0.elapsed(), usage));
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
    let usage = TreeUsage::of(&session_members(sid));
    out.rows.push(row(t0.elapsed(), usage));
    out.own_cpu_s = thread_cpu_seconds() - cpu_start;
    out
}

fn row(t: Duration, u: TreeUsage) -> SampleRow {
    SampleRow {
        t_s: t.as_secs_f64(),
        rss_bytes: u.rss_bytes,
        cpu_user_s: u.cpu_user_s,
        cpu_system_s: u.cpu_system_s,
        threads: u.threads,
        processes: u.processes,
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
        assert!(out.cpu_seconds().unwrap() > 0.2, "{:?}", out.cpu_seconds());
        assert!(out.rss_max().unwrap() > 0);
        assert!(out.session_vanished);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert!(out.own_cpu_s < 0.5);
    }
}
