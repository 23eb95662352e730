//! The measured window's own readings of the service and the host.
//!
//! A closed-loop cell with a connection ramp (`load.ramp`, the 2020 study's
//! JMeter ramp-up) sends load for the ramp's length before its window opens,
//! in the same load run, so that the connections stay open into the window.
//! The generator rebases its own CPU at the window's start; the service's
//! sampler and the host's counters must too, or the ramp's CPU is divided by
//! the window's length (a 10 s ramp before a 2 s window read 7.6 of 2 CPUs).
//! So they open when the run says its window opens
//! ([`LoadControl::window_start`]), and right away when there is no ramp.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::cell::{CellContext, guarded_run_with, measure_sample_interval};
use super::cell_facts::HostWindow;
use crate::load::{LoadConfig, LoadControl, LoadError, LoadReport};
use crate::sample::{Sampler, SamplerOutput};
use crate::service::Service;

/// What one measured load gave, with the service's samples and the host's
/// counters taken over its window alone.
pub(super) struct SampledRun {
    pub result: Result<LoadReport, LoadError>,
    /// The service's process tree disappeared during the run.
    pub died: bool,
    pub samples: SamplerOutput,
    pub host: HostWindow,
}

/// How often the opener looks whether the run has set its window start:
/// the run sets it before its first request, so this only bounds how late
/// the opener learns of it, not when it reads (it sleeps until the instant).
const POLL: Duration = Duration::from_millis(1);

/// Applies `config` to `service` like [`guarded_run_with`], sampling the
/// service and the host from the window's start to the run's end.
pub(super) fn sampled_run(ctx: &CellContext, service: &Service, config: &LoadConfig) -> SampledRun {
    let control = LoadControl::new();
    let (sid, usage) = (service.sid(), service.cgroup().map(|c| c.usage_files()));
    let open = || {
        let sampler = Sampler::start_with_cgroup(
            sid,
            usage.clone(),
            measure_sample_interval(ctx.plan),
            Instant::now(),
            Box::new(|| {}),
        );
        (sampler, HostWindow::open())
    };
    if config.closed_ramp().is_zero() {
        let (sampler, host) = open();
        let (result, died) = guarded_run_with(ctx, service, config, Some(ctx.events), &control);
        return SampledRun {
            result,
            died,
            host: host.close(),
            samples: sampler.finish(),
        };
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let opener = s.spawn(|| {
            // Until the window opens, or the run ends (cancelled, failed) first.
            while !done.load(Ordering::Relaxed) {
                let now = Instant::now();
                match control.window_start() {
                    Some(at) if at <= now => return Some(open()),
                    Some(at) => std::thread::sleep((at - now).min(POLL * 10)),
                    None => std::thread::sleep(POLL),
                }
            }
            None
        });
        let (result, died) = guarded_run_with(ctx, service, config, Some(ctx.events), &control);
        done.store(true, Ordering::Relaxed);
        // A run that failed before its window opened: readings of nothing.
        let (sampler, host) = opener.join().ok().flatten().unwrap_or_else(open);
        SampledRun {
            result,
            died,
            host: host.close(),
            samples: sampler.finish(),
        }
    })
}
