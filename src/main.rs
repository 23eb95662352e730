//! The `runner` CLI: the only place that uses anyhow and prints.
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
    /// Apply HTTP/1.1 load to a URL and report throughput, errors and latency.
    Load(runner::load::cli::LoadArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: anyhow::Result<()> = match cli.command {
        Command::Load(args) => runner::load::cli::run(args).map_err(anyhow::Error::from),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
