//! One trend chart per configuration and metric (plotters' SVG backend, so
//! text stays escaped SVG `<text>`, as in `report::charts`): each run's
//! point with its 95% interval bar, each regime's mean as a horizontal
//! segment, each change point as a dashed vertical line, and the newest
//! point ringed when it regressed or improved. The x axis is the run's
//! number in the history (1 = oldest), so the two metrics of a
//! configuration line up and a run without a point leaves a gap.
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::judge::{SeriesReport, Verdict};
use super::series::Metric;
use crate::report::analysis::format;
use crate::report::error::ReportError;

const WIDTH: u32 = 600;
const HEIGHT: u32 = 300;
const FONT: &str = "sans-serif";
/// Okabe-Ito, as in `report::charts`.
const POINT: RGBColor = RGBColor(0, 114, 178); // blue
const REGIME: RGBColor = RGBColor(230, 159, 0); // orange
const CHANGE: RGBColor = RGBColor(213, 94, 0); // vermillion
const BETTER: RGBColor = RGBColor(0, 158, 115); // bluish green
const NAME: &str = "history trend";

fn err<E: std::fmt::Display>(e: E) -> ReportError {
    ReportError::Chart {
        chart: NAME,
        detail: e.to_string(),
    }
}

/// The SVG of one series over `runs` runs.
pub fn trend(series: &SeriesReport, runs: usize) -> Result<String, ReportError> {
    let points = &series.points;
    let (y_lo, y_hi) = y_range(series);
    let x_of = |i: usize| points[i].run as f64;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{} ({})", series.metric.label(), series.metric.unit()),
                (FONT, 15),
            )
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5f64..(runs.max(1) as f64 - 0.5), y_lo..y_hi)
            .map_err(err)?;
        let metric = series.metric;
        chart
            .configure_mesh()
            .x_desc("run (1 = oldest)")
            .axis_desc_style((FONT, 12))
            .label_style((FONT, 11))
            .x_labels(runs.clamp(2, 12))
            .x_label_formatter(&|x| {
                let whole = x.round();
                if (x - whole).abs() < 1e-6 && whole >= 0.0 {
                    format!("{}", whole as i64 + 1)
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|y| match metric {
                Metric::Throughput => format::rps(*y),
                Metric::P99 => format::ms(*y),
            })
            .light_line_style(WHITE)
            .draw()
            .map_err(err)?;
        chart
            .draw_series(series.regimes.iter().map(|r| {
                PathElement::new(
                    vec![
                        (x_of(r.start) - 0.35, r.mean),
                        (x_of(r.end - 1) + 0.35, r.mean),
                    ],
                    REGIME.stroke_width(3),
                )
            }))
            .map_err(err)?;
        chart
            .draw_series(series.change_points.iter().map(|c| {
                let x = (x_of(c.at.index - 1) + x_of(c.at.index)) / 2.0;
                DashedPathElement::new(vec![(x, y_lo), (x, y_hi)], 6, 4, CHANGE.stroke_width(2))
            }))
            .map_err(err)?;
        let bars = points
            .iter()
            .filter_map(|p| Some((p.run as f64, p.lo?, p.hi?)));
        for (x, lo, hi) in bars {
            let style = POINT.mix(0.6).stroke_width(1);
            chart
                .draw_series([
                    PathElement::new(vec![(x, lo), (x, hi)], style),
                    PathElement::new(vec![(x - 0.12, lo), (x + 0.12, lo)], style),
                    PathElement::new(vec![(x - 0.12, hi), (x + 0.12, hi)], style),
                ])
                .map_err(err)?;
        }
        chart
            .draw_series(
                points
                    .iter()
                    .map(|p| Circle::new((p.run as f64, p.value), 4, POINT.filled())),
            )
            .map_err(err)?;
        if let Some(ring) = newest_ring(series) {
            let last = points.last().expect("a ringed series has a newest point");
            chart
                .draw_series([Circle::new(
                    (last.run as f64, last.value),
                    8,
                    ring.stroke_width(2),
                )])
                .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The colour of the ring around the newest point, if it is to have one.
fn newest_ring(series: &SeriesReport) -> Option<RGBColor> {
    match series.newest.verdict {
        Verdict::Regression => Some(CHANGE),
        Verdict::Improvement => Some(BETTER),
        _ => None,
    }
}

/// Every value, interval end and regime mean, padded by 8% of the span.
fn y_range(series: &SeriesReport) -> (f64, f64) {
    let values = series
        .points
        .iter()
        .flat_map(|p| [Some(p.value), p.lo, p.hi])
        .flatten()
        .chain(series.regimes.iter().map(|r| r.mean));
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = if hi > lo {
        (hi - lo) * 0.08
    } else {
        hi.abs() * 0.05 + 1e-9
    };
    ((lo - pad).max(0.0), hi + pad)
}
