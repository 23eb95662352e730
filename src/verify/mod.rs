//! `runner verify SPEC`: are the services under test equivalent?
//!
//! A benchmark across runtimes only means something if every service does
//! the same work and answers the same. Verify plans the spec, then for each
//! runtime in turn (one service at a time, as exec does): builds it with
//! the build stage (same cache, logs in the verify folder), starts it with
//! the service stage (own process group, health wait, dies with the
//! runner), sends every `verify` request of the spec on 127.0.0.1 (with
//! `load::probe`: a fresh connection per request), then each workload
//! request whose `expect` has content checks ([`workload`]), stops it
//! and confirms its port is free. The dependencies a runtime needs (a
//! database, stubs) are started before it and reset before each later one
//! ([`dependencies`]), and stopped at the end. Then it compares
//! ([`compare`]): statuses against `expect_status`, each `compare` field
//! (dotted paths allowed) across runtimes, each request from a vectors
//! file against the case's expected `response`, and each workload answer
//! against its request's `expect` (sizes, text, headers).
//!
//! Exit status: 0 equivalent, 1 any difference (including a runtime that
//! failed to build or start, or was skipped for a missing toolchain unless
//! `--allow-skipped`), 2 spec or preflight errors, 130 interrupted. See
//! docs/verify.md.
pub mod compare;
pub mod dependencies;
pub mod error;
pub mod outcome;
pub mod render;
pub mod session;
pub mod toolchain;
pub mod workload;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use compare::{Difference, Verdict, compare};
pub use error::VerifyError;
pub use outcome::{Answer, Outcome, RuntimeRecord, Stage};

use crate::build::BuildCache;
use crate::plan::{self, Plan, PlanOptions, VerifyPlan};
use crate::spec;
use dependencies::VerifyDependencies;

/// Exit statuses.
pub const EXIT_EQUIVALENT: u8 = 0;
pub const EXIT_DIFFERENT: u8 = 1;
pub const EXIT_PREFLIGHT: u8 = 2;
/// SIGINT or SIGTERM: everything started was stopped, nothing compared.
pub const EXIT_INTERRUPTED: u8 = 130;

/// The verify report's file name in the verify folder.
pub const REPORT_FILE: &str = "verify.json";

/// Output format on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum VerifyFormat {
    Table,
    Json,
}

/// Command-line choices.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// `--only KEY=VALUE[,VALUE]`, as for `runner plan` (usually `runtime=a,b`).
    pub only: Vec<String>,
    pub format: VerifyFormat,
    /// Skipped runtimes (missing toolchain) do not make the verdict fail.
    pub allow_skipped: bool,
}

/// Everything verify found, as written to `verify.json` (and printed by `--format json`).
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    pub experiment: &'a str,
    pub spec: PathBuf,
    pub folder: PathBuf,
    pub started_at: String,
    pub equivalent: bool,
    pub exit_code: u8,
    pub requests: &'a [VerifyPlan],
    pub runtimes: &'a [RuntimeRecord],
    pub verdict: &'a Verdict,
}

/// `runner verify SPEC`: returns the exit status; the report goes to `out`,
/// progress and errors to `err`.
pub fn verify_command(
    spec_path: &Path,
    options: &VerifyOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let plan_options = PlanOptions {
        only: options.only.clone(),
        ..PlanOptions::default()
    };
    let plan = match spec::load(spec_path).and_then(|l| plan::build(&l, &plan_options)) {
        Ok(plan) => plan,
        Err(errors) => {
            let n = errors.problems.len();
            let _ = writeln!(
                err,
                "{errors}\n\n{}: {n} problem{} found",
                spec_path.display(),
                if n == 1 { "" } else { "s" }
            );
            return EXIT_PREFLIGHT;
        }
    };
    // Registered before anything starts, so that a SIGINT stops the
    // services and dependencies (a second one exits at once; their guards
    // then kill them).
    let interrupt = match crate::exec::interrupt::Interrupt::install() {
        Ok(i) => i,
        Err(e) => {
            let _ = writeln!(
                err,
                "error: cannot install the SIGINT/SIGTERM handlers: {e}"
            );
            return EXIT_PREFLIGHT;
        }
    };
    match run(&plan, spec_path, options, &interrupt, out, err) {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            EXIT_PREFLIGHT
        }
    }
}

