//! SVG charts drawn with plotters' SVG backend (text stays SVG `<text>`,
//! escaped by plotters). Colours follow the Okabe-Ito palette, which stays
//! distinguishable under the common colour-vision deficiencies; a runtime
//! keeps its colour in every chart.
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Serialize;

use crate::report::analysis::cells::CellSummary;
use crate::report::analysis::format;
use crate::report::analysis::summary::Summary;
use crate::report::error::ReportError;
use crate::results::rows::derived_rates::group_of;

/// Okabe-Ito, most distinct first (black last: it reads as an axis).
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(230, 159, 0),   // orange
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(240, 228, 66),  // yellow
    RGBColor(0, 0, 0),       // black
];
pub(crate) const FONT: &str = "sans-serif";
pub(crate) const PANEL_W: u32 = 620;
pub(crate) const PANEL_H: u32 = 420;
pub(crate) const TITLE_H: u32 = 48;
/// The shared legend strip under the throughput chart's title.
pub(crate) const LEGEND_H: u32 = 30;

pub fn colour(runtime_index: usize) -> RGBColor {
    PALETTE[runtime_index % PALETTE.len()]
}

/// One rendered chart: `charts/<file>` and inline in report.html.
#[derive(Debug, Clone, Serialize)]
pub struct Chart {
    pub name: &'static str,
    pub file: String,
    pub title: String,
    pub svg: String,
}

pub(crate) fn err<E: std::fmt::Display>(chart: &'static str) -> impl Fn(E) -> ReportError {
    move |e| ReportError::Chart {
        chart,
        detail: e.to_string(),
    }
}

pub(crate) fn grid(panels: usize) -> (usize, usize) {
    let cols = panels.clamp(1, 2);
    (panels.div_ceil(cols).max(1), cols)
}

/// A panel's caption from its point of the other axes: `payload=7` ->
/// `payload 7`, `endpoint=/a,payload=7` -> `endpoint /a, payload 7`; the
/// empty point (concurrency the only axis) -> `all cells`.
pub(crate) fn panel_label(group: &str) -> String {
    if group.is_empty() {
        return "all cells".to_string();
    }
    group
        .split(',')
        .map(|part| part.replacen('=', " ", 1))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Throughput against concurrency, one panel per point of the other axes
/// (`Summary::panels`: a payload, an endpoint...), log-scale x, one
/// line per runtime (median) with a min-max band over repeats. Each panel has
/// its own y scale (an 8 KB panel at a quarter of the 7 B throughput would
/// otherwise look flat), and one legend for all panels sits in a strip above
/// them, where it cannot cover a line.
pub(crate) fn throughput(summary: &Summary) -> Result<Option<Chart>, ReportError> {
    const NAME: &str = "throughput";
    let cells: Vec<&CellSummary> = summary
        .cells
        .iter()
        .filter(|c| c.concurrency.is_some_and(|v| v > 0) && c.rps_median.is_some())
        .collect();
    if cells.is_empty() {
        return Ok(None);
    }
    let conc = |c: &CellSummary| c.concurrency.unwrap_or(1) as f64;
    let x_min = cells.iter().map(|c| conc(c)).fold(f64::INFINITY, f64::min) / 1.4;
    let x_max = cells.iter().map(|c| conc(c)).fold(0.0, f64::max) * 1.4;
    let y_max = |panel: &str| {
        let top = cells
            .iter()
            .filter(|c| group_of(&c.axes) == panel)
            .filter_map(|c| c.rps_max)
            .fold(0.0, f64::max);
        (top * 1.12).max(1.0)
    };
    let title = "Throughput vs concurrency (line: median of repeats, band: min-max)".to_string();
    let (rows, cols) = grid(summary.panels.len());
    let mut svg = String::new();
    {
        let size = (
            cols as u32 * PANEL_W,
            rows as u32 * PANEL_H + TITLE_H + LEGEND_H,
        );
        let root = canvas_with_legend(&mut svg, size, &title, &summary.runtimes, NAME)?;
        for (panel, group) in root.split_evenly((rows, cols)).iter().zip(&summary.panels) {
            let mut chart = ChartBuilder::on(panel)
                .caption(panel_label(group), (FONT, 17))
                .margin(14)
                .x_label_area_size(48)
                .y_label_area_size(78)
                .build_cartesian_2d((x_min..x_max).log_scale(), 0f64..y_max(group))
                .map_err(err(NAME))?;
            chart
                .configure_mesh()
                .x_desc("concurrency (connections, log scale)")
                .y_desc("throughput (req/s)")
                .axis_desc_style((FONT, 14))
                .label_style((FONT, 12))
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_label_formatter(&|y| format::rps(*y))
                .light_line_style(WHITE)
                .draw()
                .map_err(err(NAME))?;
            for (i, runtime) in summary.runtimes.iter().enumerate() {
                let mut points: Vec<&&CellSummary> = cells
                    .iter()
                    .filter(|c| &c.runtime == runtime && group_of(&c.axes) == *group)
                    .collect();
                if points.is_empty() {
                    continue;
                }
                points.sort_by_key(|c| c.concurrency);
                let colour = colour(i);
                let band: Vec<(f64, f64)> = points
                    .iter()
                    .map(|c| (conc(c), c.rps_max.unwrap_or_default()))
                    .chain(
                        points
                            .iter()
                            .rev()
                            .map(|c| (conc(c), c.rps_min.unwrap_or_default())),
                    )
                    .collect();
                chart
                    .draw_series(std::iter::once(Polygon::new(
                        band,
                        colour.mix(0.2).filled(),
                    )))
                    .map_err(err(NAME))?;
                let line: Vec<(f64, f64)> = points
                    .iter()
                    .map(|c| (conc(c), c.rps_median.unwrap_or_default()))
                    .collect();
                chart
                    .draw_series(LineSeries::new(line.clone(), colour.stroke_width(2)))
                    .map_err(err(NAME))?;
                chart
                    .draw_series(line.into_iter().map(|p| Circle::new(p, 4, colour.filled())))
                    .map_err(err(NAME))?;
            }
        }
        root.present().map_err(err(NAME))?;
    }
    Ok(Some(Chart {
        name: NAME,
        file: format!("{NAME}.svg"),
        title,
        svg,
    }))
}

/// A chart's canvas of `size` pixels: white, `title` on top, then a legend
/// strip of `runtimes`; returns the area below the legend, for the panels.
pub(crate) fn canvas_with_legend<'a>(
    svg: &'a mut String,
    size: (u32, u32),
    title: &str,
    runtimes: &[String],
    name: &'static str,
) -> Result<DrawingArea<SVGBackend<'a>, plotters::coord::Shift>, ReportError> {
    let root = SVGBackend::with_string(svg, size).into_drawing_area();
    root.fill(&WHITE).map_err(err(name))?;
    let root = root.titled(title, (FONT, 22)).map_err(err(name))?;
    let (legend, below) = root.split_vertically(LEGEND_H);
    legend_strip(&legend, runtimes).map_err(err(name))?;
    Ok(below)
}

