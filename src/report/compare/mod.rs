//! `runner compare RUN_A RUN_B`: per-configuration ratios B/A of
//! throughput, p50 and p99 with 95% intervals from the repeats, a verdict per
//! configuration with the error rate controlled across the whole matrix,
//! and what the design could detect: for scheduled reruns that must alert
//! on regressions and must not cry wolf. The rule is in `judge` and
//! docs/compare.md; `markdown` renders the table.
use std::path::Path;

use serde::Serialize;

mod baseline;
mod ci;
mod control;
mod design;
mod markdown;
pub mod simulate;

pub use control::{compare_control_command, judge_against_control, judge_control};
pub use design::{DesignRow, design};
pub use markdown::markdown;

use super::error::ReportError;
use crate::report::analysis::comparable::differences;
use crate::report::ci::CiOutputs;
use crate::report::history;
use crate::results::RunData;
use crate::stats::{
    ALPHA, ConfigJudged, Floor, Judged, Metric, Rule, RunLevelNoise, RunRepeats, Verdict,
    judge_all, run_repeats,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompareFormat {
    Md,
    Json,
}

#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// Relative throughput change (0.05 = 5%) below which a significant change is not flagged.
    pub threshold: f64,
    /// The same for p99 latency (noisier than throughput); `None`: p99 is
    /// reported but not judged (`--latency-threshold off`).
    pub latency_threshold: Option<f64>,
    /// Run-level noise assumed when the baseline's experiment has fewer
    /// than three comparable runs to estimate it from.
    pub run_noise: Floor,
    /// Compare even when the runs are not comparable (with a loud warning).
    pub force: bool,
    pub format: CompareFormat,
    /// `--junit FILE` and the GitHub step summary (docs/guides/ci.md).
    pub ci: CiOutputs,
}

impl CompareOptions {
    fn rule(&self) -> Rule {
        Rule {
            threshold: self.threshold,
            latency_threshold: self.latency_threshold,
            alpha: ALPHA,
        }
    }
}

/// The answer a scheduler acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// At least one significant regression beyond its threshold (exit 1).
    Regression,
    /// No regression, and every judged test could have seen one (exit 0).
    NoRegression,
    /// No regression found, but some tests could not have seen a change of
    /// the threshold's size: "could not tell" (exit 3).
    Inconclusive,
}

impl Outcome {
    /// 0 no regression, 1 regression, 3 inconclusive (2 is "not comparable").
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::NoRegression => 0,
            Outcome::Regression => 1,
            Outcome::Inconclusive => 3,
        }
    }
}

/// The comparison's answer from its judged configurations: any regression
/// (throughput or p99, or failed in B) wins; else any test that could not
/// tell (or nothing matched) makes it inconclusive.
pub fn outcome(judged: &[ConfigJudged]) -> Outcome {
    let judged_metrics = || {
        judged.iter().flat_map(|c| {
            [
                &c.metrics[Metric::Throughput as usize],
                &c.metrics[Metric::P99 as usize],
            ]
        })
    };
    if judged_metrics().any(|m| m.verdict.is_regression()) {
        Outcome::Regression
    } else if judged.is_empty() || judged_metrics().any(|m| m.verdict.cannot_tell()) {
        Outcome::Inconclusive
    } else {
        Outcome::NoRegression
    }
}

/// What the CLI prints and how it exits.
#[derive(Debug, Clone)]
pub struct CompareOutcome {
    /// The comparison, in the requested format.
    pub output: String,
    /// Printed on stderr: the not-comparable warning when forced.
    pub warnings: Vec<String>,
    /// See [`Outcome::exit_code`].
    pub exit_code: u8,
}

/// One configuration matched in both runs.
#[derive(Debug, Clone, Serialize)]
pub struct CellChange {
    pub config_id: String,
    pub runtime: String,
    pub axes: String,
    /// Successful requests per second (higher is better).
    pub throughput: Judged,
    /// Median latency in ms: reported, not judged.
    pub p50: Judged,
    /// 99th percentile latency in ms (lower is better).
    pub p99: Judged,
}

impl CellChange {
    fn of(judged: ConfigJudged) -> Self {
        let [throughput, p50, p99] = judged.metrics;
        CellChange {
            config_id: judged.config_id,
            runtime: judged.runtime,
            axes: judged.axes,
            throughput,
            p50,
            p99,
        }
    }

    pub fn regressed(&self) -> bool {
        self.throughput.verdict.is_regression() || self.p99.verdict.is_regression()
    }

