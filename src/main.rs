//! The `runner` CLI: clap parsing, printing and exit codes; every library
//! error already says what, where and what to do, so it is printed as is.
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
        #[command(flatten)]
        choices: PlanArgs,
        #[arg(long, value_enum, default_value = "table")]
        format: runner::plan::commands::PlanFormat,
    },
    /// Print the JSON Schema of the spec (for editors' YAML language servers).
    Schema,
    /// Re-render the summaries, charts and reports of a past run (runs nothing).
    Report {
        /// The run directory, e.g. results/<experiment>/<run-id>.
        run_dir: PathBuf,
        /// Templates to render (default: the spec's report.templates, else the built-in
        /// report.md.j2 and report.html.j2).
        #[arg(long, num_args = 1..)]
        templates: Vec<PathBuf>,
    },
    /// Compare two runs configuration by configuration (ratios with 95% intervals
    /// from the repeats, Holm across the matrix); exit 0 no regression, 1 a
    /// regression, 2 not comparable, 3 inconclusive (see docs/compare.md).
    Compare {
        /// The baseline run directory, then the run to judge against it. With
        /// `--baseline history`: one path, the experiment directory (or its newest run);
        /// with `--baseline control`: one run directory.
        #[arg(required = true, num_args = 1..=2, value_name = "RUN")]
        runs: Vec<PathBuf>,
        /// `history`: judge the newest run of an experiment against the last stable
        /// regime of each configuration that `runner history` finds. `control`: judge
        /// a run's candidates against the controls measured beside them (`controls:`).
        #[arg(long, value_enum)]
        baseline: Option<Baseline>,
        /// Smallest relative throughput change that is flagged, e.g. 5%.
        #[arg(long, default_value = "5%", value_parser = parse_threshold)]
        threshold: f64,
        /// Smallest relative p99 latency change that is flagged (p99 is noisier
        /// than throughput, hence the larger default); `off`: p99 is reported,
        /// not judged.
        #[arg(long, default_value = "10%", value_parser = parse_latency_threshold)]
        latency_threshold: LatencyThreshold,
        /// How much a run's throughput may move as a whole between runs of an
        /// unchanged system (relative SD), used when the baseline's experiment
        /// has fewer than 3 comparable runs to estimate it from.
        #[arg(long, default_value = "5%", value_parser = parse_threshold)]
        run_noise: f64,
        /// The same for p99 latency.
        #[arg(long, default_value = "12%", value_parser = parse_threshold)]
        latency_run_noise: f64,
        /// Output: a Markdown table, or JSON for scripts.
        #[arg(long, value_enum, default_value = "md")]
        format: runner::report::CompareFormat,
        /// Compare even when host, toolchains or spec differ (with a loud warning).
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        ci: CiArgs,
        #[command(flatten)]
        store: StoreArg,
    },
    /// Trend of every configuration over an experiment's comparable runs, with
    /// change points; writes history.md and history.html. Exit 0: the newest run
    /// opens no worse regime; 1: it does (see docs/history.md); 2: unusable input.
    History {
        /// The experiment directory, results/<experiment>/ (one directory per run);
        /// with --store, the experiment's name (or that directory).
        experiment_dir: PathBuf,
        #[command(flatten)]
        store: StoreArg,
        /// With --store: `all` puts every host's series side by side (each host
        /// judged on its own runs) instead of the newest run's host alone.
        #[arg(long, value_enum, requires = "store")]
        hosts: Option<Hosts>,
        /// Smallest relative throughput change reported or judged a regression, e.g. 5%.
        #[arg(long, default_value = "5%", value_parser = parse_threshold)]
        threshold: f64,
        /// The same for p99 latency.
        #[arg(long, default_value = "10%", value_parser = parse_threshold)]
        latency_threshold: f64,
        /// Fewest runs a regime may have (a change point needs this many runs after it).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(2..))]
        min_segment: u16,
        /// Shuffles per permutation test.
        #[arg(long, default_value_t = 199, value_parser = clap::value_parser!(u32).range(19..))]
        permutations: u32,
        /// Run-level throughput noise (relative SD) assumed while fewer than 3
        /// comparable runs allow estimating it, as in `runner compare`.
        #[arg(long, default_value = "5%", value_parser = parse_threshold)]
        run_noise: f64,
        /// The same for p99 latency.
        #[arg(long, default_value = "12%", value_parser = parse_threshold)]
        latency_run_noise: f64,
        /// Output on stdout: history.md's text, or JSON for scripts.
        #[arg(long, value_enum, default_value = "md")]
        format: runner::report::history::HistoryFormat,
        /// Write history.md and history.html here instead of the experiment directory.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        #[command(flatten)]
        ci: CiArgs,
    },
    /// Write one run's figures for another tool: Bencher (bmf), github-action-benchmark
    /// (its bigger- and smaller-is-better files), benchstat, OpenMetrics (docs/export.md).
    Export {
        /// The run directory, e.g. results/<experiment>/<run-id>.
        run_dir: PathBuf,
        #[arg(long, value_enum)]
        format: runner::report::export::ExportFormat,
        /// Write here instead of stdout.
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Check that the runtimes answer the spec's `verify` requests identically:
    /// exit 0 when equivalent, 1 on any difference, 2 on spec/preflight errors.
    Verify {
        /// Spec file (YAML) with a `verify:` list.
        spec: PathBuf,
        /// Keep only KEY (usually `runtime`) in VALUE[,VALUE]; repeatable.
        #[arg(long, value_name = "KEY=VALUE[,VALUE]")]
        only: Vec<String>,
        #[arg(long, value_enum, default_value = "table")]
        format: runner::verify::VerifyFormat,
        /// Do not fail because a runtime was skipped for a missing toolchain.
        #[arg(long)]
        allow_skipped: bool,
    },
    /// Apply HTTP load (HTTP/1.1, over TLS, or HTTP/2) to a URL and report throughput, errors and latency.
    Load(Box<runner::load::cli::LoadArgs>),
    /// The far end of an SSH session from another runner (JSON lines on
    /// stdin/stdout, docs/hosts.md); ends, with all it started, when stdin closes.
    #[command(hide = true)]
    Remote,
    /// Build, train and measure every cell of a spec, one service at a time,
    /// recording everything under results/<experiment>/<run-id>/.
    Exec {
        /// Spec file (YAML); the quickstart experiment when left out.
        #[arg(default_value = "experiments/quickstart.yaml")]
        spec: PathBuf,
        /// Continue an interrupted run: skip the cells it already recorded.
        #[arg(long, value_name = "RUN_DIR")]
        resume: Option<PathBuf>,
        /// With --resume: continue even though the spec changed since the run started.
        #[arg(long, requires = "resume")]
        force: bool,
        /// What the run measured, recorded in environment.json: a commit, a
        /// branch, a ticket (`--label commit=$(git rev-parse HEAD)`); repeatable.
        #[arg(long = "label", value_name = "KEY=VALUE", value_parser = runner::results::provenance::parse_label)]
        labels: Vec<(String, String)>,
        #[command(flatten)]
        choices: PlanArgs,
        #[command(flatten)]
        store: StoreArg,
    },
    /// Tonight's run of a spec, exactly as `runner exec`, then judged: against the
    /// controls measured in it when the spec names `controls:` (`runner compare
    /// --baseline control`), else against the earlier runs of the experiment
    /// directory it was written to (`runner compare --baseline history`); writes
    /// verdict.json and verdict.md into the run. Exit 0 no regression (the only 0), 1 regression, 2 not comparable
    /// (host, toolchain or spec changed), 3 could not tell, 4 no history yet, 5 the
    /// run failed or is incomplete, 6 no run started, 7 could not judge, 130
    /// interrupted (docs/compare.md).
    Nightly {
        /// Spec file (YAML).
        spec: PathBuf,
        /// What the run measured, recorded in environment.json (as `runner exec`).
        #[arg(long = "label", value_name = "KEY=VALUE", value_parser = runner::results::provenance::parse_label)]
        labels: Vec<(String, String)>,
        #[command(flatten)]
        choices: PlanArgs,
        #[command(flatten)]
        store: StoreArg,
    },
    /// The results store (docs/store.md).
    #[command(subcommand)]
    Store(StoreCommand),
}

