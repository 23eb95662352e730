//! `run`: spawns the worker threads, collects the per-second timeline while
//! they work, merges their measurements and judges saturation.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::load::config::{Arrival, LoadConfig, StopCondition};
use crate::load::control::LoadControl;
use crate::load::engine::connect_phase::ConnectStats;
use crate::load::engine::fd_limit::ensure_open_files;
use crate::load::engine::plan::Plan;
use crate::load::engine::ramp::RampStats;
use crate::load::engine::schedule::RateCurve;
use crate::load::engine::worker::{Connected, Setup, WorkerResult, run_worker};
use crate::load::error::{ErrorCounts, LoadError};
use crate::load::http::dynamic::seq_base;
use crate::load::http::mix::RequestMix;
use crate::load::http::prepared::encode_all;
use crate::load::measure::memory::GeneratorMemory;
use crate::load::measure::per_request::PerRequest;
use crate::load::measure::recorder::{SecondSample, new_histogram};
use crate::load::net::{preflight, stats, tls_config::tls_setup};
use crate::load::report::{GeneratorUsage, LoadReport, ScheduleStats, SecondStats, per_second};

/// The generator is saturated above this share of its threads' CPU time.
const CPU_SATURATION: f64 = 0.80;
/// Open loop is saturated when more than this share of scheduled requests was not sent.
const SCHEDULE_SHORTFALL: f64 = 0.01;

/// Applies the load `config` describes and measures it. Blocks until the
/// measured window ends (or `control.cancel()`), so call it from a plain
/// thread; it builds its own runtimes. Against a dead server it still ends
/// on time, with the failures counted in `errors`.
pub fn run(config: &LoadConfig, control: &LoadControl) -> Result<LoadReport, LoadError> {
    config.validate()?;
    ensure_open_files(config.arrival.connections())?;
    let tls = tls_setup(&config.transport, config.target.ip())?;
    preflight::check(config, tls.as_ref())?;
    let rss_before = GeneratorMemory::now().rss_bytes;
    let threads = config.effective_threads();
    let setup = Arc::new(Setup {
        target: config.target,
        connections: config.arrival.connections(),
        transport: config.transport.clone(),
        tls,
        connect_origin: Instant::now(),
        connect_rate: config.connect_rate,
        timeout: config.timeout,
        control: control.clone(),
    });
    let (tx, rx) = mpsc::channel::<SecondSample>();
    let (connected_tx, connected_rx) = mpsc::channel::<Option<Connected>>();
    let mut handles = Vec::with_capacity(threads);
    let mut plan_senders = Vec::with_capacity(threads);
    for index in 0..threads {
        let (setup, tx, connected_tx) = (setup.clone(), tx.clone(), connected_tx.clone());
        let (plan_tx, plan_rx) = mpsc::sync_channel::<Arc<Plan>>(1);
        plan_senders.push(plan_tx);
        let cpu = config
            .cpu_affinity
            .as_ref()
            .map(|cpus| cpus[index % cpus.len()]);
        let handle = std::thread::Builder::new()
            .name(format!("load-worker-{index}"))
            .spawn(move || run_worker(setup, index, threads, cpu, connected_tx, plan_rx, tx))
            .map_err(LoadError::Runtime)?;
        handles.push(handle);
    }
    drop((tx, connected_tx));

    // The connect phase: every worker opens its connections, paced; the
    // run's clock starts when the last one is done.
    let (mut opened, mut failed) = (0, 0);
    for connected in connected_rx.iter().take(threads).flatten() {
        opened += connected.opened;
        failed += connected.failed;
    }
    let connect = ConnectStats {
        wanted: config.arrival.connections(),
        opened,
        failed,
        seconds: setup.connect_origin.elapsed().as_secs_f64(),
        rate_limit: config.connect_rate,
    };

    let start = Instant::now();
    // The connection ramp (closed loop), then the warmup, then the window.
    let ramp = config.closed_ramp();
    let measure_start = start + ramp + config.warmup;
    let measure_end = match config.stop {
        StopCondition::Duration(d) => Some(measure_start + d),
        StopCondition::Requests(_) => None,
    };
    control.set_window(measure_start, measure_end);
    let curve = match config.arrival {
        Arrival::Closed { .. } => None,
        Arrival::Open { rate, ramp, .. } => Some(RateCurve {
            rate,
            ramp: ramp.unwrap_or_default(),
        }),
    };
    let plan = Arc::new(Plan {
        requests: encode_all(config),
        seed: config.mix_seed,
        seq_base: seq_base(),
        mix: RequestMix::new(
            &config.requests.iter().map(|r| r.weight).collect::<Vec<_>>(),
            config.mix_seed,
        ),
        timeout: config.timeout,
        curve,
        connections: config.virtual_connections(),
        stop: config.stop,
        start,
        ramp,
        measure_start,
        measure_end,
        tickets: AtomicU64::new(0),
        control: control.clone(),
    });
    for sender in plan_senders {
        // A worker that failed to start has gone; its error comes from join.
        let _ = sender.send(plan.clone());
    }

    let mut timeline = TimelineCollector::new(threads);
    // Ends when every worker has dropped its sender, i.e. finished.
    for sample in rx {
        timeline.add(sample);
    }
    let mut results = Vec::with_capacity(threads);
    for h in handles {
        let result = h
            .join()
            .map_err(|p| LoadError::WorkerPanicked(panic_message(&p)))??;
        results.push(result);
    }

    let finished = results
        .iter()
        .map(|r| r.finished)
        .max()
        .unwrap_or(measure_start);
    let end = measure_end.map_or(finished, |e| e.min(finished));
    let elapsed = end.saturating_duration_since(measure_start);
    let ramp = (!ramp.is_zero()).then(|| RampStats {
        seconds: ramp.as_secs_f64(),
        connections: config.arrival.connections(),
        requests: results.iter().map(|r| r.ramp_sent).sum(),
    });
    Ok(merge(
        config,
        threads,
        results,
        timeline.finish(elapsed),
        elapsed,
        curve,
        control,
        connect,
        rss_before,
        ramp,
    ))
}

