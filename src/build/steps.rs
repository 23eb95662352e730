//! Running the build commands of one runtime.
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::cache::{BuildCache, CacheRecord};
use super::error::{BuildError, FailedCommand};
use super::input_hash::input_hash;
use crate::plan::RuntimePlan;
use crate::process::{describe_exit, runtime_env, signal_group, tail};

/// What a build did.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildOutcome {
    /// Skipped: the inputs matched the last successful build.
    pub cached: bool,
    /// Time spent building (0 when cached).
    pub seconds: f64,
    pub artifact_bytes: Option<u64>,
    pub input_hash: String,
    /// Total size of what ships (`deployable`, else the artifact).
    pub deployable_bytes: Option<u64>,
}

/// Builds `rt` unless its inputs match the last successful build; output of
/// every command goes to `log`.
pub fn build_runtime(
    rt: &RuntimePlan,
    cache: &BuildCache,
    log: &Path,
) -> Result<BuildOutcome, BuildError> {
    build_runtime_unless(rt, cache, log, &|| false)
}

/// [`build_runtime`], killing the running command and returning
/// `Cancelled` as soon as `cancelled()` is true (checked every 100 ms).
pub fn build_runtime_unless(
    rt: &RuntimePlan,
    cache: &BuildCache,
    log: &Path,
    cancelled: &dyn Fn() -> bool,
) -> Result<BuildOutcome, BuildError> {
    let env = runtime_env(rt);
    let hash = |rt: &RuntimePlan| {
        input_hash(&rt.dir, &rt.build, &build_env(rt)).map_err(|source| BuildError::Hash {
            runtime: rt.name.clone(),
            dir: rt.dir.clone(),
            source,
        })
    };
    let before = hash(rt)?;
    if let Some(last) = cache.find(&before, &rt.dir)
        && rt.artifact.as_ref().is_none_or(|a| a.exists())
    {
        append_line(
            rt,
            log,
            &format!(
                "=== runner: build of {} skipped: inputs unchanged since the build of {} ({})",
                rt.name,
                last.finished_at,
                &before[..12]
            ),
        )?;
        // A build shared with another runtime is recorded under this name too.
        let _ = cache.record_success(&rt.name, &last);
        return Ok(BuildOutcome {
            cached: true,
            seconds: 0.0,
            artifact_bytes: artifact_bytes(rt),
            input_hash: before,
            deployable_bytes: deployable_bytes(rt),
        });
    }
    cache.forget(&rt.name, &rt.dir);
    let started = Instant::now();
    for (i, command) in rt.build.iter().enumerate() {
        append_line(
            rt,
            log,
            &format!(
                "=== runner: build {} step {}/{}: {command}",
                rt.name,
                i + 1,
                rt.build.len()
            ),
        )?;
        run_logged(&rt.name, &rt.dir, command, &env, log, cancelled)?;
    }
    let seconds = started.elapsed().as_secs_f64();
    if let Some(path) = rt
        .artifact
        .iter()
        .chain(&rt.deployable)
        .find(|p| !p.exists())
    {
        return Err(BuildError::MissingArtifact {
            runtime: rt.name.clone(),
            path: path.clone(),
        });
    }
    // Hashed again after the build: a build that writes files the hash sees
    // (e.g. a lock file) must not look changed next time.
    let after = hash(rt)?;
    let outcome = BuildOutcome {
        cached: false,
        seconds,
        artifact_bytes: artifact_bytes(rt),
        input_hash: after,
        deployable_bytes: deployable_bytes(rt),
    };
    let record = CacheRecord {
        input_hash: outcome.input_hash.clone(),
        dir: rt.dir.display().to_string(),
        finished_at: crate::results::rfc3339_now(),
        seconds,
        artifact_bytes: outcome.artifact_bytes,
    };
    cache
        .record_success(&rt.name, &record)
        .map_err(|source| BuildError::Write {
            runtime: rt.name.clone(),
            path: log.to_path_buf(),
            source,
        })?;
    Ok(outcome)
}

