//! The `runner` CLI: the only place that uses anyhow and prints.
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Declarative experiment runner for HTTP service benchmarks.
#[derive(Parser)]
#[command(name = "runner", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check specs: every problem is printed; exit 0 when all are fine, 2 otherwise.
    Validate {
        /// Spec files (YAML).
        #[arg(required = true)]
        specs: Vec<PathBuf>,
    },
    /// Show what a spec will run: runtimes, cells, count and estimated wall time.
    Plan {
        /// Spec file (YAML).
        spec: PathBuf,
        /// Keep only cells with KEY (`runtime` or an axis) in VALUE[,VALUE]; repeatable.
        #[arg(long, value_name = "KEY=VALUE[,VALUE]")]
        only: Vec<String>,
        /// Divide every warmup and duration by this factor.
        #[arg(long, value_name = "FACTOR")]
        quick: Option<u32>,
        #[arg(long, value_enum, default_value = "table")]
        format: runner::spec::commands::PlanFormat,
    },
    /// Print the JSON Schema of the spec (for editors' YAML language servers).
    Schema,
    /// Apply HTTP/1.1 load to a URL and report throughput, errors and latency.
    Load(runner::load::cli::LoadArgs),
    /// Build, train and measure every cell of a spec, one service at a time,
    /// recording everything under results/<experiment>/<run-id>/.
    Exec {
        /// Spec file (YAML).
        spec: PathBuf,
        /// Continue an interrupted run: skip the cells it already recorded.
        #[arg(long, value_name = "RUN_DIR")]
        resume: Option<PathBuf>,
        /// With --resume: continue even though the spec changed since the run started.
        #[arg(long, requires = "resume")]
        force: bool,
        /// Smoke run: divide every warmup and duration by FACTOR (10 when given alone).
        #[arg(long, value_name = "FACTOR", num_args = 0..=1, default_missing_value = "10")]
        quick: Option<u32>,
        /// Keep only cells with KEY (`runtime` or an axis) in VALUE[,VALUE]; repeatable.
        #[arg(long, value_name = "KEY=VALUE[,VALUE]")]
        only: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    let status = match cli.command {
        Command::Validate { specs } => runner::spec::commands::validate(&specs, &mut out, &mut err),
        Command::Plan {
            spec,
            only,
            quick,
            format,
        } => runner::spec::commands::plan(
            &spec,
            &runner::plan::PlanOptions { only, quick },
            format,
            &mut out,
            &mut err,
        ),
        Command::Schema => runner::spec::commands::schema(&mut out),
        Command::Load(args) => match runner::load::cli::run(args).map_err(anyhow::Error::from) {
            Ok(()) => 0,
            Err(e) => {
                let _ = writeln!(err, "error: {e:#}");
                1
            }
        },
        Command::Exec {
            spec,
            resume,
            force,
            quick,
            only,
        } => runner::exec::exec_command(
            &runner::exec::ExecOptions {
                spec,
                resume,
                force,
                quick,
                only,
            },
            &mut err,
        ),
    };
    ExitCode::from(status)
}
