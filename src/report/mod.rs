//! Stage `report`: turns a run directory into summaries, charts and
//! rendered reports, and compares two runs.
//!
//! It reads only the run directory (see `results::model`), so any past run
//! can be re-rendered (`runner report RUN_DIR`) without running anything.
//! The win rule, the pair effect, the significance test and the template context are
//! documented in docs/templates.md.
pub mod analysis;
pub mod charts;
pub mod ci;
pub mod compare;
mod error;
pub mod export;
pub mod history;
pub mod render;
pub mod sections;

use std::path::{Path, PathBuf};

use crate::results::RunData;

pub use analysis::summary::Summary;
pub use compare::{
    CompareFormat, CompareOptions, CompareOutcome, compare_command, compare_control_command,
    compare_history_command, compare_history_store_command, judge_run_against_history,
    parse_latency_threshold, parse_threshold,
};
pub use error::ReportError;
use render::{context, csv_out, templating};

/// Directory of the chart files inside a run directory.
pub const CHARTS_DIR: &str = "charts";

/// The findings, for scripts, next to the reports.
pub const FINDINGS_FILE: &str = "findings.json";

/// What `render_run` wrote.
#[derive(Debug, Clone)]
pub struct RenderedReport {
    /// Every file written, in order: CSVs, charts, rendered templates.
    pub files: Vec<PathBuf>,
    pub failed_rows: usize,
    pub suspect_rows: usize,
    /// The findings as plain lines (empty with fewer than two runtimes).
    pub findings: Vec<String>,
}

/// Renders a run directory: summary CSVs, charts/*.svg and every template
/// (the defaults when `templates` is empty). Called by exec at the end of
/// every run and by `runner report`.
pub fn render_run(run_dir: &Path, templates: &[PathBuf]) -> Result<RenderedReport, ReportError> {
    let run = RunData::load(run_dir)?;
    let summary = Summary::of(&run);
    let mut charts = charts::all(&summary)?;
    let (sections, section_charts) = sections::registry::build_all(&run, &summary)?;
    charts.extend(section_charts);
    let templates = templating::load_templates(templates)?;
    let env = templating::environment(&templates)?;
    let ctx = context::build(
        &run,
        &summary,
        &charts,
        &sections,
        &context::generated_now(),
    );

    let mut files = csv_out::write_all(run_dir, &summary)?;
    if let Some(findings) = &summary.findings {
        let json = serde_json::to_string_pretty(&crate::results::versioned(findings))
            .expect("findings serialize");
        files.push(write(&run_dir.join(FINDINGS_FILE), &json)?);
    }
    let charts_dir = run_dir.join(CHARTS_DIR);
    std::fs::create_dir_all(&charts_dir).map_err(|source| ReportError::Write {
        path: charts_dir.clone(),
        source,
    })?;
    for chart in &charts {
        files.push(write(&charts_dir.join(&chart.file), &chart.svg)?);
    }
    // Render everything before writing any report, so a template error
    // leaves the previous reports in place.
    let rendered: Vec<(String, String)> = templates
        .iter()
        .map(|t| Ok((t.output.clone(), templating::render(&env, t, &ctx)?)))
        .collect::<Result<_, ReportError>>()?;
    for (output, text) in rendered {
        files.push(write(&run_dir.join(output), &text)?);
    }
    Ok(RenderedReport {
        files,
        failed_rows: summary.failed.len(),
        suspect_rows: summary.suspect.len(),
        findings: summary
            .findings
            .as_ref()
            .map(|f| f.lines())
            .unwrap_or_default(),
    })
}

/// `runner report RUN_DIR [--templates ...]`: the given templates, else the
/// spec's `report.templates` recorded in the run's plan.json, else the defaults.
pub fn report_command(
    run_dir: &Path,
    templates: &[PathBuf],
) -> Result<RenderedReport, ReportError> {
    if templates.is_empty() {
        let run = RunData::load(run_dir)?;
        return render_run(run_dir, &run.report_templates);
    }
    render_run(run_dir, templates)
}

fn write(path: &Path, text: &str) -> Result<PathBuf, ReportError> {
    std::fs::write(path, text).map_err(|source| ReportError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(path.to_path_buf())
}
