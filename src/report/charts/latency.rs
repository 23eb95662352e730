//! Latency compared at equal load, replacing "p99 at peak throughput"
//! (which put each runtime at its own peak concurrency beside the others:
//! by Little's law the one peaking at the higher concurrency looked slowest).
//!
//! - `p99-vs-concurrency`: p99 against the connection count, one line per
//!   runtime, one panel per point of the other axes: every concurrency is an equal load in
//!   closed loop.
//! - `p99-at-equal-load`: p99 against the offered rate of the `equal_load`
//!   cells (open loop, the same rates for every runtime).
//!
//! Both use a log-scale latency axis: runtimes and loads differ by orders of
//! magnitude, and a linear axis flattens every low-latency line onto zero.
use plotters::coord::combinators::BindKeyPoints;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;

use crate::report::analysis::format;
use crate::report::analysis::summary::Summary;
use crate::report::charts::draw::{
    Chart, FONT, LEGEND_H, PANEL_H, PANEL_W, TITLE_H, canvas_with_legend, colour, err, grid,
    panel_label,
};
use crate::report::error::ReportError;
use crate::results::rows::derived_rates::group_of;

/// One line of one panel: a runtime's (x, p99 ms) points, sorted by x.
struct Line {
    runtime: usize,
    points: Vec<(f64, f64)>,
}

struct Panel {
    caption: String,
    lines: Vec<Line>,
}

/// The x axis of a latency chart.
struct XAxis {
    desc: &'static str,
    log: bool,
    label: fn(f64) -> String,
}

/// p99 against concurrency, closed-loop cells only.
pub fn p99_vs_concurrency(summary: &Summary) -> Result<Option<Chart>, ReportError> {
    let panels = summary
        .panels
        .iter()
        .map(|group| Panel {
            caption: panel_label(group),
            lines: lines(summary, |rt| {
                summary
                    .cells
                    .iter()
                    .filter(|c| &c.runtime == rt && group_of(&c.axes) == *group)
                    .filter_map(|c| Some((c.concurrency.filter(|v| *v > 0)? as f64, c.p99_ms?)))
                    .collect()
            }),
        })
        .collect();
    line_chart(
        "p99-vs-concurrency",
        "p99 latency vs concurrency (median of repeats; log scales)".into(),
        summary,
        panels,
        XAxis {
            desc: "concurrency (connections, log scale)",
            log: true,
            label: |x| format!("{x:.0}"),
        },
    )
}

/// p99 against the offered rate of the `equal_load` cells.
pub fn p99_at_equal_load(summary: &Summary) -> Result<Option<Chart>, ReportError> {
    let panels = summary
        .equal_load
        .iter()
        .map(|g| Panel {
            caption: match (&g.slowest, g.base_rps) {
                (Some(slowest), Some(base)) => format!(
                    "{} (rates: fractions of {slowest}'s peak, {} req/s)",
                    panel_label(&g.group),
                    format::rps(base)
                ),
                _ => panel_label(&g.group),
            },
            lines: lines(summary, |rt| {
                let i = summary.runtimes.iter().position(|r| r == rt);
                g.rows
                    .iter()
                    .filter_map(|row| Some((row.rate?, row.p99_ms.get(i?).copied().flatten()?)))
                    .collect()
            }),
        })
        .collect();
    line_chart(
        "p99-at-equal-load",
        "p99 latency at equal offered load (open loop, the same rates for every runtime)".into(),
        summary,
        panels,
        XAxis {
            desc: "offered load (req/s)",
            log: false,
            label: format::rps,
        },
    )
}

/// One line per runtime that has points, in the summary's runtime order.
fn lines(summary: &Summary, points: impl Fn(&String) -> Vec<(f64, f64)>) -> Vec<Line> {
    summary
        .runtimes
        .iter()
        .enumerate()
        .filter_map(|(runtime, rt)| {
            let mut points: Vec<(f64, f64)> =
                points(rt).into_iter().filter(|(_, y)| *y > 0.0).collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            (!points.is_empty()).then_some(Line { runtime, points })
        })
        .collect()
}

