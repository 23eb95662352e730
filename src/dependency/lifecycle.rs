//! A dependency's own lifecycle, the same code wherever it runs (a run on
//! this host, `runner verify`, a service host's far side): built once,
//! then per start a fresh scratch folder, setup, the server through
//! [`crate::service`] (its own process group and cgroup, the guard that
//! kills both if the runner dies), readiness (HTTP, TCP or a command), seed;
//! reset; a check that it runs; a graceful stop with the scratch folder
//! removed.
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::build::run_logged;
use crate::plan::DependencyPlan;
use crate::service::scratch::{Scratch, system_user};
use crate::service::{NotReady, Service, ServiceCommand};

/// Longest a setup, seed or reset command may run.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);

/// Why a dependency could not be started, reset or kept: what, where, what to do.
#[derive(Debug, thiserror::Error)]
#[error("dependency `{name}`: {what}")]
pub struct DependencyError {
    pub name: String,
    pub what: String,
}

fn error(dep: &DependencyPlan, what: impl Into<String>) -> DependencyError {
    DependencyError {
        name: dep.name.clone(),
        what: what.into(),
    }
}

/// One started dependency.
pub(super) struct Up {
    pub(super) service: Service,
    scratch: Scratch,
    env: BTreeMap<String, String>,
    log: PathBuf,
}

/// Where one start of a dependency writes and what cancels its steps: a
/// run's log folder and interruption for exec, a verify folder's for
/// `runner verify`, which starts dependencies with this same code.
pub struct Site<'a> {
    /// Its log file (`<logs>/dependency-<name>.log`).
    pub log: PathBuf,
    /// True once the run is interrupted: its commands and readiness stop waiting.
    pub cancelled: &'a dyn Fn() -> bool,
}

/// Every dependency started (by a run here, `runner verify`, or a service
/// host's far side), by name.
#[derive(Default)]
pub struct Dependencies {
    pub(super) up: BTreeMap<String, Up>,
    built: BTreeSet<String>,
}

impl Dependencies {
    /// Builds `dep` (once per session), then starts it at `site`: scratch,
    /// setup, server, readiness, seed.
    pub fn start_at(&mut self, site: &Site, dep: &DependencyPlan) -> Result<(), DependencyError> {
        let log = site.log.clone();
        let cancelled = site.cancelled;
        // The caller's passed variables (read where it runs: here, or a
        // service host's far side) under the dependency's own.
        let mut env = crate::process::env::command_env(&dep.env, &[]);
        if !self.built.contains(&dep.name) {
            for command in &dep.build {
                run_logged(&dep.name, &dep.dir, command, &env, &log, &cancelled)
                    .map_err(|e| error(dep, format!("build failed: {e}")))?;
            }
            self.built.insert(dep.name.clone());
        }
        let owner =
            match &dep.run_as {
                Some(user) => Some(system_user(user).ok_or_else(|| {
                    error(dep, crate::plan::keys::postgres::missing_user_help(user))
                })?),
                None => None,
            };
        let scratch = Scratch::with_files(&dep.scratch, owner, None).map_err(|e| {
            error(
                dep,
                format!(
                    "cannot create its scratch folder {} with its files: {e}",
                    dep.scratch.path.display()
                ),
            )
        })?;
        env.insert(
            "RUNNER_SCRATCH".into(),
            scratch.path().display().to_string(),
        );
        let step = |what: &str, command: &str| {
            bounded(cancelled, dep, what, command, &env, &log).map_err(|e| {
                error(
                    dep,
                    format!(
                        "{e}; last lines of {}:\n{}",
                        log.display(),
                        crate::process::log_tail::tail(&log, 15)
                    ),
                )
            })
        };
        for command in &dep.setup {
            step("setup", command)?;
        }
        let command = ServiceCommand {
            tls: None,
            runtime: format!("dependency {}", dep.name),
            dir: dep.dir.clone(),
            command: dep.start.clone(),
            env: env.clone(),
            port: dep.port,
            cpus: dep.cpus.clone(),
            limits: dep.limits.clone(),
            log_cap: dep.log_cap_bytes,
            // Made above: its setup commands run in it before the server starts.
            scratch: None,
        };
        let service = match Service::start_ready(&command, &log, &dep.health, &dep.stop, cancelled)
        {
            Ok((service, _)) => service,
            Err(not_ready) => {
                let NotReady { error: e, stopped } = *not_ready;
                // Nothing stopped: nothing was spawned.
                let why = match stopped {
                    None => format!("cannot start: {e}"),
                    Some(_) => format!("not ready: {}", crate::process::one_line(&e.to_string())),
                };
                drop(scratch);
                return Err(error(dep, why));
            }
        };
        for command in &dep.seed {
            if let Err(e) = step("seed", command) {
                let _ = service.stop(&dep.stop);
                return Err(e);
            }
        }
        self.up.insert(
            dep.name.clone(),
            Up {
                service,
                scratch,
                env,
                log,
            },
        );
        Ok(())
    }

    /// [`Dependencies::reset`], given up once `cancelled`.
    pub fn reset_unless(
        &mut self,
        cancelled: &dyn Fn() -> bool,
        dep: &DependencyPlan,
    ) -> Result<(), DependencyError> {
        let (Some(reset), Some(up)) = (&dep.reset, self.up.get(&dep.name)) else {
            return Ok(());
        };
        bounded(cancelled, dep, "reset", &reset.command, &up.env, &up.log)
            .map_err(|e| error(dep, e))
    }

    /// The log of `dep`'s current start, when it is up.
    pub fn log(&self, dep: &str) -> Option<&std::path::Path> {
        self.up.get(dep).map(|up| up.log.as_path())
    }

    /// `Ok` while `dep` runs; why not, with its log tail, once it died.
    pub fn check(&mut self, dep: &DependencyPlan) -> Result<(), DependencyError> {
        let Some(up) = self.up.get_mut(&dep.name) else {
            return Err(error(dep, "is not running"));
        };
        if up.service.is_alive() {
            return Ok(());
        }
        Err(error(
            dep,
            format!(
                "died ({}); see {}; last lines:\n{}",
                up.service.exit_text(),
                up.log.display(),
                up.service.log_tail()
            ),
        ))
    }

    /// Stops `dep` with grace and removes its scratch folder; `Some(problem)`
    /// when either went wrong.
    pub fn stop(&mut self, dep: &DependencyPlan) -> Option<String> {
        let up = self.up.remove(&dep.name)?;
        let stopped = up.service.stop(&dep.stop).err().map(|e| e.to_string());
        let removed = up.scratch.remove().err().map(|e| {
            format!(
                "dependency `{}`: cannot remove its scratch folder: {e}",
                dep.name
            )
        });
        stopped.or(removed)
    }
}

/// Runs one setup, seed or reset `command` of `dep`, logged, for at most
/// [`COMMAND_TIMEOUT`]; `Err` says which step failed and how.
fn bounded(
    cancelled: &dyn Fn() -> bool,
    dep: &DependencyPlan,
    what: &str,
    command: &str,
    env: &BTreeMap<String, String>,
    log: &std::path::Path,
) -> Result<(), String> {
    let deadline = Instant::now() + COMMAND_TIMEOUT;
    let late = || Instant::now() > deadline;
    run_logged(&dep.name, &dep.dir, command, env, log, &|| {
        cancelled() || late()
    })
    .map_err(|e| {
        if late() && !cancelled() {
            format!("{what} command `{command}` did not finish within {COMMAND_TIMEOUT:?}")
        } else {
            format!("{what} failed: {e}")
        }
    })
}