// ---- the results store (docs/store.md): `--store`, `--hosts`, `runner store` ----

/// `--store URL` or RUNNER_STORE: where runs are indexed and history is read.
#[derive(clap::Args)]
struct StoreArg {
    /// Results store: `sqlite:PATH` or `postgres://user:password@host:port/db`
    /// (docs/store.md); the password is never printed.
    #[arg(long = "store", value_name = "URL", env = runner::store::STORE_ENV, hide_env_values = true)]
    store: Option<String>,
}

/// What `runner exec` and `runner nightly` run, from their shared
/// arguments (`resume`: exec's `--resume` and `--force`); a bad store URL is
/// printed and exits 2.
fn exec_options(
    spec: PathBuf,
    (resume, force): (Option<PathBuf>, bool),
    labels: Vec<(String, String)>,
    choices: PlanArgs,
    store: &StoreArg,
) -> Result<runner::app::ExecOptions, ExitCode> {
    Ok(runner::app::ExecOptions {
        spec,
        resume,
        force,
        plan: choices.options(),
        labels: labels.into_iter().collect(),
        store: store.parse()?,
    })
}

impl StoreArg {
    /// The parsed URL; a bad one is printed (masked) and exits 2.
    fn parse(&self) -> Result<Option<runner::store::StoreUrl>, ExitCode> {
        self.store
            .as_deref()
            .map(runner::store::StoreUrl::parse)
            .transpose()
            .map_err(|e| {
                eprintln!("error: {e}");
                ExitCode::from(2)
            })
    }
}

