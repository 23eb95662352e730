//! `runner history results/<experiment>/`: every comparable run of an
//! experiment as one series per configuration and metric, change points
//! found by E-divisive means, and a verdict on the newest run for
//! schedulers. docs/history.md is the user's version of this.
//!
//! The stages: `runs` reads the run directories and keeps the complete
//! runs comparable with the newest one; `series` turns each run into one
//! point per configuration (geometric mean of usable repeats, 95% interval
//! from the runtime's pooled repeat noise); [`edivisive`] finds the change
//! points of each series; `judge` picks each series' last stable regime
//! and judges the newest point against it; `render` and `chart` write
//! history.md, history.html and the JSON.
mod chart;
mod ci;
pub mod edivisive;
pub mod hosts;
mod judge;
mod ratio;
mod render;
mod runs;
mod series;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use crate::report::error::HistoryError;
pub use judge::{
    ChangePointReport, Drift, FAMILY_ALPHA, Newest, RegimeReport, SeriesReport, Verdict,
};
pub use runs::{Break, LeftOut, LeftOutReason, RunRef, RunSource};
pub use series::{Metric, Point};

use crate::report::ci::CiOutputs;
use crate::report::error::ReportError;
use crate::stats::{DEFAULT_FLOOR, Floor, RunLevelNoise, RunsOfConfig};

pub const HISTORY_MD: &str = "history.md";
pub const HISTORY_HTML: &str = "history.html";

/// The analysis' knobs. The defaults are those of docs/history.md.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HistorySettings {
    /// Smallest relative throughput change reported (change points) or judged a regression.
    pub threshold: f64,
    /// The same for p99 latency (noisier, as in `runner compare`).
    pub latency_threshold: f64,
    /// Fewest runs a regime may have.
    pub min_segment: usize,
    /// Shuffles per permutation test.
    pub permutations: u32,
    /// A change point needs a permutation p below this.
    pub significance: f64,
    /// Seed of the permutation tests: the same history always gives the same answer.
    pub seed: u64,
    /// Run-level noise assumed until three comparable runs estimate it.
    pub run_noise: Floor,
}

impl Default for HistorySettings {
    fn default() -> Self {
        let detector = edivisive::Settings::default();
        HistorySettings {
            threshold: 0.05,
            latency_threshold: 0.10,
            min_segment: detector.min_segment,
            permutations: detector.permutations,
            significance: detector.significance,
            seed: detector.seed,
            run_noise: DEFAULT_FLOOR,
        }
    }
}

impl HistorySettings {
    pub fn threshold_for(&self, metric: Metric) -> f64 {
        match metric {
            Metric::Throughput => self.threshold,
            Metric::P99 => self.latency_threshold,
        }
    }

    /// The verdict rule of the newest run, the same as compare's.
    pub fn rule(&self) -> crate::stats::Rule {
        crate::stats::Rule {
            threshold: self.threshold,
            latency_threshold: Some(self.latency_threshold),
            alpha: FAMILY_ALPHA,
        }
    }

