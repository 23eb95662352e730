//! One runtime's verify session: build (with exec's cache and logs), start
//! in its own process group, wait for health, send every verify request,
//! stop, and confirm the port is free. Failures become the runtime's
//! [`Outcome`], never a crash of the whole verify.
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::dependencies::VerifyDependencies;
use super::outcome::{Answer, Outcome, RuntimeRecord, Stage};
use super::toolchain::{missing_after_build, missing_toolchain};
use crate::build::{BuildCache, build_runtime_unless};
use crate::load::{RequestSpec, probe_answer_over};
use crate::plan::{RuntimePlan, VerifyPlan};
use crate::service::{
    NotReady, Service, ServiceCommand, ServiceError, StopReport, check_port_free,
};

/// What every session shares.
pub struct Context<'a> {
    pub cache: &'a BuildCache,
    /// `<verify folder>/logs`.
    pub logs: &'a Path,
    /// Bounds each verify request (connect, and the whole exchange).
    pub timeout: Duration,
    /// Progress lines ("go: building ...") go here (stderr in the CLI).
    pub progress: &'a mut dyn Write,
    /// True once verify is interrupted (SIGINT, SIGTERM): the build, the
    /// health wait and the requests stop, the service is stopped.
    pub cancelled: &'a dyn Fn() -> bool,
    /// The session's certificate files, for a start that serves TLS.
    pub tls: Option<&'a crate::certs::ServerFiles>,
    /// What this runtime's requests speak: its first cell's protocol.
    pub transport: crate::load::Transport,
}

/// Runs the whole session of `rt` and records what happened.
pub fn check_runtime(
    rt: &RuntimePlan,
    started: &RuntimePlan,
    requests: &[VerifyPlan],
    ctx: &mut Context,
    dependencies: &mut VerifyDependencies,
) -> RuntimeRecord {
    let mut record = RuntimeRecord {
        name: rt.name.clone(),
        outcome: Outcome::Ran,
        answers: Vec::new(),
        notes: Vec::new(),
    };
    if let Some(reason) = missing_toolchain(rt) {
        let _ = writeln!(ctx.progress, "verify: {}: skipped: {reason}", rt.name);
        record.outcome = Outcome::Skipped { reason };
        return record;
    }
    let build_log = ctx.logs.join(format!("build-{}.log", rt.name));
    let service_log = ctx.logs.join(format!("{}.log", rt.name));
    let fail = |stage, reason: String, log: &Path| Outcome::Failed {
        stage,
        reason,
        log: log.to_path_buf(),
    };

    let _ = writeln!(
        ctx.progress,
        "verify: {}: building (log {})",
        rt.name,
        build_log.display()
    );
    match build_runtime_unless(rt, ctx.cache, &build_log, ctx.cancelled) {
        Ok(_) if rt.build.is_empty() => record.notes.push("nothing to build".into()),
        Ok(b) => {
            if let Some(reason) = missing_after_build(rt, &build_log, b.cached) {
                record.outcome = fail(Stage::Build, reason, &build_log);
                return record;
            }
            record.notes.push(if b.cached {
                "build cached (inputs unchanged)".into()
            } else {
                format!("built in {:.1}s", b.seconds)
            });
        }
        Err(e) => {
            record.outcome = fail(Stage::Build, e.to_string(), &build_log);
            return record;
        }
    }

    if !rt.needs.is_empty() {
        let _ = writeln!(
            ctx.progress,
            "verify: {}: preparing its dependencies ({})",
            rt.name,
            rt.needs.join(", ")
        );
    }
    if let Err(failure) = dependencies.prepare(rt, &mut record.notes) {
        record.outcome = fail(Stage::Dependency, failure.reason, &failure.log);
        return record;
    }
    if let Err(in_use) = check_port_free(&rt.name, rt.port) {
        record.outcome = fail(Stage::Start, in_use.to_string(), &service_log);
        return record;
    }
    // Started as its first cell starts it (its JDK, flags, env).
    let command = ServiceCommand::measured(started, None).with_tls(ctx.tls);
    let _ = writeln!(
        ctx.progress,
        "verify: {}: starting on 127.0.0.1:{} (log {})",
        rt.name,
        rt.port,
        service_log.display()
    );
    let mut service =
        match Service::start_ready(&command, &service_log, &rt.health, &rt.stop, ctx.cancelled) {
            Ok((service, times)) => {
                record
                    .notes
                    .push(format!("healthy after {:.1}s", times.healthy.as_secs_f64()));
                service
            }
            Err(not_ready) => {
                let NotReady { error, stopped } = *not_ready;
                record.outcome = fail(Stage::Start, error.to_string(), &service_log);
                // Stopped all the same, so that the port is free for the next runtime.
                if let Some(stopped) = stopped {
                    record.notes.push(stop_note(stopped, rt.port));
                }
                return record;
            }
        };

    let addr = service.addr();
    record.answers = requests
        .iter()
        .map(|r| {
            if (ctx.cancelled)() {
                Answer::Error {
                    error: "not sent: verify was interrupted".into(),
                }
            } else {
                send(addr, r, ctx.timeout, &ctx.transport)
            }
        })
        .collect();
    if let Err(failure) = dependencies.check(rt) {
        record.outcome = fail(Stage::Dependency, failure.reason, &failure.log);
    } else if !service.is_alive() {
        record.outcome = fail(
            Stage::Run,
            format!(
                "the service exited ({}) while the verify requests were sent; last lines:\n{}",
                service.exit_text(),
                service.log_tail()
            ),
            &service_log,
        );
    }

    match service.stop(&rt.stop) {
        Err(e) if matches!(record.outcome, Outcome::Ran) => {
            record.outcome = fail(Stage::Stop, e.to_string(), &service_log);
        }
        result => record.notes.push(stop_note(result, rt.port)),
    }
    record
}

