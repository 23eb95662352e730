//! `runner compare RUN_A RUN_B`: per-configuration change of throughput and
//! p99 latency, each with a significance verdict, for scheduled reruns that
//! must alert on regressions.
//!
//! Significance (documented in docs/templates.md): a two-sided Mann-Whitney U
//! test over the per-second samples of all usable repeats (timelines/), alpha
//! 0.01, AND the two runs' min-max ranges over repeats must not overlap.
//! Per-second samples are autocorrelated, so the U test alone would overstate
//! significance; the repeat-range condition keeps one unlucky repeat from
//! being called a change. See `judge` for the rule, `markdown` for the table.
use std::collections::BTreeSet;
use std::path::Path;

use indexmap::IndexMap;
use serde::Serialize;

mod judge;
mod markdown;

pub use judge::{Judged, SampleKind, Verdict};
pub use markdown::markdown;

use super::error::ReportError;
use super::run_data::RunData;
use super::summary::{CellSummary, summarize_cells};
use judge::{Metric, config_samples, judge};

/// Significance level of the U test.
pub const ALPHA: f64 = 0.01;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompareFormat {
    Md,
    Json,
}

#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// Relative throughput change (0.05 = 5%) below which a significant change is not flagged.
    pub threshold: f64,
    /// The same for p99 latency (per-second p99 is noisier than throughput).
    pub latency_threshold: f64,
    /// Compare even when the runs are not comparable (with a loud warning).
    pub force: bool,
    pub format: CompareFormat,
}

/// What the CLI prints and how it exits.
#[derive(Debug, Clone)]
pub struct CompareOutcome {
    /// The comparison, in the requested format.
    pub output: String,
    /// Printed on stderr: the not-comparable warning when forced.
    pub warnings: Vec<String>,
    /// 1 when a significant regression beyond the threshold was found, else 0.
    pub exit_code: u8,
}

/// One configuration matched in both runs.
#[derive(Debug, Clone, Serialize)]
pub struct CellChange {
    pub config_id: String,
    pub runtime: String,
    pub axes: String,
    /// Samples used per side (per-second, or per-repeat without timelines).
    pub a_samples: usize,
    pub b_samples: usize,
    /// `second` (timelines) or `repeat` (fallback).
    pub sample_kind: SampleKind,
    /// Successful requests per second (higher is better).
    pub throughput: Judged,
    /// 99th percentile latency in ms (lower is better).
    pub p99: Judged,
}

