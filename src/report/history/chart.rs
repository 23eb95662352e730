//! One trend chart per configuration and metric (plotters' SVG backend, so
//! text stays escaped SVG `<text>`, as in `report::charts`): each run's
//! point with its 95% interval bar, each regime's mean as a horizontal
//! segment, each change point as a dashed vertical line, and the newest
//! point ringed when it regressed or improved. The x axis is the run's
//! start date (status.json's `started_at`), so a week without runs reads
//! as a week and the two metrics of a configuration line up; a run without
//! a point leaves a gap. A regime's segment is drawn only over the runs it
//! was fitted on: the last regime over the newest run's baseline, not over
//! the newest run or the runs left out of the baseline (hollow points,
//! named under the chart's title).
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::judge::{SeriesReport, Verdict};
use super::runs::RunRef;
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

/// Where each run sits on the x axis: days since the oldest run's start,
/// and how to label a position. A history whose start times do not all
/// parse (a hand-edited status.json) falls back to one day per run,
/// labelled by run number.
pub struct TimeAxis {
    days: Vec<f64>,
    first: Option<time::OffsetDateTime>,
}

impl TimeAxis {
    pub fn of(runs: &[RunRef]) -> Self {
        let rfc3339 = &time::format_description::well_known::Rfc3339;
        let parsed: Option<Vec<time::OffsetDateTime>> = runs
            .iter()
            .map(|r| time::OffsetDateTime::parse(&r.started_at, rfc3339).ok())
            .collect();
        match parsed.filter(|t| !t.is_empty()) {
            Some(times) => {
                let first = times[0];
                TimeAxis {
                    days: times
                        .iter()
                        .map(|t| (*t - first).as_seconds_f64() / 86_400.0)
                        .collect(),
                    first: Some(first),
                }
            }
            None => TimeAxis {
                days: (0..runs.len()).map(|i| i as f64).collect(),
                first: None,
            },
        }
    }

    fn x(&self, run: usize) -> f64 {
        self.days.get(run).copied().unwrap_or(run as f64)
    }

    /// The span of the axis, padded by half a typical gap between runs.
    fn range(&self) -> (f64, f64, f64) {
        let lo = self.days.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = self.days.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 0.0) };
        let step = if hi > lo {
            (hi - lo) / (self.days.len().max(2) - 1) as f64
        } else {
            1.0
        };
        (lo - step / 2.0, hi + step / 2.0, step)
    }

    /// `12-01` (month-day) for a history of days or more; `12-01 02:00`
    /// when it spans under three days; `run N` without parsed dates.
    fn label(&self, x: f64, span: f64) -> String {
        let Some(first) = self.first else {
            let whole = x.round();
            return if (x - whole).abs() < 1e-6 && whole >= 0.0 {
                format!("run {}", whole as i64 + 1)
            } else {
                String::new()
            };
        };
        let at = first + time::Duration::seconds_f64(x * 86_400.0);
        let format = if span < 3.0 {
            time::macros::format_description!("[month]-[day] [hour]:[minute]")
        } else {
            time::macros::format_description!("[month]-[day]")
        };
        at.format(format).unwrap_or_default()
    }
}

