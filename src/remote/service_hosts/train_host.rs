//! The far side of a training on a service host: [`train`] runs the job it
//! is sent with the same code as a training on the controlling host
//! ([`crate::train::run_job`]), drives its load from this host to the
//! training service's own loopback address, and hashes the inputs and
//! products where they are; [`check`] hashes them again and runs the probe
//! before every measured start. The comparison with the training record is
//! the controlling side's, as for a local run.
use std::io::Write;
use std::time::{Duration, Instant};

use crate::build::{BuildError, run_logged};
use crate::load::{self, LoadConfig, LoadControl};
use crate::process::{one_line, tail};
use crate::remote::service_hosts::service_host::{failed, fresh_log, home_relative, streamed};
use crate::remote::service_hosts::service_wire::{ServiceAnswer, WireTrain, WireTrainCheck};
use crate::results::rows::training::{DriverFigures, FileHash};
use crate::sample::procfs::leader_live;
use crate::service::Service;
use crate::train::provenance::hash_paths;
use crate::train::{TrainJob, driver_figures, run_job};

/// Trains as `w` says, its log sent back while it runs.
pub fn train(
    w: &WireTrain,
    out: &mut impl Write,
    closed: &(dyn Fn() -> bool + Sync),
) -> ServiceAnswer {
    let state = home_relative(&w.state_dir);
    let log = match fresh_log(&state, &format!("train-{}", w.job.runtime)) {
        Ok(log) => log,
        Err(e) => return failed(&e),
    };
    let config = match w.load.clone().into_config() {
        Ok(c) => c,
        Err(e) => return failed(&format!("the training load cannot be read: {e}")),
    };
    let job = TrainJob {
        dir: home_relative(&w.job.dir.to_string_lossy()),
        produces: (w.job.produces.iter())
            .map(|p| home_relative(&p.to_string_lossy()))
            .collect(),
        ..w.job.clone()
    };
    streamed(&log, out, closed, &|cancelled| {
        let mut driver = DriverFigures {
            connections: config.arrival.connections() as u32,
            ..Default::default()
        };
        let mut drive = |svc: &Service| drive(svc, &config, cancelled, &mut driver);
        let outcome = match run_job(&job, None, &log, &mut drive, cancelled) {
            Ok(outcome) => outcome,
            Err(e) => return failed(&e.to_string()),
        };
        let produced = hash_paths(&job.produces).map_err(|e| e.to_string());
        match (hashed(&w.inputs), produced) {
            (Ok(inputs), Ok(produced)) => ServiceAnswer::Trained {
                startup_ms: outcome.startup.as_secs_f64() * 1000.0,
                kind: outcome.stop.kind.into(),
                exit_status: outcome.stop.exit_status,
                log_dropped_bytes: outcome.stop.log_dropped_bytes,
                driver,
                inputs,
                produced,
            },
            (Err(e), _) => failed(&format!("cannot hash the training inputs: {e}")),
            (_, Err(e)) => failed(&format!("cannot hash the trained files: {e}")),
        }
    })
}

/// The training load against the training service, here; stops early when
/// the session ends or the service dies.
fn drive(
    svc: &Service,
    config: &LoadConfig,
    cancelled: &dyn Fn() -> bool,
    figures: &mut DriverFigures,
) -> Result<(), String> {
    let mut config = config.clone();
    config.target = svc.addr();
    config.host_header = svc.addr().to_string();
    let control = LoadControl::new();
    let sid = svc.sid();
    let mut died = false;
    let report = std::thread::scope(|s| {
        let load = s.spawn(|| load::run(&config, &control));
        // Watched from this thread: `cancelled` and the service stay here.
        while !load.is_finished() {
            std::thread::sleep(Duration::from_millis(100));
            if !leader_live(sid) {
                died = true;
                control.cancel();
            }
            if cancelled() {
                control.cancel();
            }
        }
        load.join()
    });
    let report = report.map_err(|_| "the training load panicked".to_string())?;
    if cancelled() {
        return Err("the session ended".into());
    }
    if died {
        return Err("the training service died under load".into());
    }
    let report = report.map_err(|e| e.to_string())?;
    *figures = driver_figures(&report, figures.connections)?;
    Ok(())
}

/// The check before a measured start: the hashes now, and the probe's problem.
pub fn check(w: &WireTrainCheck) -> ServiceAnswer {
    ServiceAnswer::TrainChecked {
        inputs: hashed(&w.inputs),
        produced: hashed(&w.produces),
        probe_problem: w.probe.as_deref().and_then(|p| probe(w, p).err()),
    }
}

fn probe(w: &WireTrainCheck, probe: &str) -> Result<(), String> {
    let log = fresh_log(
        &home_relative(&w.state_dir),
        &format!("probe-{}", w.runtime),
    )?;
    let started = Instant::now();
    let limit = Duration::from_millis(w.probe_within_ms);
    let over = || started.elapsed() > limit;
    let dir = home_relative(&w.dir);
    let env = crate::process::env::command_env(&w.env, &w.pass_env);
    match run_logged(&w.runtime, &dir, probe, &env, &log, &over) {
        Ok(()) => Ok(()),
        Err(BuildError::Cancelled { .. }) => Err(format!(
            "train.probe `{probe}` did not finish within {} s on the service host (log {} there)",
            limit.as_secs(),
            log.display()
        )),
        Err(e) => Err(format!(
            "train.probe failed on the service host: {e}; its last lines: {}",
            one_line(&tail(&log, 5))
        )),
    }
}

fn hashed(paths: &[String]) -> Result<Vec<FileHash>, String> {
    let paths: Vec<_> = paths.iter().map(|p| home_relative(p)).collect();
    hash_paths(&paths).map_err(|e| e.to_string())
}