    fn cannot_tell(&self) -> bool {
        self.throughput.verdict.cannot_tell() || self.p99.verdict.cannot_tell()
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
    pub outcome: Outcome,
    /// Throughput change (relative) a significant change must reach to be flagged.
    pub threshold: f64,
    /// The same for p99 latency; `None`: not judged.
    pub latency_threshold: Option<f64>,
    /// Family-wise error rate, and the number of tests in the family.
    pub alpha: f64,
    pub tests: usize,
    /// The run-level noise every interval carries: its floor, and how many
    /// comparable runs estimated it (0: the floor was used).
    pub run_level: RunLevelNoise,
    /// Both sides were measured in one run (candidates against their
    /// controls, `--baseline control`): the run-level noise is none.
    pub within_run: bool,
    /// What makes the runs not comparable (empty when comparable).
    pub differences: Vec<String>,
    pub forced: bool,
    /// Per runtime: the noise of each side and what the design can detect.
    pub design: Vec<DesignRow>,
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
    /// Configurations where throughput or p99 could not be told.
    pub inconclusive: usize,
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

/// `--latency-threshold`: a percentage, or `off` (p99 reported, not judged).
pub fn parse_latency_threshold(text: &str) -> Result<Option<f64>, ReportError> {
    if text.trim().eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    parse_threshold(text).map(Some)
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
    let (ra, rb) = (run_repeats(&a.measurements), run_repeats(&b.measurements));
    let run_level = baseline::run_level_as_of(&a, options);
    let sides = Sides {
        a: &ra,
        b: &rb,
        run_level: &run_level,
        within_run: false,
    };
    let comparison = compare(sides, run_ref(&a), run_ref(&b), options, differences);
    render(&comparison, options, warnings)
}

/// `runner compare --baseline history PATH`: the newest run of the
/// experiment (PATH, or the experiment of the run PATH) against the last
/// stable regime of each configuration. The regime's runs are comparable
/// with it by construction (history keeps only those).
pub fn compare_history_command(
    path: &Path,
    options: &CompareOptions,
) -> Result<CompareOutcome, ReportError> {
    let sides = baseline::against_history(path, options)?;
    judge_against_history(sides, options, Vec::new())
}

/// `runner compare --baseline history --store URL PATH`: the newest run of
/// the experiment of PATH (a name, its folder or its newest run) on its
/// host, judged against that host's history in the store, by the same code.
pub fn compare_history_store_command(
    url: &crate::store::StoreUrl,
    path: &Path,
    options: &CompareOptions,
    catch_up: &[std::path::PathBuf],
) -> Result<CompareOutcome, ReportError> {
    let history_error = |e| ReportError::History(Box::new(e));
    let experiment = crate::report::history::hosts::experiment_name(path);
    let (sources, messages) =
        crate::report::history::hosts::stored_sources(url, &experiment, catch_up)
            .map_err(history_error)?;
    let Some(newest_host) = sources.first() else {
        return Err(history_error(crate::report::history::hosts::not_in_store(
            url,
            &experiment,
        )));
    };
    let sides = baseline::against_history_from(newest_host, None, options)?;
    judge_against_history(sides, options, messages)
}

fn judge_against_history(
    sides: baseline::AgainstHistory,
    options: &CompareOptions,
    warnings: Vec<String>,
) -> Result<CompareOutcome, ReportError> {
    render(&against_history(&sides, options), options, warnings)
}

/// The comparison of the newest run with its history's last stable regime.
fn against_history(sides: &baseline::AgainstHistory, options: &CompareOptions) -> Comparison {
    compare(
        Sides {
            a: &sides.a,
            b: &sides.rb,
            run_level: &sides.run_level,
            within_run: false,
        },
        sides.a_ref.clone(),
        run_ref(&sides.b),
        options,
        Vec::new(),
    )
}

/// A run judged against the earlier runs of its experiment by the rule of
/// `compare --baseline history`, with what a caller needs to tell "judged"
/// from "nothing to judge against yet" and "nothing comparable left".
#[derive(Debug, Clone)]
pub struct RunAgainstHistory {
    pub comparison: Comparison,
    /// Runs side A pooled, oldest first; empty when there was no earlier run.
    pub baseline_runs: Vec<String>,
    /// Complete runs comparable with this one that came before it.
    pub earlier_runs: usize,
    /// Complete runs set apart as not comparable, with what differs.
    pub breaks: Vec<crate::report::history::Break>,
}

/// `runner nightly`'s judgement: `run_dir` must be the newest run of its
/// experiment directory (its parent). Same code as `compare --baseline
/// history`, so the two never disagree; no CI outputs are written.
pub fn judge_run_against_history(
    run_dir: &Path,
    options: &CompareOptions,
) -> Result<RunAgainstHistory, ReportError> {
    let sides = baseline::against_history(run_dir, options)?;
    Ok(RunAgainstHistory::judged(sides, options))
}

impl RunAgainstHistory {
    fn judged(sides: baseline::AgainstHistory, options: &CompareOptions) -> Self {
        RunAgainstHistory {
            comparison: against_history(&sides, options),
            baseline_runs: sides.baseline_runs,
            earlier_runs: sides.earlier_runs,
            breaks: sides.breaks,
        }
    }
}

/// The run before the newest of `run_dir`'s experiment, judged against the
/// runs before it by the same rule: what `runner nightly` said, or would
/// have said, the night before. `None` when tonight's run has no comparable
/// earlier run.
pub fn judge_previous_run(
    run_dir: &Path,
    options: &CompareOptions,
) -> Result<Option<RunAgainstHistory>, ReportError> {
    let history_error = |e| ReportError::History(Box::new(e));
    let source = history::RunSource::Folder(baseline::experiment_dir(run_dir));
    let Some(before) = history::before_newest(&source).map_err(history_error)? else {
        return Ok(None);
    };
    let sides = baseline::against_history_from(&before, None, options)?;
    Ok(Some(RunAgainstHistory::judged(sides, options)))
}

/// The output in the requested format; the CI outputs written on the way.
fn render(
    comparison: &Comparison,
    options: &CompareOptions,
    warnings: Vec<String>,
) -> Result<CompareOutcome, ReportError> {
    options
        .ci
        .write(&ci::suite(comparison), || ci::summary(comparison))?;
    let output = match options.format {
        CompareFormat::Md => markdown(comparison),
        CompareFormat::Json => {
            serde_json::to_string_pretty(&crate::results::versioned(comparison))
                .expect("plain data serializes")
                + "\n"
        }
    };
    Ok(CompareOutcome {
        output,
        warnings,
        exit_code: comparison.outcome.exit_code(),
    })
}

/// What one comparison judges: the two sides' repeats and the run-level
/// noise between them.
struct Sides<'a> {
    a: &'a RunRepeats,
    b: &'a RunRepeats,
    run_level: &'a RunLevelNoise,
    /// Both sides come from one run (a candidate and its control): no
    /// run-level term, and the report says why.
    within_run: bool,
}

fn compare(
    sides: Sides,
    a: RunRef,
    b: RunRef,
    options: &CompareOptions,
    differences: Vec<String>,
) -> Comparison {
    let (ra, rb) = (sides.a, sides.b);
    let rule = options.rule();
    let judged = judge_all(ra, rb, &rule, sides.run_level);
    let tests = judged
        .iter()
        .flat_map(|c| c.metrics.iter())
        .filter(|m| m.p_worse.is_some())
        .count();
    let design = design(ra, rb, &rule, &judged);
    let outcome = outcome(&judged);
    let cells: Vec<CellChange> = judged.into_iter().map(CellChange::of).collect();
    let only = |x: &RunRepeats, y: &RunRepeats| {
        x.keys()
            .filter(|k| !y.contains_key(*k))
            .cloned()
            .collect::<Vec<_>>()
    };
    let count = |f: &dyn Fn(&CellChange) -> bool| cells.iter().filter(|c| f(c)).count();
    let regressions = count(&|c| c.regressed());
    let inconclusive = count(&|c| c.cannot_tell());
    Comparison {
        a,
        b,
        outcome,
        threshold: options.threshold,
        latency_threshold: options.latency_threshold,
        alpha: ALPHA,
        tests,
        run_level: sides.run_level.clone(),
        within_run: sides.within_run,
        differences,
        forced: options.force,
        design,
        regressions,
        throughput_regressions: count(&|c| c.throughput.verdict.is_regression()),
        latency_regressions: count(&|c| c.p99.verdict.is_regression()),
        improvements: count(&|c| c.throughput.verdict == Verdict::Improvement),
        latency_improvements: count(&|c| c.p99.verdict == Verdict::Improvement),
        inconclusive,
        only_in_a: only(ra, rb),
        only_in_b: only(rb, ra),
        cells,
    }
}

fn run_ref(run: &RunData) -> RunRef {
    RunRef {
        dir: run.dir.display().to_string(),
        run_id: run.status.run_id.clone(),
        experiment: run.status.experiment.clone(),
    }
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