#[allow(clippy::too_many_arguments)] // one call site; each argument is one part of the report
fn merge(
    config: &LoadConfig,
    threads: usize,
    results: Vec<WorkerResult>,
    timeline: Vec<SecondStats>,
    elapsed: Duration,
    curve: Option<RateCurve>,
    control: &LoadControl,
    connect: ConnectStats,
    rss_before: u64,
    ramp: Option<RampStats>,
) -> LoadReport {
    let mut latency = new_histogram();
    let mut service_time = new_histogram();
    let mut latency_with_timeouts = new_histogram();
    let mut in_flight = 0;
    let mut waited = Duration::ZERO;
    let mut errors = ErrorCounts::default();
    let (mut ok, mut sent, mut late) = (0, 0, 0);
    let (mut user, mut system) = (Duration::ZERO, Duration::ZERO);
    let mut per_request = PerRequest::default();
    let mut memory = GeneratorMemory {
        rss_before_bytes: rss_before,
        ..GeneratorMemory::default()
    };
    for r in &results {
        // One process: every worker read the same figures a moment apart.
        memory.rss_bytes = memory.rss_bytes.max(r.memory.rss_bytes);
        memory.peak_rss_bytes = memory.peak_rss_bytes.max(r.memory.peak_rss_bytes);
        per_request.add(&r.recorder.per_request);
        // Same bounds everywhere: adding cannot fail.
        latency
            .add(&r.recorder.latency)
            .expect("same histogram bounds");
        service_time
            .add(&r.recorder.service_time)
            .expect("same histogram bounds");
        latency_with_timeouts
            .add(&r.recorder.latency_with_timeouts)
            .expect("same histogram bounds");
        in_flight += r.recorder.in_flight();
        waited += r.cpu.waited;
        errors.merge(&r.recorder.errors);
        ok += r.recorder.ok;
        sent += r.recorder.sent;
        late += r.recorder.late;
        user += r.cpu.user;
        system += r.cpu.system;
    }
    let share_of_window = |d: Duration| {
        if elapsed.is_zero() {
            0.0
        } else {
            d.as_secs_f64() / (elapsed.as_secs_f64() * threads as f64)
        }
    };
    let generator = GeneratorUsage {
        user_s: user.as_secs_f64(),
        system_s: system.as_secs_f64(),
        threads,
        cpu_share: share_of_window(user + system),
        waited_s: waited.as_secs_f64(),
        wait_share: share_of_window(waited),
    };
    let schedule = curve.map(|c| {
        let from = config.warmup;
        ScheduleStats {
            scheduled: c.due_between(from, from + elapsed),
            sent,
            late,
        }
    });
    let saturated = saturation(&generator, schedule.as_ref());
    let transport = stats::report(
        config,
        &results
            .iter()
            .map(|r| r.transport.clone())
            .collect::<Vec<_>>(),
    );
    LoadReport {
        elapsed,
        ok,
        achieved_rate: per_second(ok + errors.total(), elapsed),
        errors,
        latency,
        service_time,
        latency_with_timeouts,
        in_flight,
        timeline,
        generator,
        saturated,
        target_rate: curve.map(|c| c.rate),
        schedule,
        was_cancelled: control.is_cancelled(),
        per_request: per_request.padded(config.requests.len()),
        connect,
        generator_memory: memory,
        ramp,
        wrong_answer: results.iter().find_map(|r| r.wrong_answer.clone()),
        transport,
    }
}