/// One row of "line + runtime name" entries, centred, in each runtime's colour.
pub(crate) fn legend_strip<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    runtimes: &[String],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    const SWATCH: i32 = 24;
    const GAP: i32 = 22;
    let style = TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let widths: Vec<i32> = runtimes
        .iter()
        .map(|name| {
            let (w, _) = area.estimate_text_size(name, &style).unwrap_or((0, 0));
            SWATCH + 6 + w as i32
        })
        .collect();
    let total = widths.iter().sum::<i32>() + GAP * (widths.len() as i32 - 1).max(0);
    let (width, height) = area.dim_in_pixel();
    let mut x = ((width as i32 - total) / 2).max(4);
    let y = height as i32 / 2;
    for (i, (name, w)) in runtimes.iter().zip(&widths).enumerate() {
        let c = colour(i);
        area.draw(&PathElement::new(
            vec![(x, y), (x + SWATCH, y)],
            c.stroke_width(3),
        ))?;
        area.draw(&Circle::new((x + SWATCH / 2, y), 4, c.filled()))?;
        area.draw(&Text::new(
            name.as_str(),
            (x + SWATCH + 6, y),
            style.clone(),
        ))?;
        x += w + GAP;
    }
    Ok(())
}

/// One bar panel: a value per runtime (aligned with `Summary::runtimes`).
struct BarPanel {
    caption: String,
    y_desc: &'static str,
    values: Vec<Option<f64>>,
    label: fn(f64) -> String,
}

