//! `runner compare RUN_A RUN_B`: per-configuration throughput change with a
//! significance verdict, for scheduled reruns that must alert on regressions.
//!
//! Significance (documented in docs/templates.md): a two-sided Mann-Whitney U
//! test over the per-second throughput samples of all usable repeats
//! (timelines/), alpha 0.01, AND the two runs' min-max ranges of repeat
//! throughput must not overlap. Per-second samples are autocorrelated, so the
//! U test alone would overstate significance; the repeat-range condition keeps
//! one unlucky repeat from being called a change.
use std::collections::BTreeSet;
use std::path::Path;

use indexmap::IndexMap;
use serde::Serialize;

use super::error::ReportError;
use super::format;
use super::run_data::RunData;
use super::stats::{Spread, mann_whitney};
use super::summary::{CellSummary, summarize_cells};
use crate::results::model::MeasurementRow;

/// Significance level of the U test.
pub const ALPHA: f64 = 0.01;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompareFormat {
    Md,
    Json,
}

#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// Relative change (0.05 = 5%) below which a significant change is not flagged.
    pub threshold: f64,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Significant and slower by more than the threshold.
    Regression,
    /// Every repeat failed in B where A had usable ones: counted as a regression.
    Failed,
    /// Significant and faster by more than the threshold.
    Improvement,
    /// Significant, but smaller than the threshold.
    BelowThreshold,
    /// Not significant: inside the noise.
    WithinNoise,
    /// Too few samples to test, or every repeat failed on one side.
    Insufficient,
}

