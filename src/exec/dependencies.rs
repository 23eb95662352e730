//! The real driver's dependencies: built once, then per start a fresh
//! scratch folder, setup, the server through [`crate::service`] (its own
//! process group and cgroup, the guard that kills both if the runner dies),
//! readiness (HTTP, TCP or a command), seed; reset between runtimes or
//! repeats; a graceful stop and the scratch folder removed. During each
//! measured window every dependency the cell's runtime needs is sampled
//! with [`crate::sample`] apart from the service, and its `stats` read.
//! `runner verify` starts, resets and stops its runtimes' dependencies with
//! this same code ([`Dependencies::start_at`] with a [`Site`] of its own).
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::cell::CellContext;
use super::verdict::one_line;
use crate::build::run_logged;
use crate::plan::{DependencyPlan, HealthCheck, HealthPlan};
use crate::results::{
    CsvAppender, DEPENDENCY_STATS_FILE, DEPENDENCY_USAGE_FILE, DependencyStatsRow,
    DependencyUsageRow, MeasurementRow, ResultsError,
};
use crate::sample::{Sampler, SamplerOutput};
use crate::service::scratch::{Scratch, system_user};
use crate::service::{Service, ServiceCommand};

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
struct Up {
    service: Service,
    scratch: Scratch,
    env: BTreeMap<String, String>,
    log: PathBuf,
}

/// A cell's window: the dependencies its runtime needs, sampled.
pub struct Window {
    watched: Vec<Watched>,
}

struct Watched {
    name: String,
    /// Where its `stats` answer, if it has them.
    stats: Option<(std::net::SocketAddr, String)>,
    sampler: Option<Sampler>,
    samples: Option<SamplerOutput>,
}

/// One dependency's readings of a closed window: its samples and its
/// `stats` answer read right after it (where it runs: a service host over
/// SSH sends these back).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DependencyReading {
    pub name: String,
    pub samples: SamplerOutput,
    /// The `stats` path and what `GET` on it answered (body, or why not).
    pub stats: Option<(String, Result<String, String>)>,
}

impl Window {
    /// The closed window's readings, each dependency's stats read now.
    pub fn readings(self) -> Vec<DependencyReading> {
        (self.watched.into_iter())
            .filter_map(|w| {
                let samples = w.samples?;
                let stats = (w.stats).map(|(addr, path)| {
                    let answer = super::dependency_stats::fetch(addr, &path);
                    (path, answer)
                });
                Some(DependencyReading {
                    name: w.name,
                    samples,
                    stats,
                })
            })
            .collect()
    }
}

/// The dependencies `cell` uses (its scenario's, within its runtime's).
pub fn needs_of_cell(plan: &crate::plan::Plan, cell: &crate::plan::Cell) -> Vec<String> {
    (plan.runtimes.iter())
        .find(|r| r.name == cell.runtime)
        .map(|rt| plan.needs_of(rt, Some(cell)))
        .unwrap_or_default()
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// How long a stats reset may take.
const STATS_TIMEOUT: Duration = Duration::from_secs(2);

/// Where one start of a dependency writes and what cancels its steps: a
/// run's log folder and interruption for exec, a verify folder's for
/// `runner verify`, which starts dependencies with this same code.
pub struct Site<'a> {
    /// Its log file (`<logs>/dependency-<name>.log`).
    pub log: PathBuf,
    /// Its scratch folder, made fresh for this start.
    pub scratch: PathBuf,
    /// True once the run is interrupted: its commands and readiness stop waiting.
    pub cancelled: &'a dyn Fn() -> bool,
}

/// Every dependency the real driver started, by name.
#[derive(Default)]
pub struct Dependencies {
    up: BTreeMap<String, Up>,
    built: BTreeSet<String>,
    files: DependencyFiles,
}

/// The run's dependency-usage.csv and dependency-stats.csv, opened on the
/// first window that has readings.
#[derive(Default)]
pub struct DependencyFiles {
    usage: Option<CsvAppender<DependencyUsageRow>>,
    stats: Option<CsvAppender<DependencyStatsRow>>,
}