impl CellChange {
    fn regressed(&self) -> bool {
        self.throughput.verdict.is_regression() || self.p99.verdict.is_regression()
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct RunRef {
    pub dir: String,
    pub run_id: String,
    pub experiment: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub a: RunRef,
    pub b: RunRef,
    /// Throughput change (relative) a significant change must reach to be flagged.
    pub threshold: f64,
    /// The same for p99 latency.
    pub latency_threshold: f64,
    pub alpha: f64,
    /// What makes the runs not comparable (empty when comparable).
    pub differences: Vec<String>,
    pub forced: bool,
    pub cells: Vec<CellChange>,
    pub only_in_a: Vec<String>,
    pub only_in_b: Vec<String>,
    /// Configurations with any regression (throughput, p99, or failed in B).
    pub regressions: usize,
    pub throughput_regressions: usize,
    pub latency_regressions: usize,
    /// Throughput improvements.
    pub improvements: usize,
    pub latency_improvements: usize,
}

/// `5%`, `5` or `2.5%` -> 0.05 / 0.05 / 0.025.
pub fn parse_threshold(text: &str) -> Result<f64, ReportError> {
    let number = text.trim().trim_end_matches('%').trim();
    match number.parse::<f64>() {
        Ok(v) if (0.0..100.0).contains(&v) => Ok(v / 100.0),
        _ => Err(ReportError::Threshold {
            given: text.to_string(),
        }),
    }
}

/// The whole command: load, check comparability, compare, render.
pub fn compare_command(
    run_a: &Path,
    run_b: &Path,
    options: &CompareOptions,
) -> Result<CompareOutcome, ReportError> {
    let a = RunData::load(run_a)?;
    let b = RunData::load(run_b)?;
    let differences = differences(&a, &b);
    let mut warnings = Vec::new();
    if !differences.is_empty() {
        if !options.force {
            return Err(ReportError::NotComparable { differences });
        }
        warnings.push(format!(
            "WARNING: comparing runs that are NOT comparable (--force); changes below may come from these differences:\n{}",
            differences.iter().map(|d| format!("  - {d}")).collect::<Vec<_>>().join("\n")
        ));
    }
    let comparison = compare(&a, &b, options, differences)?;
    let output = match options.format {
        CompareFormat::Md => markdown(&comparison),
        CompareFormat::Json => {
            serde_json::to_string_pretty(&comparison).expect("plain data serializes") + "\n"
        }
    };
    Ok(CompareOutcome {
        output,
        warnings,
        exit_code: u8::from(comparison.regressions > 0),
    })
}

/// What differs between two runs' host fingerprint, toolchains and spec.
pub fn differences(a: &RunData, b: &RunData) -> Vec<String> {
    let mut out = Vec::new();
    let (fa, fb) = (
        a.environment.host.fingerprint(),
        b.environment.host.fingerprint(),
    );
    if fa != fb {
        out.push(format!("host fingerprint: {fa:?} vs {fb:?}"));
    }
    let tools: BTreeSet<&String> = a
        .environment
        .toolchains
        .keys()
        .chain(b.environment.toolchains.keys())
        .collect();
    for tool in tools {
        let (ta, tb) = (
            a.environment.toolchains.get(tool),
            b.environment.toolchains.get(tool),
        );
        if ta != tb {
            let show = |t: Option<&String>| t.map_or("(absent)".to_string(), |v| format!("{v:?}"));
            out.push(format!("toolchain {tool}: {} vs {}", show(ta), show(tb)));
        }
    }
    if a.status.spec_hash != b.status.spec_hash {
        out.push(format!(
            "spec hash (sha256 of spec.yaml): {} vs {}",
            a.status.spec_hash, b.status.spec_hash
        ));
    }
    if a.status.quick_factor != b.status.quick_factor {
        out.push(format!(
            "--quick factor: {:?} vs {:?} (durations differ)",
            a.status.quick_factor, b.status.quick_factor
        ));
    }
    out
}

fn compare(
    a: &RunData,
    b: &RunData,
    options: &CompareOptions,
    differences: Vec<String>,
) -> Result<Comparison, ReportError> {
    let sa: IndexMap<String, CellSummary> = summarize_cells(&a.measurements)
        .into_iter()
        .map(|c| (c.config_id.clone(), c))
        .collect();
    let sb: IndexMap<String, CellSummary> = summarize_cells(&b.measurements)
        .into_iter()
        .map(|c| (c.config_id.clone(), c))
        .collect();
    let mut cells = Vec::new();
    for (config_id, ca) in &sa {
        if sb.contains_key(config_id) {
            cells.push(compare_config(a, b, ca, options)?);
        }
    }
    let only = |x: &IndexMap<String, CellSummary>, y: &IndexMap<String, CellSummary>| {
        x.keys()
            .filter(|k| !y.contains_key(*k))
            .cloned()
            .collect::<Vec<_>>()
    };
    let count = |f: &dyn Fn(&CellChange) -> bool| cells.iter().filter(|c| f(c)).count();
    Ok(Comparison {
        a: run_ref(a),
        b: run_ref(b),
        threshold: options.threshold,
        latency_threshold: options.latency_threshold,
        alpha: ALPHA,
        differences,
        forced: options.force,
        regressions: count(&|c| c.regressed()),
        throughput_regressions: count(&|c| c.throughput.verdict.is_regression()),
        latency_regressions: count(&|c| c.p99.verdict.is_regression()),
        improvements: count(&|c| c.throughput.verdict == Verdict::Improvement),
        latency_improvements: count(&|c| c.p99.verdict == Verdict::Improvement),
        only_in_a: only(&sa, &sb),
        only_in_b: only(&sb, &sa),
        cells,
    })
}

fn run_ref(run: &RunData) -> RunRef {
    RunRef {
        dir: run.dir.display().to_string(),
        run_id: run.status.run_id.clone(),
        experiment: run.status.experiment.clone(),
    }
}

/// Both metrics of one configuration judged. Per-second samples are used
/// when both runs have timelines for it, else per-repeat values on both sides.
fn compare_config(
    a: &RunData,
    b: &RunData,
    summary: &CellSummary,
    options: &CompareOptions,
) -> Result<CellChange, ReportError> {
    let id = &summary.config_id;
    let (mut xa, mut xb) = (config_samples(a, id)?, config_samples(b, id)?);
    if xa.kind != xb.kind {
        (xa, xb) = (xa.per_repeat(), xb.per_repeat());
    }
    Ok(CellChange {
        config_id: id.clone(),
        runtime: summary.runtime.clone(),
        axes: summary.axes.clone(),
        a_samples: xa.throughput.samples.len(),
        b_samples: xb.throughput.samples.len(),
        sample_kind: xa.kind,
        throughput: judge(
            Metric::Throughput,
            xa.side(Metric::Throughput),
            xb.side(Metric::Throughput),
            options.threshold,
        ),
        p99: judge(
            Metric::P99,
            xa.side(Metric::P99),
            xb.side(Metric::P99),
            options.latency_threshold,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_parse_as_percentages() {
        assert_eq!(parse_threshold("5%").unwrap(), 0.05);
        assert_eq!(parse_threshold("2.5").unwrap(), 0.025);
        assert!(parse_threshold("abc").is_err());
        assert!(parse_threshold("150%").is_err());
        assert!(parse_threshold("-1%").is_err());
    }
}