impl Verdict {
    fn label(self) -> &'static str {
        match self {
            Verdict::Regression => "REGRESSION",
            Verdict::Failed => "FAILED in B",
            Verdict::Improvement => "improvement",
            Verdict::BelowThreshold => "below threshold",
            Verdict::WithinNoise => "within noise",
            Verdict::Insufficient => "insufficient data",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct CellChange {
    pub config_id: String,
    pub runtime: String,
    pub axes: String,
    pub a_rps_median: Option<f64>,
    pub b_rps_median: Option<f64>,
    /// `b / a - 1` of the median throughputs.
    pub change: Option<f64>,
    pub a_p99_ms: Option<f64>,
    pub b_p99_ms: Option<f64>,
    /// Samples used per side (per-second, or per-repeat without timelines).
    pub a_samples: usize,
    pub b_samples: usize,
    /// `second` (timelines) or `repeat` (fallback).
    pub sample_kind: &'static str,
    pub p_value: Option<f64>,
    pub ranges_overlap: Option<bool>,
    pub verdict: Verdict,
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
    pub threshold: f64,
    pub alpha: f64,
    /// What makes the runs not comparable (empty when comparable).
    pub differences: Vec<String>,
    pub forced: bool,
    pub cells: Vec<CellChange>,
    pub only_in_a: Vec<String>,
    pub only_in_b: Vec<String>,
    /// Regressions plus configurations that failed entirely in B.
    pub regressions: usize,
    pub improvements: usize,
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
    let comparison = compare(&a, &b, options.threshold, differences, options.force)?;
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
    threshold: f64,
    differences: Vec<String>,
    forced: bool,
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
        let Some(cb) = sb.get(config_id) else {
            continue;
        };
        cells.push(compare_cell(a, b, ca, cb, threshold)?);
    }
    let only = |x: &IndexMap<String, CellSummary>, y: &IndexMap<String, CellSummary>| {
        x.keys()
            .filter(|k| !y.contains_key(*k))
            .cloned()
            .collect::<Vec<_>>()
    };
    Ok(Comparison {
        a: run_ref(a),
        b: run_ref(b),
        threshold,
        alpha: ALPHA,
        differences,
        forced,
        regressions: cells
            .iter()
            .filter(|c| matches!(c.verdict, Verdict::Regression | Verdict::Failed))
            .count(),
        improvements: cells
            .iter()
            .filter(|c| c.verdict == Verdict::Improvement)
            .count(),
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

/// Throughput samples of one configuration: per-second successful requests
/// from every usable repeat's timeline, or the repeats' throughputs when any
/// timeline is missing.
fn samples(run: &RunData, config_id: &str) -> Result<(Vec<f64>, &'static str), ReportError> {
    let repeats: Vec<&MeasurementRow> = run
        .measurements
        .iter()
        .filter(|m| m.config_id == config_id && m.status != "failed")
        .collect();
    let mut per_second = Vec::new();
    for m in &repeats {
        match run.timeline(&m.cell_id)? {
            Some(rows) if !rows.is_empty() => per_second.extend(
                rows.iter()
                    .map(|r| r.requests.saturating_sub(r.errors) as f64),
            ),
            _ => return Ok((repeats.iter().map(|m| m.throughput_rps).collect(), "repeat")),
        }
    }
    Ok((per_second, "second"))
}

fn compare_cell(
    a: &RunData,
    b: &RunData,
    ca: &CellSummary,
    cb: &CellSummary,
    threshold: f64,
) -> Result<CellChange, ReportError> {
    let (xa, kind_a) = samples(a, &ca.config_id)?;
    let (xb, kind_b) = samples(b, &cb.config_id)?;
    let sample_kind = if kind_a == "second" && kind_b == "second" {
        "second"
    } else {
        "repeat"
    };
    let (xa, xb) = if sample_kind == "repeat" && kind_a != kind_b {
        // Mixed: fall back to per-repeat throughput on both sides.
        (repeat_rps(a, &ca.config_id), repeat_rps(b, &cb.config_id))
    } else {
        (xa, xb)
    };
    let change = match (ca.rps_median, cb.rps_median) {
        (Some(ma), Some(mb)) if ma > 0.0 => Some(mb / ma - 1.0),
        _ => None,
    };
    let ranges_overlap = match (ca.spread(), cb.spread()) {
        (Some(ra), Some(rb)) => Some(Spread::overlaps(&ra, &rb)),
        _ => None,
    };
    let test = mann_whitney(&xa, &xb);
    let verdict = match (change, test, ranges_overlap) {
        _ if ca.rps_median.is_some() && cb.rps_median.is_none() => Verdict::Failed,
        (Some(change), Some(t), Some(overlap)) if xa.len() >= 4 && xb.len() >= 4 => {
            if t.p >= ALPHA || overlap {
                Verdict::WithinNoise
            } else if change <= -threshold {
                Verdict::Regression
            } else if change >= threshold {
                Verdict::Improvement
            } else {
                Verdict::BelowThreshold
            }
        }
        _ => Verdict::Insufficient,
    };
    Ok(CellChange {
        config_id: ca.config_id.clone(),
        runtime: ca.runtime.clone(),
        axes: ca.axes.clone(),
        a_rps_median: ca.rps_median,
        b_rps_median: cb.rps_median,
        change,
        a_p99_ms: ca.p99_ms,
        b_p99_ms: cb.p99_ms,
        a_samples: xa.len(),
        b_samples: xb.len(),
        sample_kind,
        p_value: test.map(|t| (t.p * 1e6).round() / 1e6),
        ranges_overlap,
        verdict,
    })
}

fn repeat_rps(run: &RunData, config_id: &str) -> Vec<f64> {
    run.measurements
        .iter()
        .filter(|m| m.config_id == config_id && m.status != "failed")
        .map(|m| m.throughput_rps)
        .collect()
}

fn opt(v: Option<f64>, f: fn(f64) -> String) -> String {
    v.map_or_else(|| format::MISSING.to_string(), f)
}

/// The Markdown rendering: verdict first, then every matched configuration.
pub fn markdown(c: &Comparison) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "# Comparison: {} -> {}\n\nA: `{}` (run {})  \nB: `{}` (run {})\n\n",
        c.a.run_id, c.b.run_id, c.a.dir, c.a.run_id, c.b.dir, c.b.run_id
    ));
    if !c.differences.is_empty() {
        out.push_str(
            "> **WARNING: these runs are not comparable** (compared anyway with --force):\n",
        );
        for d in &c.differences {
            out.push_str(&format!("> - {d}\n"));
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "**Verdict: {} significant regression(s), {} improvement(s)** beyond the {} threshold, over {} matched configurations.\n\n",
        c.regressions,
        c.improvements,
        format::pct(c.threshold, 1, false),
        c.cells.len()
    ));
    out.push_str(&format!(
        "A change is significant when a two-sided Mann-Whitney U test over per-second throughput samples \
         gives p < {} and the min-max ranges of the repeats do not overlap; it is flagged when it is also \
         larger than the threshold.\n\n",
        c.alpha
    ));
    out.push_str(
        "| configuration | A req/s | B req/s | change | A p99 | B p99 | samples | p | verdict |\n",
    );
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for cell in &c.cells {
        let verdict = if matches!(cell.verdict, Verdict::Regression | Verdict::Failed) {
            format!("**{}**", cell.verdict.label())
        } else {
            cell.verdict.label().to_string()
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {}+{} per {} | {} | {} |\n",
            cell.config_id,
            opt(cell.a_rps_median, format::rps),
            opt(cell.b_rps_median, format::rps),
            opt(cell.change, |v| format::pct(v, 1, true)),
            opt(cell.a_p99_ms, format::ms),
            opt(cell.b_p99_ms, format::ms),
            cell.a_samples,
            cell.b_samples,
            cell.sample_kind,
            opt(cell.p_value, |p| format!("{p:.4}")),
            verdict
        ));
    }
    for (label, ids) in [("only in A", &c.only_in_a), ("only in B", &c.only_in_b)] {
        if !ids.is_empty() {
            out.push_str(&format!("\nConfigurations {label} (not compared): "));
            out.push_str(
                &ids.iter()
                    .map(|i| format!("`{i}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
            );
            out.push('\n');
        }
    }
    out
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