/// Verifies the runtimes of `plan` that have cells (so `--only` applies).
pub fn run(
    plan: &Plan,
    spec_path: &Path,
    options: &VerifyOptions,
    interrupt: &crate::exec::interrupt::Interrupt,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8, VerifyError> {
    let shown = spec_path.display().to_string();
    let wanted: BTreeSet<&str> = plan.cells.iter().map(|c| c.runtime.as_str()).collect();
    // The spec's `verify:` requests, then the workload's with content checks.
    let mut requests = plan.verify.clone();
    requests.extend(workload::workload_requests(&plan.cells));
    if requests.is_empty() {
        return Err(VerifyError::NoRequests { spec: shown });
    }
    let runtimes: Vec<_> = plan
        .runtimes
        .iter()
        .filter(|r| wanted.contains(r.name.as_str()))
        .collect();
    for rt in &runtimes {
        if !rt.dir.is_dir() {
            return Err(VerifyError::MissingDir {
                runtime: rt.name.clone(),
                dir: rt.dir.clone(),
                spec: shown,
            });
        }
    }
    let started_at = crate::results::rfc3339_now();
    // Normalised (no `..`) so that the printed log paths are readable.
    let results_dir = spec::absolute(&plan.results_dir);
    let run_id = crate::results::new_run_id();
    let (folder, logs) =
        session::create_folder(&results_dir, &run_id).map_err(|source| VerifyError::Folder {
            path: results_dir.clone(),
            source,
        })?;
    // Runtimes whose first cell speaks TLS start with a certificate of
    // verify's own, as a run's do; its CA is kept in the verify folder.
    let certificates = crate::exec::walk::certificates::for_folder(plan, &folder)?;
    let run_ca = folder.join(crate::results::TLS_CA_FILE);
    // The per-request timeout is the spec's load timeout (`load.timeout`).
    let timeout = plan
        .cells
        .first()
        .map_or(plan::DEFAULT_LOAD_TIMEOUT, |c| c.load.timeout);
    let cache = BuildCache::for_experiment(&results_dir);
    let _ = writeln!(
        err,
        "verify: {} request(s) x {} runtime(s); logs in {}",
        requests.len(),
        runtimes.len(),
        logs.display()
    );
    let cancelled = || interrupt.is_set();
    let mut dependencies = VerifyDependencies::new(plan, &logs, &cancelled);
    let mut records = Vec::new();
    for rt in runtimes {
        if interrupt.is_set() {
            break;
        }
        let first = plan.cells.iter().find(|c| c.runtime == rt.name);
        let mut ctx = session::Context {
            cache: &cache,
            logs: &logs,
            timeout,
            progress: err,
            cancelled: &cancelled,
            tls: certificates.as_ref().map(|c| &c.files),
            // Its requests speak what its first cell speaks (over TLS, trusting
            // the verify's own CA unless the spec names another).
            transport: crate::exec::measure::load_config::first_cell_transport(
                plan, &rt.name, &run_ca,
            ),
        };
        let started = first.map_or(std::borrow::Cow::Borrowed(rt), |c| rt.for_cell(c));
        records.push(session::check_runtime(
            rt,
            &started,
            &requests,
            &mut ctx,
            &mut dependencies,
        ));
    }
    let stop_problems = dependencies.stop_all();
    drop(dependencies);
    if interrupt.is_set() {
        let _ = writeln!(
            err,
            "verify: interrupted by {}: every service and dependency it started is stopped; \
             nothing was compared (logs in {})",
            interrupt.describe(),
            logs.display()
        );
        return Ok(EXIT_INTERRUPTED);
    }

    let mut verdict = compare(&requests, &records, options.allow_skipped);
    verdict
        .differences
        .extend(stop_problems.into_iter().map(|(dependency, reason, log)| {
            Difference::DependencyStop {
                dependency,
                reason,
                log: log.display().to_string(),
            }
        }));
    let exit_code = if verdict.equivalent() {
        EXIT_EQUIVALENT
    } else {
        EXIT_DIFFERENT
    };
    let report = Report {
        experiment: &plan.experiment.name,
        spec: plan.spec_path.clone(),
        folder: folder.clone(),
        started_at,
        equivalent: verdict.equivalent(),
        exit_code,
        requests: &requests,
        runtimes: &records,
        verdict: &verdict,
    };
    let json = serde_json::to_string_pretty(&crate::results::versioned(&report))
        .unwrap_or_default()
        + "\n";
    let report_path = folder.join(REPORT_FILE);
    crate::results::write::run_dir::write_atomic(&report_path, json.as_bytes())?;
    let text = match options.format {
        VerifyFormat::Table => render::table(&verdict, &records, &requests),
        VerifyFormat::Json => json,
    };
    let _ = out.write_all(text.as_bytes());
    let _ = writeln!(err, "verify: report in {}", report_path.display());
    Ok(exit_code)
}