/// The SVG of one series, its runs placed by `axis`.
pub fn trend(series: &SeriesReport, axis: &TimeAxis) -> Result<String, ReportError> {
    let points = &series.points;
    let (y_lo, y_hi) = y_range(series);
    let (x_lo, x_hi, step) = axis.range();
    let x_of = |i: usize| axis.x(points[i].run);
    let left_out = left_out_of_baseline(series);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let unit = if series.ratio {
            "candidate / control"
        } else {
            series.metric.unit()
        };
        let mut title = format!("{} ({unit})", series.metric.label());
        if !left_out.is_empty() {
            let runs: Vec<String> = left_out
                .iter()
                .map(|&i| (points[i].run + 1).to_string())
                .collect();
            title.push_str(&format!(
                "; run {} (hollow) left out of the baseline",
                runs.join(", ")
            ));
        }
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 14))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)
            .map_err(err)?;
        let metric = series.metric;
        let span = x_hi - x_lo;
        chart
            .configure_mesh()
            .x_desc(if axis.first.is_some() {
                "run started (UTC)"
            } else {
                "run (1 = oldest)"
            })
            .axis_desc_style((FONT, 12))
            .label_style((FONT, 11))
            .x_labels(axis.days.len().clamp(2, 8))
            .x_label_formatter(&|x| axis.label(*x, span))
            .y_label_formatter(&|y| match metric {
                _ if series.ratio => format!("{y:.2}x"),
                Metric::Throughput => format::rps(*y),
                Metric::P99 => format::ms(*y),
            })
            .light_line_style(WHITE)
            .draw()
            .map_err(err)?;
        chart
            .draw_series(
                fitted_regimes(series)
                    .into_iter()
                    .map(|(start, end, mean)| {
                        PathElement::new(
                            vec![
                                (x_of(start) - 0.35 * step, mean),
                                (x_of(end - 1) + 0.35 * step, mean),
                            ],
                            REGIME.stroke_width(3),
                        )
                    }),
            )
            .map_err(err)?;
        chart
            .draw_series(series.change_points.iter().map(|c| {
                let x = (x_of(c.at.index - 1) + x_of(c.at.index)) / 2.0;
                DashedPathElement::new(vec![(x, y_lo), (x, y_hi)], 6, 4, CHANGE.stroke_width(2))
            }))
            .map_err(err)?;
        let bars = points
            .iter()
            .filter_map(|p| Some((axis.x(p.run), p.lo?, p.hi?)));
        let tick = 0.12 * step;
        for (x, lo, hi) in bars {
            let style = POINT.mix(0.6).stroke_width(1);
            chart
                .draw_series([
                    PathElement::new(vec![(x, lo), (x, hi)], style),
                    PathElement::new(vec![(x - tick, lo), (x + tick, lo)], style),
                    PathElement::new(vec![(x - tick, hi), (x + tick, hi)], style),
                ])
                .map_err(err)?;
        }
        chart
            .draw_series(points.iter().enumerate().map(|(i, p)| {
                let style = if left_out.contains(&i) {
                    POINT.stroke_width(2)
                } else {
                    POINT.filled()
                };
                Circle::new((axis.x(p.run), p.value), 4, style)
            }))
            .map_err(err)?;
        if let Some(ring) = newest_ring(series) {
            let last = points.last().expect("a ringed series has a newest point");
            chart
                .draw_series([Circle::new(
                    (axis.x(last.run), last.value),
                    8,
                    ring.stroke_width(2),
                )])
                .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The regimes as drawn, `(start, end, mean)` over point indices: each as
/// the detector fitted it, except the newest run's regime, which is drawn
/// over its baseline only (the runs the newest run was judged against)
/// with the baseline's level (the geometric mean of their points): the
/// detector's last regime also holds the newest run and the runs left out
/// of the baseline, and a line through a regressed run would show a level
/// that run was never judged against.
fn fitted_regimes(series: &SeriesReport) -> Vec<(usize, usize, f64)> {
    let points = &series.points;
    let baseline: Vec<usize> = (0..points.len())
        .filter(|&i| series.newest.baseline_runs.contains(&points[i].run))
        .collect();
    let mut out = Vec::new();
    for r in &series.regimes {
        let holds_newest = r.end == points.len();
        if !holds_newest {
            out.push((r.start, r.end, r.mean));
            continue;
        }
        let fitted: Vec<usize> = baseline
            .iter()
            .copied()
            .filter(|i| (r.start..r.end).contains(i))
            .collect();
        match (fitted.first(), fitted.last()) {
            (Some(&first), Some(&last)) => {
                let log_mean =
                    fitted.iter().map(|&i| points[i].value.ln()).sum::<f64>() / fitted.len() as f64;
                out.push((first, last + 1, log_mean.exp()));
            }
            // A confirmed new regime: the baseline is the regime before, and
            // this one is drawn as fitted, on its own runs.
            _ => out.push((r.start, r.end, r.mean)),
        }
    }
    out
}

/// Points (indices) of the newest run's regime that are neither in its
/// baseline nor the newest run: left out of the baseline because they may
/// open a new regime (docs/history.md), said on the chart. None when the
/// baseline is the regime before (a confirmed change).
fn left_out_of_baseline(series: &SeriesReport) -> Vec<usize> {
    let points = &series.points;
    let (Some(last), Some(regime)) = (points.len().checked_sub(1), series.regimes.last()) else {
        return Vec::new();
    };
    let baseline = &series.newest.baseline_runs;
    let in_regime = |i: &usize| (regime.start..regime.end).contains(i);
    if !(0..points.len()).any(|i| in_regime(&i) && baseline.contains(&points[i].run)) {
        return Vec::new();
    }
    (regime.start..last)
        .filter(|&i| !series.newest.baseline_runs.contains(&points[i].run))
        .collect()
}

/// The colour of the ring around the newest point, if it is to have one.
fn newest_ring(series: &SeriesReport) -> Option<RGBColor> {
    match series.newest.verdict {
        Verdict::Regression => Some(CHANGE),
        Verdict::Improvement => Some(BETTER),
        _ => None,
    }
}

/// Every value, interval end and drawn regime mean, padded by 8% of the span.
fn y_range(series: &SeriesReport) -> (f64, f64) {
    let values = series
        .points
        .iter()
        .flat_map(|p| [Some(p.value), p.lo, p.hi])
        .flatten()
        .chain(fitted_regimes(series).into_iter().map(|r| r.2));
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