/// Why the generator, not the service, may have set the result.
fn saturation(generator: &GeneratorUsage, schedule: Option<&ScheduleStats>) -> Option<String> {
    let mut reasons = Vec::new();
    if generator.cpu_share > CPU_SATURATION {
        reasons.push(format!(
            "generator CPU at {:.0}% of its {} thread(s) (limit {:.0}%): it may be the bottleneck; \
             give it more threads or its own cores",
            generator.cpu_share * 100.0,
            generator.threads,
            CPU_SATURATION * 100.0
        ));
    }
    if let Some(s) = schedule
        && s.scheduled > 0
    {
        let missing = s.scheduled.saturating_sub(s.sent);
        if missing as f64 > SCHEDULE_SHORTFALL * s.scheduled as f64 {
            reasons.push(format!(
                "open loop fell behind: sent {} of {} scheduled requests ({:.1}% short, limit {:.0}%): \
                 its connections were all waiting for answers (the service is slower than the rate, \
                 or add connections) or the generator lacked CPU",
                s.sent,
                s.scheduled,
                100.0 * missing as f64 / s.scheduled as f64,
                SCHEDULE_SHORTFALL * 100.0
            ));
        }
    }
    (!reasons.is_empty()).then(|| reasons.join("; "))
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Merges workers' per-second samples; a second is reduced to its stats
/// (p50/p99) as soon as every worker has moved past it, so memory stays flat.
struct TimelineCollector {
    /// Latest second each worker reported (workers report in order).
    latest: Vec<Option<u64>>,
    open: BTreeMap<u64, (u64, u64, Histogram<u64>)>,
    done: Vec<SecondStats>,
}

impl TimelineCollector {
    fn new(workers: usize) -> Self {
        TimelineCollector {
            latest: vec![None; workers],
            open: BTreeMap::new(),
            done: Vec::new(),
        }
    }

    fn add(&mut self, s: SecondSample) {
        self.latest[s.worker] = Some(s.second);
        match self.open.get_mut(&s.second) {
            Some((ok, err, h)) => {
                *ok += s.ok;
                *err += s.errors;
                h.add(&s.latency).expect("same histogram bounds");
            }
            None => {
                self.open.insert(s.second, (s.ok, s.errors, s.latency));
            }
        }
        // A worker that reported nothing yet may still report any second.
        if let Some(min) = self
            .latest
            .iter()
            .copied()
            .collect::<Option<Vec<_>>>()
            .and_then(|v| v.into_iter().min())
        {
            self.close_before(min);
        }
    }

    fn close_before(&mut self, second: u64) {
        while let Some(entry) = self.open.first_entry() {
            if *entry.key() >= second {
                break;
            }
            let (s, (ok, errors, h)) = entry.remove_entry();
            self.done.push(SecondStats {
                second: s,
                ok,
                errors,
                p50_us: h.value_at_quantile(0.5),
                p99_us: h.value_at_quantile(0.99),
            });
        }
    }

    /// Closes everything and fills the seconds nobody completed anything in.
    fn finish(mut self, elapsed: Duration) -> Vec<SecondStats> {
        self.close_before(u64::MAX);
        let seconds = elapsed.as_secs_f64().ceil() as u64;
        let mut out = Vec::with_capacity(seconds as usize);
        let mut it = self.done.into_iter().peekable();
        for second in 0..seconds.max(1) {
            match it.peek() {
                Some(s) if s.second == second => out.push(it.next().expect("peeked")),
                _ => out.push(SecondStats {
                    second,
                    ok: 0,
                    errors: 0,
                    p50_us: 0,
                    p99_us: 0,
                }),
            }
        }
        // Completions after the window's last full second (Requests mode rounding).
        out.extend(it);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(worker: usize, second: u64, latencies: &[u64]) -> SecondSample {
        let mut latency = Histogram::new_with_bounds(1, 3_600_000_000, 2).unwrap();
        for &l in latencies {
            latency.record(l).unwrap();
        }
        SecondSample {
            worker,
            second,
            ok: latencies.len() as u64,
            errors: 1,
            latency,
        }
    }

    #[test]
    fn timeline_merges_workers_and_fills_silent_seconds() {
        let mut t = TimelineCollector::new(2);
        t.add(sample(0, 0, &[100, 100, 100]));
        t.add(sample(0, 2, &[300]));
        // Worker 1 has not reported: nothing can be closed yet.
        assert!(t.done.is_empty());
        t.add(sample(1, 0, &[10_000]));
        t.add(sample(1, 3, &[400]));
        // Both workers are past seconds 0 and 1: second 0 is closed and merged.
        assert_eq!(t.done.len(), 1);
        assert_eq!(t.done[0].ok, 4);
        assert_eq!(t.done[0].errors, 2);
        assert_eq!(t.done[0].p50_us, 100);
        assert!(t.done[0].p99_us >= 9_900);
        let all = t.finish(Duration::from_secs(4));
        let seconds: Vec<(u64, u64)> = all.iter().map(|s| (s.second, s.ok)).collect();
        assert_eq!(seconds, [(0, 4), (1, 0), (2, 1), (3, 1)]);
    }

    fn usage(cpu_share: f64) -> GeneratorUsage {
        GeneratorUsage {
            user_s: 1.0,
            system_s: 1.0,
            threads: 1,
            cpu_share,
            waited_s: 0.0,
            wait_share: 0.0,
        }
    }

    #[test]
    fn saturation_reasons() {
        assert_eq!(saturation(&usage(0.5), None), None);
        assert!(
            saturation(&usage(0.81), None)
                .unwrap()
                .contains("generator CPU at 81%")
        );
        let kept = ScheduleStats {
            scheduled: 1000,
            sent: 990,
            late: 500,
        };
        assert_eq!(saturation(&usage(0.5), Some(&kept)), None);
        let behind = ScheduleStats {
            scheduled: 1000,
            sent: 989,
            late: 0,
        };
        let reason = saturation(&usage(0.9), Some(&behind)).unwrap();
        assert!(
            reason.contains("generator CPU at 90%") && reason.contains("sent 989 of 1000"),
            "{reason}"
        );
    }
}