/// One verify request through `load::probe` (a fresh connection, hyper,
/// over `transport`'s protocol); a workload request's answer is checked
/// against its `content`.
fn send(
    addr: std::net::SocketAddr,
    request: &VerifyPlan,
    timeout: Duration,
    transport: &crate::load::Transport,
) -> Answer {
    let spec = RequestSpec {
        method: request.method.clone(),
        path: request.path.clone(),
        headers: request.headers.clone(),
        body: request.body.clone().map(bytes::Bytes::from),
        expect_status: request.expect_status,
        weight: None,
        check: None,
    };
    if let Some(content) = &request.content {
        let call = (addr, timeout, transport);
        return super::workload::send_checked(call, &spec, &request.name, content);
    }
    match probe_answer_over(addr, &spec, timeout, transport) {
        Ok(answer) => Answer::from_reply(answer.status, &answer.body),
        Err(e) => Answer::Error {
            error: e.to_string(),
        },
    }
}

fn stop_note(result: Result<StopReport, ServiceError>, port: u16) -> String {
    match result {
        Ok(stop) => format!(
            "stopped: {} ({}), port {port} free",
            stop.kind.as_str(),
            stop.exit_status
        ),
        Err(e) => format!("stop failed: {e}"),
    }
}

/// Creates `<experiment results>/verify-<run id>/logs` and returns the
/// folder and its `logs`. Never reuses a folder: a second verify within the
/// same second gets `verify-<run id>-2`.
pub fn create_folder(results_dir: &Path, run_id: &str) -> std::io::Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(results_dir)?;
    let mut n = 1;
    loop {
        let name = match n {
            1 => format!("verify-{run_id}"),
            _ => format!("verify-{run_id}-{n}"),
        };
        let folder = results_dir.join(name);
        match std::fs::create_dir(&folder) {
            Ok(()) => {
                let logs = folder.join("logs");
                std::fs::create_dir(&logs)?;
                return Ok((folder, logs));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => n += 1,
            Err(e) => return Err(e),
        }
    }
}
