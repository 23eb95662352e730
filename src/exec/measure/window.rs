//! The measured window's own readings of the service and the host.
//!
//! A load run is longer than its window: a closed-loop cell with a
//! connection ramp (`load.ramp`, the 2020 study's JMeter ramp-up) sends load
//! for the ramp's length before its window opens, in the same run, so that
//! the connections stay open into the window; remote load hosts start 300 ms
//! after they are told to, and their answer (histograms included) comes back
//! after the window has ended. The generator rebases its own CPU at the
//! window's start; the service's sampler and the host's counters must follow
//! the window too, or the ramp's CPU is divided by the window's length (a
//! 10 s ramp before a 2 s window read 7.6 of 2 CPUs), and the idle tail
//! raises the host's idle share (a 2 s window with two load hosts was
//! sampled over 3.4 s). So they open when the run says its window opens
//! ([`LoadControl::window_start`]) and close when it says it ends
//! ([`LoadControl::window_end`]), or when the run returns, if sooner.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::exec::measure::cell_facts::HostWindow;
use crate::exec::measure::context::{CellContext, guarded_run_with};
use crate::exec::measure::row::{SampledRun, measure_sample_interval};
use crate::load::{LoadConfig, LoadControl};
use crate::sample::Sampler;
use crate::service::Service;

/// How often the follower looks whether the run has set its window's ends:
/// the run sets them before its first request, so this only bounds how late
/// the follower learns of them, not when it reads (it sleeps until the instant).
const POLL: Duration = Duration::from_millis(1);

/// Sleeps until `at` is set and reached (`true`), or `done` is set first (`false`).
fn wait_for(at: impl Fn() -> Option<Instant>, done: &AtomicBool) -> bool {
    while !done.load(Ordering::Relaxed) {
        let now = Instant::now();
        match at() {
            Some(t) if t <= now => return true,
            Some(t) => std::thread::sleep((t - now).min(POLL * 10)),
            None => std::thread::sleep(POLL),
        }
    }
    false
}

/// Follows the window of the run that `control` belongs to, in the calling
/// thread: `open()` when it opens, `close(opened)` when it ends or the run
/// is `done`, whichever is first. `None`: the run ended before its window
/// opened (the caller reads nothing, or opens and closes at once).
pub(crate) fn follow_window<O, C>(
    control: &LoadControl,
    done: &AtomicBool,
    open: impl FnOnce() -> O,
    close: impl FnOnce(O) -> C,
) -> Option<C> {
    if !wait_for(|| control.window_start(), done) {
        return None;
    }
    let opened = open();
    wait_for(|| control.window_end(), done);
    Some(close(opened))
}

/// Applies `config` to `service` like [`guarded_run_with`], sampling the
/// service and the host over the run's measured window alone.
pub(crate) fn sampled_run(ctx: &CellContext, service: &Service, config: &LoadConfig) -> SampledRun {
    let control = LoadControl::new();
    let (sid, usage) = (service.sid(), service.cgroup().map(|c| c.usage_files()));
    let generator_here = !ctx.plan.hosts.remote_load();
    let open = || {
        let sampler = Sampler::start_with_cgroup(
            sid,
            usage.clone(),
            measure_sample_interval(ctx.plan),
            Instant::now(),
            Box::new(|| {}),
        );
        (sampler, HostWindow::open(generator_here))
    };
    let close = |(sampler, host): (Sampler, HostWindow)| (sampler.finish(), host.close());
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let follower = s.spawn(|| follow_window(&control, &done, open, close));
        let (result, died) = guarded_run_with(ctx, service, config, Some(ctx.events), &control);
        done.store(true, Ordering::Relaxed);
        // A run that failed before its window opened: readings of nothing.
        let (samples, host) = follower
            .join()
            .ok()
            .flatten()
            .unwrap_or_else(|| close(open()));
        SampledRun {
            result,
            died,
            host,
            samples,
        }
    })
}