/// Runs `sh -c command` in `dir` with `env` added, stdout and stderr
/// appended to `log`; a non-zero exit is an error quoting the log's tail.
/// Shared by build steps and training's `after` commands. The command is
/// killed when `cancelled()` turns true.
pub fn run_logged(
    runtime: &str,
    dir: &Path,
    command: &str,
    env: &std::collections::BTreeMap<String, String>,
    log: &Path,
    cancelled: &dyn Fn() -> bool,
) -> Result<(), BuildError> {
    let spawn_err = |source| BuildError::Spawn {
        runtime: runtime.to_string(),
        command: command.to_string(),
        log: log.to_path_buf(),
        source,
    };
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(spawn_err)?;
    let expr = duct::cmd!("sh", "-c", command)
        .dir(dir)
        .stdin_null()
        // Inner redirections apply last: stderr joins stdout *after* stdout
        // went to the log file.
        .stderr_to_stdout()
        .stdout_file(file)
        .unchecked()
        // Its own process group, so that cancelling kills the compilers it
        // started too (and a terminal's Ctrl-C reaches the runner, which
        // decides); SIGKILLed if the runner dies.
        .before_spawn(|cmd| {
            use std::os::unix::process::CommandExt;
            // SAFETY: setpgid and prctl are async-signal-safe.
            unsafe {
                cmd.pre_exec(|| {
                    libc::setpgid(0, 0);
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                    Ok(())
                });
            }
            Ok(())
        });
    // The whole environment, nothing inherited: `env` comes from
    // `process::env::command_env` (docs/spec.md, the environment of a
    // runtime's commands).
    let expr = expr.full_env(env);
    let handle = expr.start().map_err(spawn_err)?;
    let output = loop {
        if let Some(output) = handle
            .wait_timeout(std::time::Duration::from_millis(100))
            .map_err(spawn_err)?
        {
            break output.clone();
        }
        if cancelled() {
            for pid in handle.pids() {
                signal_group(pid as i32, libc::SIGKILL);
            }
            let _ = handle.kill();
            return Err(BuildError::Cancelled {
                runtime: runtime.to_string(),
                command: command.to_string(),
            });
        }
    };
    if output.status.success() {
        return Ok(());
    }
    Err(BuildError::CommandFailed(Box::new(FailedCommand {
        runtime: runtime.to_string(),
        command: command.to_string(),
        status: describe_exit(output.status),
        dir: dir.to_path_buf(),
        log: log.to_path_buf(),
        tail: tail(log, 10),
    })))
}

fn append_line(rt: &RuntimePlan, log: &Path, line: &str) -> Result<(), BuildError> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .and_then(|mut f| writeln!(f, "{line}"))
        .map_err(|source| BuildError::Write {
            runtime: rt.name.clone(),
            path: log.to_path_buf(),
            source,
        })
}

/// The env that goes into the input hash: the declared env without `PORT`,
/// which the plan adds (and, with `port: auto`, picks anew on every run):
/// it would otherwise defeat the cache, and builds do not depend on it.
fn build_env(rt: &RuntimePlan) -> std::collections::BTreeMap<String, String> {
    let mut env = rt.env.clone();
    env.remove("PORT");
    env
}

/// Size of the declared artifact: a file's length, or a directory's total.
fn artifact_bytes(rt: &RuntimePlan) -> Option<u64> {
    rt.artifact.as_deref().and_then(|p| size_of(p).ok())
}

/// Total size of what ships; `None` when nothing is declared or a part is
/// missing (a cached build whose output was removed).
fn deployable_bytes(rt: &RuntimePlan) -> Option<u64> {
    if rt.deployable.is_empty() {
        return None;
    }
    rt.deployable.iter().map(|p| size_of(p).ok()).sum()
}

/// Size of the JDK a runtime with `java:` ships besides its deployable: its
/// JDK home, unless a deployable part is itself a Java runtime image (a
/// jlink image: `bin/java` and `lib/modules`), which replaces the JDK.
pub fn shipped_jdk_bytes(rt: &RuntimePlan) -> Option<u64> {
    let home = rt.java.as_ref()?.home.as_deref()?;
    let is_image = |p: &PathBuf| p.join("bin/java").is_file() && p.join("lib/modules").is_file();
    if rt.deployable.iter().any(is_image) {
        return None;
    }
    size_of(home).ok()
}

fn size_of(path: &Path) -> std::io::Result<u64> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        return Ok(meta.len());
    }
    tree_size(path)
}

/// A folder's total; links inside it count as themselves, not as what they
/// point to (a Debian JDK links into /etc; a link loop must not recurse).
fn tree_size(dir: &Path) -> std::io::Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let meta = entry.metadata()?; // does not follow a link
        total += if meta.is_dir() {
            tree_size(&entry.path())?
        } else {
            meta.len()
        };
    }
    Ok(total)
}