#[derive(Subcommand)]
enum StoreCommand {
    /// Index existing run directories (a run, an experiment folder or a results
    /// root); importing again replaces, never duplicates.
    Import {
        /// `sqlite:PATH` or `postgres://…`.
        url: String,
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Hosts {
    /// Every host's series side by side.
    All,
}

/// Where runs still marked as not indexed are looked for by history and
/// compare: the working directory's results/ (a CI workspace's).
fn catch_up_roots() -> Vec<PathBuf> {
    vec![PathBuf::from("results")]
}

fn store_command(
    command: StoreCommand,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> ExitCode {
    let StoreCommand::Import { url, dirs } = command;
    match runner::store::StoreUrl::parse(&url) {
        Ok(url) => ExitCode::from(runner::app::store::import_command(&url, &dirs, out, err)),
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            ExitCode::from(2)
        }
    }
}

// ---- end of the results store's part ----

/// What `plan` and `exec` both take from the command line: which cells, how
/// long and how many times (one definition, so `runner plan` shows exactly
/// what `runner exec` with the same options runs).
#[derive(clap::Args)]
struct PlanArgs {
    /// Smoke run: divide every warmup and duration by FACTOR (10 when given
    /// alone); the factor only as `--quick=FACTOR`, so `--quick` may stand
    /// before or after the spec.
    #[arg(long, value_name = "FACTOR", num_args = 0..=1, require_equals = true, default_missing_value = "10")]
    quick: Option<u32>,
    /// Smoke run: at most N repeats of every configuration, cold start and
    /// memory phase (never more than the spec asks).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    repeats: Option<u32>,
    /// Keep only cells with KEY (`runtime` or an axis) in VALUE[,VALUE]; repeatable.
    #[arg(long, value_name = "KEY=VALUE[,VALUE]")]
    only: Vec<String>,
}

/// What a CI shows, on every command that gives a verdict (docs/guides/ci.md);
/// the GitHub step summary needs no flag: `$GITHUB_STEP_SUMMARY` names it.
#[derive(clap::Args)]
struct CiArgs {
    /// Also write the verdicts as JUnit XML to FILE: a test case per configuration
    /// and metric; a regression fails, "could not tell" is skipped with its reason.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
}

impl CiArgs {
    fn outputs(self) -> runner::report::ci::CiOutputs {
        runner::report::ci::CiOutputs::from_env(self.junit)
    }
}

impl PlanArgs {
    fn options(self) -> runner::plan::PlanOptions {
        runner::plan::PlanOptions {
            only: self.only,
            quick: self.quick,
            repeats: self.repeats,
        }
    }
}

fn parse_threshold(text: &str) -> Result<f64, String> {
    runner::report::parse_threshold(text).map_err(|e| e.to_string())
}

/// `--latency-threshold`: a percentage or `off`. A type of its own, because
/// clap reads an `Option<f64>` field as "the flag may be absent".
#[derive(Debug, Clone, Copy)]
struct LatencyThreshold(Option<f64>);

fn parse_latency_threshold(text: &str) -> Result<LatencyThreshold, String> {
    runner::report::parse_latency_threshold(text)
        .map(LatencyThreshold)
        .map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    match cli.command {
        Command::Validate { specs } => {
            ExitCode::from(runner::plan::commands::validate(&specs, &mut out, &mut err))
        }
        Command::Plan {
            spec,
            choices,
            format,
        } => ExitCode::from(runner::plan::commands::plan(
            &spec,
            &choices.options(),
            format,
            &mut out,
            &mut err,
        )),
        Command::Schema => ExitCode::from(runner::plan::commands::schema(&mut out)),
        Command::Report { run_dir, templates } => report(&run_dir, &templates),
        Command::Compare {
            runs,
            baseline,
            threshold,
            latency_threshold,
            run_noise,
            latency_run_noise,
            format,
            force,
            ci,
            store,
        } => compare(
            &runs,
            baseline,
            &store,
            runner::report::CompareOptions {
                threshold,
                latency_threshold: latency_threshold.0,
                run_noise: runner::stats::Floor {
                    throughput: run_noise,
                    p99: latency_run_noise,
                },
                force,
                format,
                ci: ci.outputs(),
            },
        ),
        Command::History {
            experiment_dir,
            store,
            hosts,
            threshold,
            latency_threshold,
            min_segment,
            permutations,
            run_noise,
            latency_run_noise,
            format,
            out,
            ci,
        } => history(
            &experiment_dir,
            &store,
            hosts,
            &runner::report::history::HistoryOptions {
                settings: runner::report::history::HistorySettings {
                    threshold,
                    latency_threshold,
                    min_segment: usize::from(min_segment),
                    permutations,
                    run_noise: runner::stats::Floor {
                        throughput: run_noise,
                        p99: latency_run_noise,
                    },
                    ..Default::default()
                },
                format,
                out,
                ci: ci.outputs(),
            },
        ),
        Command::Export {
            run_dir,
            format,
            output,
        } => match runner::report::export::export_command(
            &run_dir,
            format,
            output.as_deref(),
            &mut out,
        ) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
        Command::Verify {
            spec,
            only,
            format,
            allow_skipped,
        } => ExitCode::from(runner::verify::verify_command(
            &spec,
            &runner::verify::VerifyOptions {
                only,
                format,
                allow_skipped,
            },
            &mut out,
            &mut err,
        )),
        Command::Remote => match runner::remote::serve() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: runner remote: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Load(args) => match runner::load::cli::run(*args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(e.exit_code())
            }
        },
        Command::Exec {
            spec,
            resume,
            force,
            labels,
            choices,
            store,
        } => match exec_options(spec, (resume, force), labels, choices, &store) {
            Ok(options) => ExitCode::from(runner::app::exec_command(&options, &mut err)),
            Err(code) => code,
        },
        Command::Nightly {
            spec,
            labels,
            choices,
            store,
        } => match exec_options(spec, (None, false), labels, choices, &store) {
            Ok(options) => ExitCode::from(runner::app::nightly_command(&options, &mut err)),
            Err(code) => code,
        },
        Command::Store(command) => store_command(command, &mut out, &mut err),
    }
}

fn report(run_dir: &std::path::Path, templates: &[PathBuf]) -> ExitCode {
    match runner::report::report_command(run_dir, templates) {
        Ok(rendered) => {
            for file in &rendered.files {
                println!("wrote {}", file.display());
            }
            if rendered.failed_rows + rendered.suspect_rows > 0 {
                eprintln!(
                    "note: {} failed and {} suspect measurement row(s), listed in the report",
                    rendered.failed_rows, rendered.suspect_rows
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// What `runner compare` judges the run against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Baseline {
    /// The last stable regime of the experiment's history.
    History,
    /// The run's own controls (`controls:` in its spec): each candidate
    /// against the control measured beside it in the same run.
    Control,
}

fn compare(
    runs: &[PathBuf],
    baseline: Option<Baseline>,
    store: &StoreArg,
    options: runner::report::CompareOptions,
) -> ExitCode {
    let store = match store.parse() {
        Ok(store) => store,
        Err(code) => return code,
    };
    let result = match (baseline, runs) {
        (Some(Baseline::History), [path]) => match &store {
            Some(url) => runner::report::compare_history_store_command(
                url,
                path,
                &options,
                &catch_up_roots(),
            ),
            None => runner::report::compare_history_command(path, &options),
        },
        (Some(Baseline::Control), [run]) => runner::report::compare_control_command(run, &options),
        (None, [run_a, run_b]) => runner::report::compare_command(run_a, run_b, &options),
        (Some(Baseline::Control), _) => {
            eprintln!(
                "error: `--baseline control` takes one path, a run directory whose spec names                  `controls:`"
            );
            return ExitCode::from(2);
        }
        (Some(Baseline::History), _) => {
            eprintln!(
                "error: `--baseline history` takes one path, the experiment directory \
                 (results/<experiment>/) or its newest run"
            );
            return ExitCode::from(2);
        }
        (None, _) => {
            eprintln!(
                "error: compare needs two run directories, the baseline then the run to judge \
                 (or `--baseline history` and one experiment directory)"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(outcome) => {
            for w in &outcome.warnings {
                eprintln!("{w}");
            }
            print!("{}", outcome.output);
            ExitCode::from(outcome.exit_code)
        }
        // Not comparable, or unreadable: 2, never 1 (which means "regression").
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn history(
    experiment_dir: &std::path::Path,
    store: &StoreArg,
    hosts: Option<Hosts>,
    options: &runner::report::history::HistoryOptions,
) -> ExitCode {
    use runner::report::history::{RunSource, history_command, hosts as by_host};
    let result = match store.parse() {
        Err(code) => return code,
        Ok(None) => history_command(&RunSource::Folder(experiment_dir.to_path_buf()), options),
        Ok(Some(url)) => {
            let experiment = by_host::experiment_name(experiment_dir);
            by_host::stored_sources(&url, &experiment, &catch_up_roots()).and_then(
                |(sources, messages)| {
                    for m in messages {
                        eprintln!("{m}");
                    }
                    match (hosts, sources.first()) {
                        (_, None) => Err(by_host::not_in_store(&url, &experiment)),
                        (Some(Hosts::All), _) => by_host::across_hosts_command(&sources, options),
                        (None, Some(newest_host)) => history_command(newest_host, options),
                    }
                },
            )
        }
    };
    match result {
        Ok(outcome) => {
            for w in &outcome.warnings {
                eprintln!("{w}");
            }
            for file in &outcome.files {
                eprintln!("wrote {}", file.display());
            }
            print!("{}", outcome.output);
            ExitCode::from(outcome.exit_code)
        }
        // No runs, or unreadable: 2, never 1 (which means "regression").
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