    /// The detector's settings for one metric.
    pub fn detector(&self, metric: Metric) -> edivisive::Settings {
        edivisive::Settings {
            min_segment: self.min_segment.max(2),
            permutations: self.permutations,
            significance: self.significance,
            min_change: self.threshold_for(metric),
            seed: self.seed,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HistoryFormat {
    Md,
    Json,
}

#[derive(Debug, Clone)]
pub struct HistoryOptions {
    pub settings: HistorySettings,
    /// What goes to stdout (history.md and history.html are written either way).
    pub format: HistoryFormat,
    /// Where history.md and history.html go (default: the experiment directory).
    pub out: Option<PathBuf>,
    /// `--junit FILE` and the GitHub step summary (docs/guides/ci.md).
    pub ci: CiOutputs,
}

/// What the CLI prints and how it exits.
#[derive(Debug, Clone)]
pub struct HistoryOutcome {
    /// history.md's text or the JSON, as asked.
    pub output: String,
    pub files: Vec<PathBuf>,
    /// For stderr: runs left out because they could not be read.
    pub warnings: Vec<String>,
    /// 0: the newest run opens no worse regime; 1: it does (see [`Verdict::fails`]).
    pub exit_code: u8,
}

/// The whole analysis of one experiment.
#[derive(Debug, Clone, Serialize)]
pub struct History {
    pub experiment: String,
    pub dir: String,
    pub settings: HistorySettings,
    pub family_alpha: f64,
    /// The run-level noise the newest run's intervals carry.
    pub run_level: RunLevelNoise,
    /// The comparable runs, oldest first; points refer to them by index.
    pub runs: Vec<RunRef>,
    /// The run judged: the newest complete run.
    pub newest: RunRef,
    pub left_out: Vec<LeftOut>,
    pub breaks: Vec<Break>,
    /// Per configuration, throughput then p99.
    pub series: Vec<SeriesReport>,
    /// Series whose newest verdict fails the job.
    pub regressions: usize,
    pub improvements: usize,
    pub change_points: usize,
    pub exit_code: u8,
}

/// Reads and analyses `dir` (`results/<experiment>/`).
pub fn analyse(dir: &Path, settings: &HistorySettings) -> Result<History, HistoryError> {
    analyse_source(&RunSource::Folder(dir.to_path_buf()), settings).map(|(history, _)| history)
}

/// Reads and analyses the runs of `source` (a folder or a store); also
/// returns the comparable runs it judged, oldest first, for `compare
/// --baseline history` to pool their repeats without reading them again.
pub fn analyse_source(
    source: &RunSource,
    settings: &HistorySettings,
) -> Result<(History, Vec<crate::results::RunData>), HistoryError> {
    let loaded = runs::load_from(source)?;
    let newest = loaded.runs.last().expect("load keeps the newest run");
    let measured: BTreeSet<String> = newest
        .measurements
        .iter()
        .map(|r| r.config_id.clone())
        .collect();
    let (series, run_level) = judge::judge_all(
        series::build(&loaded.runs),
        loaded.runs.len() - 1,
        &measured,
        settings,
    );
    let regressions = series.iter().filter(|s| s.newest.verdict.fails()).count();
    let history = History {
        experiment: loaded.experiment.clone(),
        dir: source.describe(),
        settings: *settings,
        family_alpha: FAMILY_ALPHA,
        run_level,
        newest: RunRef::of(newest),
        runs: loaded.runs.iter().map(RunRef::of).collect(),
        left_out: loaded.left_out,
        breaks: loaded.breaks,
        improvements: series
            .iter()
            .filter(|s| s.newest.verdict == Verdict::Improvement)
            .count(),
        change_points: series.iter().map(|s| s.change_points.len()).sum(),
        exit_code: u8::from(regressions > 0),
        regressions,
        series,
    };
    Ok((history, loaded.runs))
}

/// The history as it stood the night before: the comparable runs of
/// `source` less its newest, as a source of their own (their newest is then
/// the run before tonight's). `None` when tonight's run is the only one.
/// `runner nightly` judges that run again to confirm tonight's verdict.
pub fn before_newest(source: &RunSource) -> Result<Option<RunSource>, HistoryError> {
    let mut loaded = runs::load_from(source)?;
    loaded.runs.pop();
    if loaded.runs.is_empty() {
        return Ok(None);
    }
    Ok(Some(RunSource::Stored {
        experiment: loaded.experiment,
        origin: source.describe(),
        runs: loaded.runs,
    }))
}

/// The judgement of runs already grouped into repeats (oldest first; the
/// last is the newest): what `analyse` does after reading, for the
/// calibration (examples/calibrate-compare.rs) to run on drawn histories.
pub fn judge_repeats(
    runs: &[crate::stats::RunRepeats],
    settings: &HistorySettings,
) -> Vec<SeriesReport> {
    let measured: BTreeSet<String> = runs
        .last()
        .map(|r| r.keys().cloned().collect())
        .unwrap_or_default();
    let newest = runs.len().saturating_sub(1);
    judge::judge_all(series::from_repeats(runs), newest, &measured, settings).0
}

/// `runner history`: analyse, write history.md and history.html, and
/// return the requested output with the exit code.
///
/// history.md and history.html go to `--out`, else the experiment folder;
/// from a store, to results/<experiment>/ under the working directory.
pub fn history_command(
    source: &RunSource,
    options: &HistoryOptions,
) -> Result<HistoryOutcome, HistoryError> {
    let (history, _) = analyse_source(source, &options.settings)?;
    let markdown = render::markdown(&history)?;
    let html = render::html(&history)?;
    let out = options.out.clone().unwrap_or_else(|| match source {
        RunSource::Folder(dir) => dir.to_path_buf(),
        RunSource::Stored { experiment, .. } => Path::new("results").join(experiment),
    });
    std::fs::create_dir_all(&out).map_err(|source| ReportError::Write {
        path: out.clone(),
        source,
    })?;
    let mut files = Vec::new();
    for (name, text) in [(HISTORY_MD, &markdown), (HISTORY_HTML, &html)] {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|source| ReportError::Write {
            path: path.clone(),
            source,
        })?;
        files.push(path);
    }
    options
        .ci
        .write(&ci::suite(&history), || ci::summary(&history, &files))?;
    let warnings = history
        .left_out
        .iter()
        .filter(|l| matches!(l.reason, LeftOutReason::Unreadable { .. }))
        .map(|l| format!("warning: run {} left out: {}", l.run, l.reason))
        .collect();
    let output = match options.format {
        HistoryFormat::Md => markdown,
        HistoryFormat::Json => render::json(&history),
    };
    Ok(HistoryOutcome {
        output,
        files,
        warnings,
        exit_code: history.exit_code,
    })
}

/// The baseline of one configuration and metric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StableRegime {
    pub config_id: String,
    pub runtime: String,
    pub metric: Metric,
    /// The runs of the regime, oldest first (never the newest run).
    pub runs: Vec<RunRef>,
    /// The same runs as indices into the history's runs (its time axis).
    pub at: Vec<usize>,
}

/// The newest run and, per configuration and metric, what to judge it against.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StableRegimes {
    pub newest: RunRef,
    /// The newest run's index into the history's runs.
    pub newest_at: usize,
    pub regimes: Vec<StableRegime>,
    /// The run-level noise history judges the newest run with (estimated
    /// from the regimes' runs, the floor below three).
    pub run_level: RunLevelNoise,
    /// Complete runs left out as not comparable with the newest, each with
    /// what differs (`runner nightly` names them when nothing else is left).
    pub breaks: Vec<Break>,
}

