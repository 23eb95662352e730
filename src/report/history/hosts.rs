//! History from a results store, where the host is a dimension: each host
//! is a series of its own (a host change starts a new series beside the
//! old one), the newest run's host is the one judged by default, and
//! `--hosts all` puts the same configuration on every host side by side,
//! each host judged by the same code as a folder's history.
use std::path::Path;

use serde::Serialize;

use super::{
    HistoryError, HistoryFormat, HistoryOptions, HistoryOutcome, RunSource, analyse_source,
};
use crate::results::model::{RunStatus, STATUS_FILE};
use crate::store::{HostRuns, Store, StoreUrl};

/// The experiment named on the command line: a name, an experiment folder
/// (results/<experiment>/, named after it) or a run directory (its status.json says).
pub fn experiment_name(arg: &Path) -> String {
    let status = std::fs::read_to_string(arg.join(STATUS_FILE))
        .ok()
        .and_then(|text| serde_json::from_str::<RunStatus>(&text).ok());
    match status {
        Some(status) => status.experiment,
        None => arg.file_name().map_or_else(
            || arg.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
    }
}

/// The store's runs of `experiment`, one source per host, the newest
/// run's host first (none: [`not_in_store`]). Before reading, runs under `catch_up` still marked as
/// not indexed are indexed; what that did is in the returned messages.
pub fn stored_sources(
    url: &StoreUrl,
    experiment: &str,
    catch_up: &[std::path::PathBuf],
) -> Result<(Vec<RunSource>, Vec<String>), HistoryError> {
    let mut store = Store::open(url)?;
    let messages = store.catch_up(catch_up).messages();
    let hosts = store.runs_of(experiment)?;
    let sources = hosts
        .into_iter()
        .map(
            |HostRuns {
                 host_id,
                 hostname,
                 runs,
             }| RunSource::Stored {
                experiment: experiment.to_string(),
                origin: format!("{url}, host {hostname} ({host_id})"),
                runs,
            },
        )
        .collect();
    Ok((sources, messages))
}

/// The error for an experiment the store has no run of.
pub fn not_in_store(url: &StoreUrl, experiment: &str) -> HistoryError {
    HistoryError::NotInStore {
        store: url.masked(),
        experiment: experiment.to_string(),
    }
}

/// One configuration and metric on every host: the newest point and its verdict.
#[derive(Debug, Clone, Serialize)]
pub struct AcrossHosts {
    pub experiment: String,
    /// The hosts' columns, as "hostname (host id)".
    pub hosts: Vec<String>,
    pub rows: Vec<AcrossHostsRow>,
    /// 1 when any host's newest run opens a worse regime.
    pub exit_code: u8,
}

#[derive(Debug, Clone, Serialize)]
pub struct AcrossHostsRow {
    pub config_id: String,
    pub metric: super::Metric,
    /// Per host (in `hosts` order): its newest value and verdict, when it measured it.
    pub cells: Vec<Option<HostCell>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct HostCell {
    pub run_id: String,
    pub value: f64,
    pub runs: usize,
    pub verdict: super::Verdict,
}

/// Every host's history judged on its own, gathered by configuration.
pub fn across_hosts(
    sources: &[RunSource],
    options: &HistoryOptions,
) -> Result<AcrossHosts, HistoryError> {
    let mut view = AcrossHosts {
        experiment: String::new(),
        hosts: Vec::new(),
        rows: Vec::new(),
        exit_code: 0,
    };
    for (column, source) in sources.iter().enumerate() {
        let (history, _) = analyse_source(source, &options.settings)?;
        view.experiment = history.experiment.clone();
        view.hosts.push(
            history
                .dir
                .rsplit_once(", host ")
                .map_or(history.dir.clone(), |(_, h)| h.to_string()),
        );
        view.exit_code = view.exit_code.max(history.exit_code);
        for series in &history.series {
            let position = view
                .rows
                .iter()
                .position(|r| r.config_id == series.config_id && r.metric == series.metric);
            let row = match position {
                Some(i) => &mut view.rows[i],
                None => {
                    view.rows.push(AcrossHostsRow {
                        config_id: series.config_id.clone(),
                        metric: series.metric,
                        cells: Vec::new(),
                    });
                    view.rows.last_mut().expect("just pushed")
                }
            };
            row.cells.resize(column + 1, None);
            row.cells[column] = series.points.last().map(|p| HostCell {
                run_id: p.run_id.clone(),
                value: p.value,
                runs: series.points.len(),
                verdict: series.newest.verdict,
            });
        }
    }
    for row in &mut view.rows {
        row.cells.resize(view.hosts.len(), None);
    }
    Ok(view)
}

/// The side-by-side view as Markdown: a row per configuration and metric,
/// a column per host.
pub fn across_hosts_markdown(view: &AcrossHosts) -> String {
    let mut out = format!(
        "# History of `{}` across hosts\n\nEach host is a series of its own, judged on its own \
         runs; a cell is the host's newest value (geometric mean of its repeats), its runs in \
         the series and the newest run's verdict.\n\n| configuration | metric |",
        view.experiment
    );
    for host in &view.hosts {
        out.push_str(&format!(" {host} |"));
    }
    out.push_str("\n|---|---|");
    out.push_str(&"---|".repeat(view.hosts.len()));
    out.push('\n');
    for row in &view.rows {
        out.push_str(&format!("| `{}` | {} |", row.config_id, row.metric.label()));
        for cell in &row.cells {
            match cell {
                Some(c) => {
                    let verdict = serde_json::to_value(c.verdict)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default();
                    out.push_str(&format!(
                        " {:.2} {} ({} runs, {verdict}) |",
                        c.value,
                        row.metric.unit(),
                        c.runs
                    ));
                }
                None => out.push_str(" - |"),
            }
        }
        out.push('\n');
    }
    out
}

/// `runner history --store URL EXPERIMENT --hosts all`.
pub fn across_hosts_command(
    sources: &[RunSource],
    options: &HistoryOptions,
) -> Result<HistoryOutcome, HistoryError> {
    let view = across_hosts(sources, options)?;
    let output = match options.format {
        HistoryFormat::Md => across_hosts_markdown(&view),
        HistoryFormat::Json => {
            serde_json::to_string_pretty(&view).expect("plain data serializes") + "\n"
        }
    };
    Ok(HistoryOutcome {
        output,
        files: Vec::new(),
        warnings: Vec::new(),
        exit_code: view.exit_code,
    })
}