impl Dependencies {
    /// Builds `dep` (once per session), then starts it: scratch, setup,
    /// server, readiness, seed.
    pub fn start(
        &mut self,
        ctx: &CellContext,
        dep: &DependencyPlan,
    ) -> Result<(), DependencyError> {
        let cancelled = || ctx.interrupt.is_set();
        let site = Site {
            log: ctx.run.log(&format!("dependency-{}", dep.name)),
            scratch: std::env::temp_dir().join(format!("runner-{}-{}", ctx.run.run_id(), dep.name)),
            cancelled: &cancelled,
        };
        self.start_at(&site, dep)
    }

    /// [`Dependencies::start`] at `site`.
    pub fn start_at(&mut self, site: &Site, dep: &DependencyPlan) -> Result<(), DependencyError> {
        let log = site.log.clone();
        let cancelled = site.cancelled;
        if !self.built.contains(&dep.name) {
            for command in &dep.build {
                run_logged(&dep.name, &dep.dir, command, &dep.env, &log, &cancelled)
                    .map_err(|e| error(dep, format!("build failed: {e}")))?;
            }
            self.built.insert(dep.name.clone());
        }
        let owner = match &dep.run_as {
            Some(user) => Some(
                system_user(user)
                    .ok_or_else(|| error(dep, crate::plan::postgres::missing_user_help(user)))?,
            ),
            None => None,
        };
        let scratch_path = site.scratch.clone();
        let scratch = Scratch::create(scratch_path.clone(), owner).map_err(|e| {
            error(
                dep,
                format!(
                    "cannot create its scratch folder {}: {e}",
                    scratch_path.display()
                ),
            )
        })?;
        let mut env = dep.env.clone();
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
            runtime: format!("dependency {}", dep.name),
            dir: dep.dir.clone(),
            command: dep.start.clone(),
            env: env.clone(),
            port: dep.port,
            cpus: dep.cpus.clone(),
            limits: dep.limits.clone(),
            log_cap: dep.log_cap_bytes,
        };
        let mut service =
            Service::start(&command, &log).map_err(|e| error(dep, format!("cannot start: {e}")))?;
        let ready = wait_ready(&mut service, dep, &env, cancelled);
        if let Err(e) = ready {
            let _ = service.stop(&dep.stop);
            drop(scratch);
            return Err(error(dep, format!("not ready: {}", one_line(&e))));
        }
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

    /// Runs `dep`'s reset command.
    pub fn reset(
        &mut self,
        ctx: &CellContext,
        dep: &DependencyPlan,
    ) -> Result<(), DependencyError> {
        self.reset_unless(&|| ctx.interrupt.is_set(), dep)
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

    /// At the start of a measured window: zeroes the `stats` of every
    /// dependency `needs` names, then starts sampling them.
    pub fn open_window(&mut self, ctx: &CellContext, needs: &[String]) -> Window {
        let deps = (ctx.plan.dependencies.iter()).filter(|d| needs.contains(&d.name));
        self.open_window_of(deps, ctx.plan.sample_interval)
    }

    /// [`Dependencies::open_window`] for `deps` (those that are up), sampled
    /// every `interval`.
    pub fn open_window_of<'p>(
        &mut self,
        deps: impl IntoIterator<Item = &'p DependencyPlan>,
        interval: Duration,
    ) -> Window {
        let mut watched = Vec::new();
        for dep in deps {
            let Some(up) = self.up.get(&dep.name) else {
                continue;
            };
            if let Some(stats) = &dep.stats {
                let reset = format!("{stats}/reset");
                let _ = crate::service::http_status(
                    up.service.addr(),
                    "POST",
                    &reset,
                    &[],
                    None,
                    STATS_TIMEOUT,
                );
            }
            let sampler = Sampler::start_with_cgroup(
                up.service.sid(),
                up.service.cgroup().map(|c| c.usage_files()),
                interval,
                Instant::now(),
                Box::new(|| {}),
            );
            watched.push(Watched {
                name: dep.name.clone(),
                stats: dep.stats.clone().map(|path| (up.service.addr(), path)),
                sampler: Some(sampler),
                samples: None,
            });
        }
        Window { watched }
    }

