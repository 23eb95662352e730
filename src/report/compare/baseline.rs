//! `runner compare --baseline history`: side A is the last stable regime of
//! each configuration (from `report::history`), its repeats pooled over the
//! regime's runs, so that run-to-run drift inside the regime is part of A's
//! noise; side B is the newest run of the experiment.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{CompareOptions, RunRef};
use crate::report::error::ReportError;
use crate::report::history::{self, HistorySettings, RunSource};
use crate::results::STATUS_FILE;
use crate::results::model::CellStatus;
use crate::results::read::run_data::RunData;
use crate::stats::{ConfigRepeats, Metric, RunLevelNoise, RunRepeats, run_repeats};

/// The two sides of a comparison against the history.
pub struct AgainstHistory {
    pub a: RunRepeats,
    pub a_ref: RunRef,
    pub b: RunData,
    /// The newest run's repeats, placed at its index in the history.
    pub rb: RunRepeats,
    /// History's own: estimated from the regimes' runs (the floor below three).
    pub run_level: RunLevelNoise,
    /// The run ids side A pooled, oldest first (empty: no earlier run).
    pub baseline_runs: Vec<String>,
    /// How many complete runs comparable with the newest came before it.
    pub earlier_runs: usize,
    /// The complete runs set apart as not comparable, with what differs.
    pub breaks: Vec<history::Break>,
}

/// The run-level noise for a comparison whose baseline is the run `a`:
/// estimated from the comparable runs of its experiment up to it, within
/// each configuration's regime (`history::run_level_as_of`), or the floor
/// when there are fewer than three (or the history cannot be read: the
/// floor is the conservative answer, and the output names its source).
pub fn run_level_as_of(a: &RunData, options: &CompareOptions) -> RunLevelNoise {
    let settings = settings(options);
    a.dir
        .parent()
        .and_then(|dir| history::run_level_as_of(dir, &a.status.run_id, &settings).ok())
        .unwrap_or_else(|| RunLevelNoise::floor(options.run_noise))
}

fn settings(options: &CompareOptions) -> HistorySettings {
    HistorySettings {
        threshold: options.threshold,
        latency_threshold: options
            .latency_threshold
            .unwrap_or(HistorySettings::default().latency_threshold),
        run_noise: options.run_noise,
        ..HistorySettings::default()
    }
}

/// The experiment directory of `path`: `path` itself, or its parent when
/// `path` is a run directory (then it must be the newest run).
pub fn experiment_dir(path: &Path) -> PathBuf {
    if path.join(STATUS_FILE).is_file() {
        path.parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    } else {
        path.to_path_buf()
    }
}

/// Reads the newest run of the experiment of `path` and its baseline from
/// its folder.
pub fn against_history(
    path: &Path,
    options: &CompareOptions,
) -> Result<AgainstHistory, ReportError> {
    let dir = experiment_dir(path);
    let given = path.join(STATUS_FILE).is_file().then_some(path);
    against_history_from(&RunSource::Folder(dir), given, options)
}

/// The same from any source (a folder or a results store): `given`, when
/// a run directory was named, must be the newest run.
pub fn against_history_from(
    source: &RunSource,
    given: Option<&Path>,
    options: &CompareOptions,
) -> Result<AgainstHistory, ReportError> {
    let settings = settings(options);
    let (regimes, runs) = history::last_stable_regime_from(source, &settings)
        .map_err(|e| ReportError::History(Box::new(e)))?;
    let newest = PathBuf::from(&regimes.newest.dir);
    if let Some(path) = given
        && !same_dir(path, &newest)
    {
        return Err(ReportError::NotNewest {
            experiment: PathBuf::from(source.describe()),
            newest: regimes.newest.run_id.clone(),
            given: path.to_path_buf(),
        });
    }
    let dir = source.describe();
    let earlier_runs = runs.len().saturating_sub(1);
    // The runs the history judged, by directory: read once, by the history.
    let loaded: BTreeMap<String, RunData> = runs
        .into_iter()
        .map(|run| (run.dir.display().to_string(), run))
        .collect();
    let b = loaded
        .get(&regimes.newest.dir)
        .cloned()
        .expect("the newest run is one of the history's runs");
    let mut a = RunRepeats::new();
    let mut ids: Vec<String> = Vec::new();
    for regime in &regimes.regimes {
        let metric = regime.metric.stats();
        for (run, &at) in regime.runs.iter().zip(&regime.at) {
            if !ids.contains(&run.run_id) {
                ids.push(run.run_id.clone());
            }
            let data = &loaded[&run.dir];
            let rows: Vec<_> = data
                .measurements
                .iter()
                .filter(|m| m.config_id == regime.config_id && m.status != CellStatus::Failed)
                .collect();
            let Some(first) = rows.first() else { continue };
            let entry = a
                .entry(regime.config_id.clone())
                .or_insert_with(|| ConfigRepeats {
                    runtime: first.runtime.clone(),
                    axes: first.axes.clone(),
                    ..Default::default()
                });
            // p50 follows throughput's regime: it is reported, not judged.
            let follows: &[Metric] = if metric == Metric::Throughput {
                &[Metric::Throughput, Metric::P50]
            } else {
                &[metric]
            };
            for &m in follows {
                entry.values[m as usize].extend(rows.iter().map(|r| m.of_repeat(r)));
                entry.at[m as usize].push(at);
            }
        }
    }
    // Configurations without a regime (first seen in the newest run) are
    // "only in B"; keep A in the newest run's order.
    let order = run_repeats(&b.measurements);
    let mut ordered: RunRepeats = order
        .keys()
        .filter_map(|id| a.shift_remove(id).map(|c| (id.clone(), c)))
        .collect();
    ordered.extend(a);
    let a = ordered;
    ids.sort();
    let a_ref = RunRef {
        dir,
        run_id: match (ids.first(), ids.last()) {
            (Some(first), Some(last)) if first != last => format!("history {first}..{last}"),
            (Some(only), _) => format!("history {only}"),
            _ => "history (no earlier run)".to_string(),
        },
        experiment: b.status.experiment.clone(),
    };
    let mut rb = run_repeats(&b.measurements);
    for config in rb.values_mut() {
        config.at = std::array::from_fn(|_| vec![regimes.newest_at]);
    }
    Ok(AgainstHistory {
        a,
        a_ref,
        b,
        rb,
        run_level: regimes.run_level,
        baseline_runs: ids,
        earlier_runs,
        breaks: regimes.breaks,
    })
}

fn same_dir(x: &Path, y: &Path) -> bool {
    match (x.canonicalize(), y.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => x == y,
    }
}
