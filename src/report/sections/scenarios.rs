//! What a report says about a spec's `scenarios:`: one table per scenario
//! with a row per configuration (runtime and any other axes), the load it
//! was given and what it did, and a matrix with the scenarios as rows and
//! the runtimes side by side as columns, each cell the throughput and p99:
//! the study's "per scenario, per runtime" figures at a glance. Empty when
//! the run had no scenarios, so other reports are unchanged.
use serde::Serialize;

use crate::report::analysis::cells::CellSummary;
use crate::report::analysis::summary::Summary;
use crate::results::LoopMode;
use crate::results::model::MeasurementRow;
use crate::results::read::run_data::RunData;
use crate::stats::spread::median_of_some;

/// The template variable `scenarios` (docs/templates.md).
#[derive(Debug, Clone, Serialize, Default)]
pub struct ScenariosView {
    /// In the order the run measured them (the spec's).
    pub scenarios: Vec<ScenarioTable>,
    /// The runtimes of the matrix's columns, in the summary's order.
    pub runtimes: Vec<String>,
}

/// One scenario's configurations.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioTable {
    pub name: String,
    /// Its `description` in the spec (plan.json); empty when none.
    pub description: String,
    pub rows: Vec<ScenarioRow>,
    /// Aligned with [`ScenariosView::runtimes`]: the row of each runtime's
    /// best configuration here (highest median throughput), if measured.
    pub by_runtime: Vec<Option<ScenarioRow>>,
}

/// One configuration of a scenario, medians over its usable repeats.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioRow {
    pub config_id: String,
    pub runtime: String,
    /// The other axes, `name=value` joined with `,` (empty: none).
    pub other_axes: String,
    /// closed | open | search.
    pub mode: String,
    /// Open loop: the rate offered; search: the highest rate held.
    pub target_rps: Option<f64>,
    /// Connections the load generator opened (median over the repeats).
    pub connections: Option<f64>,
    pub repeats: usize,
    pub failed: usize,
    pub rps_median: Option<f64>,
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub p999_ms: Option<f64>,
    pub errors: u64,
    pub rss_max_bytes: Option<u64>,
    pub cpu_cores: Option<f64>,
    pub cpu_ms_per_request: Option<f64>,
}

impl ScenariosView {
    /// The report context `ctx` with this view as its `scenarios`.
    pub fn of(run: &RunData, summary: &Summary) -> Self {
        let descriptions = descriptions(run);
        let mut scenarios: Vec<ScenarioTable> = Vec::new();
        for cell in &summary.cells {
            let Some((name, other_axes)) = split_scenario(&cell.axes) else {
                continue;
            };
            let row = row(cell, other_axes, &run.measurements);
            match scenarios.iter_mut().find(|s| s.name == name) {
                Some(table) => table.rows.push(row),
                None => scenarios.push(ScenarioTable {
                    description: descriptions
                        .iter()
                        .find(|(n, _)| n == name)
                        .map(|(_, d)| d.clone())
                        .unwrap_or_default(),
                    name: name.to_owned(),
                    rows: vec![row],
                    by_runtime: Vec::new(),
                }),
            }
        }
        for table in &mut scenarios {
            table.by_runtime = summary
                .runtimes
                .iter()
                .map(|rt| {
                    table
                        .rows
                        .iter()
                        .filter(|r| &r.runtime == rt)
                        .max_by(|a, b| {
                            a.rps_median
                                .partial_cmp(&b.rps_median)
                                .unwrap_or(std::cmp::Ordering::Equal)
                        })
                        .cloned()
                })
                .collect();
        }
        ScenariosView {
            runtimes: if scenarios.is_empty() {
                Vec::new()
            } else {
                summary.runtimes.clone()
            },
            scenarios,
        }
    }
}

/// `scenario=crud,concurrency=8` -> (`crud`, `concurrency=8`); `None`
/// without a scenario axis.
fn split_scenario(axes: &str) -> Option<(&str, String)> {
    let mut scenario = None;
    let mut others = Vec::new();
    for part in axes.split(',').filter(|p| !p.is_empty()) {
        match part.strip_prefix("scenario=") {
            Some(name) if scenario.is_none() => scenario = Some(name),
            _ => others.push(part),
        }
    }
    scenario.map(|s| (s, others.join(",")))
}

fn row(cell: &CellSummary, other_axes: String, rows: &[MeasurementRow]) -> ScenarioRow {
    let repeats: Vec<&MeasurementRow> = rows
        .iter()
        .filter(|r| r.config_id == cell.config_id)
        .collect();
    let mode = repeats.first().map_or(LoopMode::Closed, |r| r.mode);
    ScenarioRow {
        config_id: cell.config_id.clone(),
        runtime: cell.runtime.clone(),
        other_axes,
        mode: mode.as_str().to_owned(),
        target_rps: median_of_some(repeats.iter().map(|r| r.target_rps)),
        connections: median_of_some(
            repeats
                .iter()
                .map(|r| r.connections_opened.map(|c| c as f64)),
        ),
        repeats: cell.repeats,
        failed: cell.failed,
        rps_median: cell.rps_median,
        p50_ms: cell.p50_ms,
        p99_ms: cell.p99_ms,
        p999_ms: cell.p999_ms,
        errors: cell.errors,
        rss_max_bytes: cell.rss_max_bytes,
        cpu_cores: cell.cpu_cores,
        cpu_ms_per_request: cell.cpu_ms_per_request,
    }
}

/// (name, description) of each scenario in plan.json, read loosely: a
/// run without them (or without plan.json) shows the names alone.
fn descriptions(run: &RunData) -> Vec<(String, String)> {
    let Ok(text) = std::fs::read_to_string(run.dir.join("plan.json")) else {
        return Vec::new();
    };
    let Ok(plan) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    plan.get("scenarios")
        .and_then(|s| s.as_array())
        .into_iter()
        .flatten()
        .filter_map(|s| {
            Some((
                s.get("name")?.as_str()?.to_owned(),
                s.get("description")?.as_str()?.to_owned(),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::split_scenario;

    #[test]
    fn the_scenario_is_split_from_the_other_axes() {
        assert_eq!(
            split_scenario("scenario=crud,concurrency=8"),
            Some(("crud", "concurrency=8".to_owned()))
        );
        assert_eq!(
            split_scenario("scenario=json"),
            Some(("json", String::new()))
        );
        assert_eq!(split_scenario("payload=7,concurrency=1"), None);
        assert_eq!(split_scenario(""), None);
    }
}