    /// At the end of the window: the samplers stopped.
    pub fn close_window(&mut self, window: &mut Window) {
        for w in &mut window.watched {
            w.samples = w.sampler.take().map(Sampler::finish);
        }
    }

    /// After the cell's row is known: each dependency's samples and stats,
    /// appended to dependency-usage.csv and dependency-stats.csv.
    pub fn write_window(
        &mut self,
        ctx: &CellContext,
        window: Window,
        row: &MeasurementRow,
    ) -> Result<(), ResultsError> {
        self.files.write(ctx, window.readings(), row)
    }
}

impl DependencyFiles {
    /// Appends `readings` (taken here or on a service host) for the cell of `row`.
    pub fn write(
        &mut self,
        ctx: &CellContext,
        readings: Vec<DependencyReading>,
        row: &MeasurementRow,
    ) -> Result<(), ResultsError> {
        let answered = (row.ok + row.errors) as f64;
        for r in readings {
            if self.usage.is_none() {
                self.usage = Some(CsvAppender::open(&ctx.run.file(DEPENDENCY_USAGE_FILE))?);
            }
            if let Some(out) = self.usage.as_mut() {
                out.append(&usage_row(row, &r.name, &r.samples, answered))?;
            }
            let Some((path, answer)) = r.stats else {
                continue;
            };
            let rows = super::dependency_stats::rows_of(answer, &path, row, &r.name);
            if self.stats.is_none() {
                self.stats = Some(CsvAppender::open(&ctx.run.file(DEPENDENCY_STATS_FILE))?);
            }
            if let Some(out) = self.stats.as_mut() {
                for r in &rows {
                    out.append(r)?;
                }
            }
        }
        Ok(())
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

fn usage_row(
    row: &MeasurementRow,
    name: &str,
    samples: &SamplerOutput,
    answered: f64,
) -> DependencyUsageRow {
    let cpu = samples.cgroup_cpu_seconds().or(samples.cpu_seconds());
    DependencyUsageRow {
        cell_id: row.cell_id.clone(),
        repeat: row.repeat,
        dependency: name.to_owned(),
        cpu_seconds: cpu,
        cpu_ms_per_request: cpu
            .filter(|_| answered > 0.0)
            .map(|c| c * 1000.0 / answered),
        rss_mean_bytes: samples.rss_mean(),
        rss_max_bytes: samples.rss_max(),
        cgroup_memory_mean_bytes: samples.cgroup_memory_mean(),
        cgroup_memory_peak_bytes: samples.cgroup_memory_peak(),
    }
}

/// Waits for `dep`'s readiness check.
fn wait_ready(
    service: &mut Service,
    dep: &DependencyPlan,
    env: &BTreeMap<String, String>,
    cancelled: &dyn Fn() -> bool,
) -> Result<Duration, String> {
    let health = &dep.health;
    let result = match &health.check {
        HealthCheck::Http(path) => service.wait_healthy_unless(
            &HealthPlan {
                path: path.clone(),
                timeout: health.timeout,
                interval: health.interval,
            },
            cancelled,
        ),
        HealthCheck::Tcp => {
            let addr = service.addr();
            service.wait_ready_by(
                &format!("a TCP connect to {addr}"),
                &mut || {
                    std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(500))
                        .map(drop)
                        .map_err(|e| e.to_string())
                },
                health.timeout,
                health.interval,
                cancelled,
            )
        }
        HealthCheck::Command(command) => service.wait_ready_by(
            &format!("the health command `{command}`"),
            &mut || run_check(dep, command, env),
            health.timeout,
            health.interval,
            cancelled,
        ),
    };
    result.map_err(|e| e.to_string())
}

/// One run of a health command: `Ok` on exit 0.
fn run_check(
    dep: &DependencyPlan,
    command: &str,
    env: &BTreeMap<String, String>,
) -> Result<(), String> {
    let out = std::process::Command::new("sh")
        .args(["-c", command])
        .current_dir(&dep.dir)
        .envs(env)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        let said = String::from_utf8_lossy(&out.stderr);
        Err(format!(
            "{}{}",
            crate::process::describe_exit(out.status),
            if said.trim().is_empty() {
                String::new()
            } else {
                format!(": {}", said.trim())
            }
        ))
    }
}
