//! The `validate`, `plan` and `schema` subcommands, writing to the given
//! streams (the CLI passes stdout/stderr; tests can pass buffers). They
//! live in the plan stage, not in spec, because validating a spec means
//! planning it (every template of every cell rendered): spec stays below plan.
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::plan::{self, PlanOptions, analysis::design, present::show};
use crate::spec::{self, SpecErrors, model::Spec};

/// Exit status when a spec has problems (0 = fine).
pub const EXIT_PROBLEMS: u8 = 2;

/// `runner validate SPEC...`: checks each spec fully (parsing, checks, every
/// template of every cell); prints every problem. Returns the exit status.
pub fn validate(paths: &[PathBuf], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let mut status = 0;
    for path in paths {
        match spec::load(path).and_then(|loaded| plan::build(&loaded, &PlanOptions::default())) {
            Ok(plan) => {
                let _ = writeln!(
                    out,
                    "ok: {} ({} runtimes, {} cells)",
                    path.display(),
                    plan.runtimes.len(),
                    plan.cells.len()
                );
            }
            Err(errors) => {
                report(path, &errors, err);
                status = EXIT_PROBLEMS;
            }
        }
    }
    status
}

/// Output format of `runner plan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PlanFormat {
    Table,
    Json,
}

/// `runner plan SPEC`: prints the runtimes, cells, count and wall-time
/// estimate, and what the design can detect given the noise of the last
/// comparable run on this host (or that there is none yet).
pub fn plan(
    path: &Path,
    options: &PlanOptions,
    format: PlanFormat,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    match spec::load(path).and_then(|loaded| plan::build(&loaded, options)) {
        Ok(plan) => {
            let host = crate::results::environment::host_info().fingerprint();
            let detectability = design::assess(&plan, &host);
            let text = match format {
                PlanFormat::Table => show::table(&plan, &detectability),
                PlanFormat::Json => show::json(&plan, &detectability) + "\n",
            };
            let _ = out.write_all(text.as_bytes());
            0
        }
        Err(errors) => {
            report(path, &errors, err);
            EXIT_PROBLEMS
        }
    }
}

/// `runner schema`: the JSON Schema of the spec, for editors. Draft-07,
/// the version YAML language servers support best.
pub fn schema(out: &mut dyn Write) -> u8 {
    let schema = schemars::generate::SchemaSettings::draft07()
        .into_generator()
        .into_root_schema_for::<Spec>();
    let _ = writeln!(
        out,
        "{}",
        serde_json::to_string_pretty(&schema).unwrap_or_default()
    );
    0
}

fn report(path: &std::path::Path, errors: &SpecErrors, err: &mut dyn Write) {
    let n = errors.problems.len();
    let _ = writeln!(err, "{errors}\n");
    let _ = writeln!(
        err,
        "{}: {n} problem{} found",
        path.display(),
        if n == 1 { "" } else { "s" }
    );
}
