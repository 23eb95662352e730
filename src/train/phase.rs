//! One training phase, start to checked outputs.
use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use super::TrainError;
use super::job::TrainJob;
use crate::build::run_logged;
use crate::plan::{RuntimePlan, TrainPlan};
use crate::service::{Service, ServiceCommand, StopReport};

/// What the training phase did (exec records it in lifecycle.csv).
#[derive(Debug, Clone)]
pub struct TrainOutcome {
    /// Spawn -> healthy of the training service.
    pub startup: Duration,
    pub stop: StopReport,
}

/// Trains `rt` as `tp` declares, with no TLS certificate for its start
/// (exec builds the job itself, with the run's: [`TrainJob::new`]);
/// everything (service output, `after`
/// commands) is appended to `log`. `drive` applies the training workload to
/// the healthy service (an `Err` says why it failed). When `cancelled()`
/// turns true, waits and commands stop early with an error.
pub fn train_runtime(
    rt: &RuntimePlan,
    tp: &TrainPlan,
    cpus: Option<Vec<usize>>,
    log: &Path,
    drive: &mut dyn FnMut(&Service) -> Result<(), String>,
    cancelled: &dyn Fn() -> bool,
) -> Result<TrainOutcome, TrainError> {
    run_job(&TrainJob::new(rt, tp, None), cpus, log, drive, cancelled)
}

/// Runs one training `job` (here, or on a service host that was sent it).
pub fn run_job(
    job: &TrainJob,
    cpus: Option<Vec<usize>>,
    log: &Path,
    drive: &mut dyn FnMut(&Service) -> Result<(), String>,
    cancelled: &dyn Fn() -> bool,
) -> Result<TrainOutcome, TrainError> {
    let service_err = |source| TrainError::Service {
        runtime: job.runtime.clone(),
        source: Box::new(source),
    };
    remove_previous_outputs(job)?;
    let command = ServiceCommand {
        runtime: job.runtime.clone(),
        dir: job.dir.clone(),
        command: job.start.clone(),
        env: job.env.clone(),
        port: job.port,
        cpus,
        // Training gets a cgroup of its own (the service layer makes one per
        // start) but no limits: they belong to measured cells.
        limits: crate::cgroup::Limits::default(),
        log_cap: job.log_cap,
        scratch: job.scratch.clone(),
        tls: job.tls.clone(),
    };
    let (service, times) = Service::start_ready(&command, log, &job.health, &job.stop, cancelled)
        .map_err(|not_ready| service_err(not_ready.error))?;
    let startup = times.healthy;
    drive(&service).map_err(|message| TrainError::Drive {
        runtime: job.runtime.clone(),
        message,
        log: log.to_path_buf(),
    })?;
    let stop = service.stop(&job.stop).map_err(service_err)?;
    note(
        log,
        &format!(
            "=== runner: training service stopped ({}, {})",
            stop.kind.as_str(),
            stop.exit_status
        ),
    );
    for command in &job.after {
        note(
            log,
            &format!("=== runner: training {} after: {command}", job.runtime),
        );
        run_logged(&job.runtime, &job.dir, command, &job.env, log, cancelled).map_err(
            |source| TrainError::After {
                runtime: job.runtime.clone(),
                source,
            },
        )?;
    }
    for path in &job.produces {
        let problem = match std::fs::metadata(path).map(|m| m.len()) {
            Err(_) => Some("missing"),
            Ok(0) => Some("empty"),
            Ok(_) => None,
        };
        if let Some(problem) = problem {
            return Err(TrainError::MissingOutput {
                runtime: job.runtime.clone(),
                path: path.clone(),
                problem,
                log: log.to_path_buf(),
            });
        }
    }
    Ok(TrainOutcome { startup, stop })
}

/// Deletes what an earlier training left behind, so that only this run's
/// training can satisfy `produces`. A stale output is worse than none: JDK 25
/// happily maps an AOT cache created from an older jar.
fn remove_previous_outputs(job: &TrainJob) -> Result<(), TrainError> {
    for path in &job.produces {
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(TrainError::StaleOutput {
                    runtime: job.runtime.clone(),
                    path: path.clone(),
                    source,
                });
            }
        }
    }
    Ok(())
}

fn note(log: &Path, line: &str) {
    if let Ok(mut f) = OpenOptions::new().create(true).append(true).open(log) {
        let _ = writeln!(f, "{line}");
    }
}
