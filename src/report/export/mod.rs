//! `runner export --format FORMAT RUN_DIR`: one run's figures in the
//! formats other tools read (docs/export.md, field by field): Bencher's
//! metric format, github-action-benchmark's two custom formats, Go's
//! benchmark text format (benchstat) and OpenMetrics text. Every format is
//! written from one [`Exported`] table, built from the run directory by the
//! report's own reader (`RunData`) and the verdict rules' grouping of
//! usable repeats (`stats::run_repeats`), with the interval adaptive
//! repeats and the report use (`stats::MeanInterval`): failed repeats are
//! left out, as everywhere else.
mod benchstat;
mod bmf;
mod github_action_benchmark;
mod openmetrics;

use std::path::Path;

use crate::report::error::ReportError;
use crate::results::RunData;
use crate::stats::findings::axis_parts;
use crate::stats::{LEVEL, MeanInterval, Metric, run_repeats};

/// What `--format` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Bencher Metric Format (JSON), for `bencher run --adapter json`.
    Bmf,
    /// github-action-benchmark `customBiggerIsBetter`: throughput.
    GithubActionBenchmarkBigger,
    /// github-action-benchmark `customSmallerIsBetter`: p50 and p99 latency.
    GithubActionBenchmarkSmaller,
    /// Go's benchmark text format, one line per repeat, for benchstat.
    Benchstat,
    /// OpenMetrics text exposition, for Prometheus' textfile collector or a pushgateway.
    Openmetrics,
}

/// One run, as every export reads it.
#[derive(Debug, Clone)]
pub struct Exported {
    pub experiment: String,
    pub run_id: String,
    pub started_at: String,
    pub spec_hash: String,
    pub hostname: String,
    pub cpu_model: String,
    pub kernel: String,
    pub runner_version: String,
    /// In the run's order.
    pub configs: Vec<ExportedConfig>,
}

/// One configuration with at least one usable repeat.
#[derive(Debug, Clone)]
pub struct ExportedConfig {
    pub config_id: String,
    pub runtime: String,
    /// `name=value` pairs in spec order.
    pub axes: Vec<(String, String)>,
    /// Per metric in [`Metric::ALL`] order.
    pub figures: [Figure; 3],
}

/// One metric of one configuration.
#[derive(Debug, Clone)]
pub struct Figure {
    /// Every usable repeat, in run order.
    pub repeats: Vec<f64>,
    /// The geometric mean of the repeats.
    pub mean: f64,
    /// Its 95% interval (`None` with a single repeat).
    pub interval: Option<(f64, f64)>,
}

impl Exported {
    /// Reads the run directory `dir`.
    pub fn load(dir: &Path) -> Result<Self, ReportError> {
        Ok(Self::of(&RunData::load(dir)?))
    }

    pub fn of(run: &RunData) -> Self {
        let configs = run_repeats(&run.measurements)
            .into_iter()
            .filter(|(_, c)| c.usable() > 0)
            .map(|(config_id, c)| ExportedConfig {
                figures: Metric::ALL.map(|m| Figure::of(c.of(m))),
                axes: axis_parts(&c.axes)
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                runtime: c.runtime,
                config_id,
            })
            .collect();
        let host = &run.environment.host;
        Exported {
            experiment: run.status.experiment.clone(),
            run_id: run.status.run_id.clone(),
            started_at: run.status.started_at.clone(),
            spec_hash: run.status.spec_hash.clone(),
            hostname: host.hostname.clone(),
            cpu_model: host.cpu_model.clone(),
            kernel: host.kernel.clone(),
            runner_version: run.environment.runner_version.clone(),
            configs,
        }
    }
}

impl ExportedConfig {
    pub fn figure(&self, metric: Metric) -> &Figure {
        &self.figures[metric as usize]
    }
}

impl Figure {
    fn of(values: &[f64]) -> Self {
        let geometric = || (values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp();
        match MeanInterval::of(values, LEVEL) {
            Some(i) => Figure {
                repeats: values.to_vec(),
                mean: i.mean,
                interval: Some((i.mean / (1.0 + i.half_width), i.mean * (1.0 + i.half_width))),
            },
            None => Figure {
                repeats: values.to_vec(),
                mean: geometric(),
                interval: None,
            },
        }
    }
}

/// The text of `format` for the run directory `dir`.
pub fn export(dir: &Path, format: ExportFormat) -> Result<String, ReportError> {
    let run = Exported::load(dir)?;
    Ok(match format {
        ExportFormat::Bmf => bmf::render(&run),
        ExportFormat::GithubActionBenchmarkBigger => github_action_benchmark::bigger(&run),
        ExportFormat::GithubActionBenchmarkSmaller => github_action_benchmark::smaller(&run),
        ExportFormat::Benchstat => benchstat::render(&run),
        ExportFormat::Openmetrics => openmetrics::render(&run),
    })
}

/// `runner export`: the text on stdout, or written to `output`.
pub fn export_command(
    dir: &Path,
    format: ExportFormat,
    output: Option<&Path>,
    out: &mut dyn std::io::Write,
) -> Result<(), ReportError> {
    let text = export(dir, format)?;
    match output {
        Some(path) => std::fs::write(path, text).map_err(|source| ReportError::CiOutput {
            path: path.to_path_buf(),
            what: "export (--output)",
            source,
        }),
        None => out
            .write_all(text.as_bytes())
            .map_err(|source| ReportError::CiOutput {
                path: "<stdout>".into(),
                what: "export",
                source,
            }),
    }
}