fn bar_chart(
    name: &'static str,
    title: String,
    runtimes: &[String],
    panels: Vec<BarPanel>,
) -> Result<Option<Chart>, ReportError> {
    let panels: Vec<BarPanel> = panels
        .into_iter()
        .filter(|p| p.values.iter().any(Option::is_some))
        .collect();
    if panels.is_empty() || runtimes.is_empty() {
        return Ok(None);
    }
    let (rows, cols) = grid(panels.len());
    // Integer ranges are inclusive in plotters: 0..n-1 gives one segment per runtime.
    let last = runtimes.len() as u32 - 1;
    let mut svg = String::new();
    {
        let size = (cols as u32 * PANEL_W, rows as u32 * PANEL_H + TITLE_H);
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(err(name))?;
        let root = root.titled(&title, (FONT, 22)).map_err(err(name))?;
        for (area, panel) in root.split_evenly((rows, cols)).iter().zip(&panels) {
            let y_max = panel
                .values
                .iter()
                .flatten()
                .fold(0.0, |a: f64, b| a.max(*b))
                * 1.18;
            let mut chart = ChartBuilder::on(area)
                .caption(&panel.caption, (FONT, 17))
                .margin(14)
                .x_label_area_size(40)
                .y_label_area_size(78)
                .build_cartesian_2d(
                    (0..last).into_segmented(),
                    0f64..y_max.max(f64::MIN_POSITIVE),
                )
                .map_err(err(name))?;
            let label_of = |v: &SegmentValue<u32>| match v {
                SegmentValue::CenterOf(i) => runtimes.get(*i as usize).cloned().unwrap_or_default(),
                _ => String::new(),
            };
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(runtimes.len())
                .x_label_formatter(&label_of)
                .y_desc(panel.y_desc)
                .axis_desc_style((FONT, 14))
                .label_style((FONT, 12))
                .light_line_style(WHITE)
                .draw()
                .map_err(err(name))?;
            let data: Vec<(u32, f64)> = panel
                .values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| v.map(|v| (i as u32, v)))
                .collect();
            // Bars drawn one by one in runtime order: plotters' Histogram
            // aggregates through a HashMap, so its SVG changed order on every
            // render and a re-rendered report never matched the committed one.
            chart
                .draw_series(data.iter().map(|&(i, v)| {
                    let mut bar = Rectangle::new(
                        [
                            (SegmentValue::Exact(i), v),
                            (SegmentValue::Exact(i + 1), 0.0),
                        ],
                        colour(i as usize).filled(),
                    );
                    bar.set_margin(0, 0, 18, 18);
                    bar
                }))
                .map_err(err(name))?;
            let value_style =
                TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
            chart
                .draw_series(data.iter().map(|(i, v)| {
                    Text::new(
                        (panel.label)(*v),
                        (SegmentValue::CenterOf(*i), *v),
                        value_style.clone(),
                    )
                }))
                .map_err(err(name))?;
        }
        root.present().map_err(err(name))?;
    }
    Ok(Some(Chart {
        name,
        file: format!("{name}.svg"),
        title,
        svg,
    }))
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / 1_048_576.0
}

fn peak_value(
    summary: &Summary,
    runtime: &str,
    group: &str,
    f: fn(&crate::report::analysis::summary::PeakRow) -> Option<f64>,
) -> Option<f64> {
    summary
        .peaks
        .iter()
        .find(|p| p.runtime == runtime && p.group == group)
        .and_then(f)
}

/// Memory (idle and under load) and CPU at peak, per runtime.
pub(crate) fn resources(summary: &Summary) -> Result<Option<Chart>, ReportError> {
    let idle = startup_values(summary, |s| s.idle_rss_bytes.map(mib));
    let loaded = summary
        .runtimes
        .iter()
        .map(|rt| {
            summary
                .cells
                .iter()
                .filter(|c| &c.runtime == rt)
                .filter_map(|c| c.rss_max_bytes)
                .max()
                .map(mib)
        })
        .collect();
    let mut panels = vec![
        BarPanel {
            caption: "RSS when idle, after startup".into(),
            y_desc: "RSS (MiB)",
            values: idle,
            label: |v| format!("{v:.0} MiB"),
        },
        BarPanel {
            caption: "Max RSS under load (any cell)".into(),
            y_desc: "RSS (MiB)",
            values: loaded,
            label: |v| format!("{v:.0} MiB"),
        },
    ];
    for group in &summary.panels {
        panels.push(BarPanel {
            caption: format!("CPU used at peak, {}", panel_label(group)),
            y_desc: "service CPU (cores)",
            values: summary
                .runtimes
                .iter()
                .map(|rt| peak_value(summary, rt, group, |p| p.cpu_cores))
                .collect(),
            label: |v| format!("{v:.2}"),
        });
    }
    bar_chart(
        "resources",
        "Memory and CPU per runtime (medians of repeats)".into(),
        &summary.runtimes,
        panels,
    )
}

/// One startup figure per runtime, in the summary's runtime order.
fn startup_values(
    summary: &Summary,
    figure: impl Fn(&crate::report::analysis::summary::StartupRow) -> Option<f64>,
) -> Vec<Option<f64>> {
    summary
        .runtimes
        .iter()
        .map(|rt| {
            summary
                .startup
                .iter()
                .find(|s| &s.runtime == rt)
                .and_then(&figure)
        })
        .collect()
}

/// Startup: spawn to healthy, and spawn to first successful request.
pub(crate) fn startup(summary: &Summary) -> Result<Option<Chart>, ReportError> {
    bar_chart(
        "startup",
        "Startup time per runtime (median over service starts)".into(),
        &summary.runtimes,
        vec![
            BarPanel {
                caption: "Spawn to first healthy answer".into(),
                y_desc: "time (ms)",
                values: startup_values(summary, |s| s.startup_ms),
                label: format::ms,
            },
            BarPanel {
                caption: "Spawn to first successful request".into(),
                y_desc: "time (ms)",
                values: startup_values(summary, |s| s.first_request_ms),
                label: format::ms,
            },
        ],
    )
}
