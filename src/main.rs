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
enum Command {}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {}
}