fn line_chart(
    name: &'static str,
    title: String,
    summary: &Summary,
    panels: Vec<Panel>,
    x: XAxis,
) -> Result<Option<Chart>, ReportError> {
    let panels: Vec<Panel> = panels.into_iter().filter(|p| !p.lines.is_empty()).collect();
    if panels.is_empty() {
        return Ok(None);
    }
    let (rows, cols) = grid(panels.len());
    let mut svg = String::new();
    {
        let size = (
            cols as u32 * PANEL_W,
            rows as u32 * PANEL_H + TITLE_H + LEGEND_H,
        );
        let root = canvas_with_legend(&mut svg, size, &title, &summary.runtimes, name)?;
        for (area, panel) in root.split_evenly((rows, cols)).iter().zip(&panels) {
            let all = || panel.lines.iter().flat_map(|l| l.points.iter());
            let (x_lo, x_hi) = all().fold((f64::INFINITY, 0f64), |(lo, hi), p| {
                (lo.min(p.0), hi.max(p.0))
            });
            let (y_lo, y_hi) = all().fold((f64::INFINITY, 0f64), |(lo, hi), p| {
                (lo.min(p.1), hi.max(p.1))
            });
            // Room around the points: a factor on log scales, a margin on linear ones.
            let (y_lo, y_hi) = (y_lo / 1.6, y_hi * 1.6);
            let y_range = || {
                (y_lo..y_hi)
                    .log_scale()
                    .with_key_points(one_two_five(y_lo, y_hi))
            };
            let mut chart = ChartBuilder::on(area);
            chart
                .caption(&panel.caption, (FONT, 16))
                .margin(14)
                .x_label_area_size(48)
                .y_label_area_size(78);
            if x.log {
                let mut c = chart
                    .build_cartesian_2d(((x_lo / 1.4)..(x_hi * 1.4)).log_scale(), y_range())
                    .map_err(err(name))?;
                draw(&mut c, panel, &x, name)?;
            } else {
                let pad = ((x_hi - x_lo) * 0.08).max(x_hi * 0.05).max(1.0);
                let mut c = chart
                    .build_cartesian_2d((x_lo - pad).max(0.0)..(x_hi + pad), y_range())
                    .map_err(err(name))?;
                draw(&mut c, panel, &x, name)?;
            }
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

/// Labels at 1, 2 and 5 of every decade inside `lo..hi`: a log axis
/// labelled only at powers of ten says nothing inside a single decade.
fn one_two_five(lo: f64, hi: f64) -> Vec<f64> {
    let mut out = Vec::new();
    let mut decade = 10f64.powf(lo.log10().floor());
    while decade <= hi {
        for m in [1.0, 2.0, 5.0] {
            let v = decade * m;
            if v >= lo && v <= hi {
                out.push(v);
            }
        }
        decade *= 10.0;
    }
    out
}

fn draw<'a, DB, X, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    panel: &Panel,
    x: &XAxis,
    name: &'static str,
) -> Result<(), ReportError>
where
    DB: DrawingBackend + 'a,
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .x_desc(x.desc)
        .y_desc("p99 latency (ms, log scale)")
        .axis_desc_style((FONT, 14))
        .label_style((FONT, 12))
        .x_label_formatter(&|v| (x.label)(*v))
        .y_label_formatter(&|v| format::ms(*v))
        .light_line_style(WHITE)
        .draw()
        .map_err(err(name))?;
    for line in &panel.lines {
        let c = colour(line.runtime);
        chart
            .draw_series(LineSeries::new(line.points.clone(), c.stroke_width(2)))
            .map_err(err(name))?;
        chart
            .draw_series(line.points.iter().map(|p| Circle::new(*p, 4, c.filled())))
            .map_err(err(name))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_labels_fall_on_one_two_five() {
        assert_eq!(one_two_five(3.0, 60.0), [5.0, 10.0, 20.0, 50.0]);
        assert_eq!(one_two_five(0.15, 0.4), [0.2]);
    }
}
