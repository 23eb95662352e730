//! The maximum sustainable rate of `mode: search` cells: a table row per
//! cell (the found rate, how the search ended) and the `search-steps` chart,
//! p99 against the probed rate, one line per cell coloured by runtime, held
//! steps as filled dots and failed ones as crosses.
use plotters::prelude::*;
use serde::Serialize;

use crate::report::analysis::format;
use crate::report::charts::draw::{
    Chart, FONT, LEGEND_H, PANEL_H, PANEL_W, TITLE_H, canvas_with_legend, colour, err,
};
use crate::report::error::ReportError;
use crate::results::read::run_data::RunData;
use crate::results::{CellStatus, LoopMode, SEARCH_DIR, SearchStepRow, cell_file_stem, read_csv};

/// One searched cell, as the templates see it (`search` in the context).
#[derive(Debug, Clone, Serialize)]
pub struct SearchView {
    pub runtime: String,
    pub cell_id: String,
    pub axes: String,
    /// The highest rate that held; `None` when even `from` failed.
    pub max_rps: Option<f64>,
    /// Achieved rate and p99 of that step.
    pub achieved_rps: Option<f64>,
    pub p99_ms: Option<f64>,
    /// The lowest failed rate above the found one, when the search found one.
    pub first_failed_rps: Option<f64>,
    pub status: CellStatus,
    pub reason: String,
    pub steps: Vec<SearchStepRow>,
}

/// Every search cell of the run with its probed steps (empty without any).
pub fn views(run: &RunData) -> Result<Vec<SearchView>, ReportError> {
    let mut out = Vec::new();
    for row in run
        .measurements
        .iter()
        .filter(|r| r.mode == LoopMode::Search)
    {
        let path = run
            .dir
            .join(SEARCH_DIR)
            .join(format!("{}.csv", cell_file_stem(&row.cell_id)));
        let steps: Vec<SearchStepRow> = read_csv(&path)?.unwrap_or_default();
        let max = row.target_rps;
        let first_failed_rps = max.and_then(|m| {
            steps
                .iter()
                .filter(|s| !s.held && s.target_rps > m)
                .map(|s| s.target_rps)
                .reduce(f64::min)
        });
        out.push(SearchView {
            runtime: row.runtime.clone(),
            cell_id: row.cell_id.clone(),
            axes: row.axes.clone(),
            max_rps: max,
            achieved_rps: max.map(|_| row.throughput_rps),
            p99_ms: max.map(|_| row.latency_p99_ms),
            first_failed_rps,
            status: row.status,
            reason: row.reason.clone(),
            steps,
        });
    }
    Ok(out)
}

const NAME: &str = "search-steps";

/// p99 against the probed rate of every search cell; `None` without any.
pub fn chart(views: &[SearchView], runtimes: &[String]) -> Result<Option<Chart>, ReportError> {
    let points = || {
        views
            .iter()
            .flat_map(|v| v.steps.iter())
            .filter(|s| s.p99_ms > 0.0)
    };
    if points().next().is_none() {
        return Ok(None);
    }
    let (x_lo, x_hi) = points().fold((f64::INFINITY, 0f64), |(lo, hi), s| {
        (lo.min(s.target_rps), hi.max(s.target_rps))
    });
    let (y_lo, y_hi) = points().fold((f64::INFINITY, 0f64), |(lo, hi), s| {
        (lo.min(s.p99_ms), hi.max(s.p99_ms))
    });
    let title =
        "p99 latency of every probed rate (search cells; dots held, crosses failed; log scales)"
            .to_string();
    let mut svg = String::new();
    {
        let size = (PANEL_W * 2, PANEL_H + TITLE_H + LEGEND_H);
        let area = canvas_with_legend(&mut svg, size, &title, runtimes, NAME)?;
        let mut chart = ChartBuilder::on(&area)
            .margin(14)
            .x_label_area_size(48)
            .y_label_area_size(78)
            .build_cartesian_2d(
                ((x_lo / 1.3)..(x_hi * 1.3)).log_scale(),
                ((y_lo / 1.6)..(y_hi * 1.6)).log_scale(),
            )
            .map_err(err(NAME))?;
        chart
            .configure_mesh()
            .x_desc("offered rate (req/s, log scale)")
            .y_desc("p99 latency (ms, log scale)")
            .axis_desc_style((FONT, 14))
            .label_style((FONT, 12))
            .x_label_formatter(&|v| format::rps(*v))
            .y_label_formatter(&|v| format::ms(*v))
            .light_line_style(WHITE)
            .draw()
            .map_err(err(NAME))?;
        for view in views {
            let c = colour(
                runtimes
                    .iter()
                    .position(|r| *r == view.runtime)
                    .unwrap_or(0),
            );
            let mut steps: Vec<&SearchStepRow> =
                view.steps.iter().filter(|s| s.p99_ms > 0.0).collect();
            steps.sort_by(|a, b| a.target_rps.total_cmp(&b.target_rps));
            chart
                .draw_series(LineSeries::new(
                    steps.iter().map(|s| (s.target_rps, s.p99_ms)),
                    c.stroke_width(2),
                ))
                .map_err(err(NAME))?;
            chart
                .draw_series(
                    steps
                        .iter()
                        .filter(|s| s.held)
                        .map(|s| Circle::new((s.target_rps, s.p99_ms), 5, c.filled())),
                )
                .map_err(err(NAME))?;
            chart
                .draw_series(
                    steps
                        .iter()
                        .filter(|s| !s.held)
                        .map(|s| Cross::new((s.target_rps, s.p99_ms), 6, c.stroke_width(2))),
                )
                .map_err(err(NAME))?;
        }
        area.present().map_err(err(NAME))?;
    }
    Ok(Some(Chart {
        name: NAME,
        file: format!("{NAME}.svg"),
        title,
        svg,
    }))
}