/// The last stable regime of every configuration of the experiment in
/// `dir`, per metric: the runs the newest run is judged against by
/// `runner history`, for `runner compare --baseline history` to compare the
/// newest run with (pool their repeats as the baseline side).
///
/// It is the last regime the change-point detector found, less the
/// newest run and the runs after the last point where a change could still
/// be confirmed (the newest `min_segment - 1`): those may be the start of a
/// new regime that the detector cannot see yet. When the newest run itself
/// confirms a change point, it is the regime before that change. Only
/// complete runs comparable with the newest one (host fingerprint,
/// toolchains, spec hash, `--quick`) are considered. A configuration with
/// no usable repeat in the newest run keeps its whole last regime; one
/// with nothing to compare with (its first run) has no runs.
pub fn last_stable_regime(
    dir: &Path,
    settings: &HistorySettings,
) -> Result<StableRegimes, HistoryError> {
    last_stable_regime_from(&RunSource::Folder(dir.to_path_buf()), settings)
        .map(|(regimes, _)| regimes)
}

/// [`last_stable_regime`] of a folder or a store, with the comparable runs
/// (oldest first, the newest last) the regimes refer to.
pub fn last_stable_regime_from(
    source: &RunSource,
    settings: &HistorySettings,
) -> Result<(StableRegimes, Vec<crate::results::RunData>), HistoryError> {
    let (history, runs) = analyse_source(source, settings)?;
    let regimes = history
        .series
        .iter()
        .map(|s| StableRegime {
            config_id: s.config_id.clone(),
            runtime: s.runtime.clone(),
            metric: s.metric,
            runs: s
                .newest
                .baseline_runs
                .iter()
                .map(|&i| history.runs[i].clone())
                .collect(),
            at: s.newest.baseline_runs.clone(),
        })
        .collect();
    let regimes = StableRegimes {
        newest: history.newest,
        newest_at: history.runs.len() - 1,
        regimes,
        run_level: history.run_level,
        breaks: history.breaks,
    };
    Ok((regimes, runs))
}

/// The run-level noise of the experiment in `dir` as of its run `run_id`:
/// per configuration and metric, the runs of the regime that holds
/// `run_id`, up to it (later runs may be the ones being judged), feed
/// [`RunLevelNoise::estimate`]; fewer than three such runs keep the floor.
pub fn run_level_as_of(
    dir: &Path,
    run_id: &str,
    settings: &HistorySettings,
) -> Result<RunLevelNoise, HistoryError> {
    let history = analyse(dir, settings)?;
    let mut runs_seen: BTreeSet<usize> = BTreeSet::new();
    let mut configs: Vec<RunsOfConfig> = Vec::new();
    for series in &history.series {
        let Some(at) = series.points.iter().position(|p| p.run_id == run_id) else {
            continue;
        };
        let start = series
            .regimes
            .iter()
            .find(|r| (r.start..r.end).contains(&at))
            .map_or(at, |r| r.start);
        let points = &series.points[start..=at];
        runs_seen.extend(points.iter().map(|p| p.run));
        configs.push(RunsOfConfig {
            runtime: &series.runtime,
            metric: series.metric.stats(),
            runs: points
                .iter()
                .map(|p| (p.run, p.repeats.as_slice()))
                .collect(),
        });
    }
    Ok(RunLevelNoise::estimate(
        settings.run_noise,
        runs_seen.len(),
        configs,
    ))
}
