//! The memory phases (`memory-phases.csv`): per runtime, its memory idle and
//! right after the declared load over its fresh processes, as a median with
//! the range of the processes, the ratio to the runtime with the least, and
//! the `memory-phases` chart (idle against after-load bars, whiskers from
//! the lowest to the highest process).
use plotters::prelude::*;
use serde::Serialize;

use crate::report::analysis::format;
use crate::report::charts::draw::{
    Chart, FONT, LEGEND_H, PANEL_H, PANEL_W, TITLE_H, canvas_with_legend, colour, err,
};
use crate::report::error::ReportError;
use crate::results::read::run_data::RunData;
use crate::results::{MEMORY_PHASES_FILE, MemoryPhaseRow, MemoryPhaseStatus, read_csv};

/// A figure over a runtime's processes: median, lowest, highest, how many.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub n: usize,
    /// (max - min) / median: how far apart the fresh processes were.
    pub relative_range: f64,
}

impl Spread {
    /// `None` without any value.
    pub fn of(values: impl IntoIterator<Item = u64>) -> Option<Spread> {
        let mut v: Vec<f64> = values.into_iter().map(|b| b as f64).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        let (min, max) = (v[0], v[n - 1]);
        Some(Spread {
            median,
            min,
            max,
            n,
            relative_range: if median > 0.0 {
                (max - min) / median
            } else {
                0.0
            },
        })
    }
}

/// One runtime's memory phases, as the templates see it.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryRuntimeView {
    pub runtime: String,
    /// Processes that went through every phase / that failed.
    pub ok: usize,
    pub failed: usize,
    /// Processes of the service (a cluster's primary and workers), most seen.
    pub service_processes: u32,
    pub idle_rss: Option<Spread>,
    pub after_rss: Option<Spread>,
    pub idle_pss: Option<Spread>,
    pub after_pss: Option<Spread>,
    pub idle_cgroup: Option<Spread>,
    pub after_cgroup: Option<Spread>,
    /// Median after-load RSS / PSS over the lowest runtime's.
    pub after_rss_ratio: Option<f64>,
    pub after_pss_ratio: Option<f64>,
    pub idle_rss_ratio: Option<f64>,
    /// Requests the load completed per process (median).
    pub requests_ok: Option<Spread>,
    /// The failed processes' reasons, `; `-joined.
    pub reasons: String,
}

/// Every runtime's memory phases; `None` when the run has none.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryView {
    pub connections: u32,
    pub load_seconds: f64,
    pub runtimes: Vec<MemoryRuntimeView>,
    /// The runtime the ratios divide by (least after-load RSS).
    pub lowest: String,
}

/// Reads memory-phases.csv of `run`.
pub fn view(run: &RunData) -> Result<Option<MemoryView>, ReportError> {
    let rows: Vec<MemoryPhaseRow> =
        read_csv(&run.dir.join(MEMORY_PHASES_FILE))?.unwrap_or_default();
    Ok(view_of(&rows))
}

/// The view of `rows`, runtimes in the order they first appear.
pub fn view_of(rows: &[MemoryPhaseRow]) -> Option<MemoryView> {
    let first = rows.first()?;
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.runtime.as_str()) {
            names.push(&r.runtime);
        }
    }
    let mut runtimes: Vec<MemoryRuntimeView> = names
        .iter()
        .map(|name| {
            let mine: Vec<&MemoryPhaseRow> = rows.iter().filter(|r| r.runtime == *name).collect();
            let ok: Vec<&MemoryPhaseRow> = mine
                .iter()
                .copied()
                .filter(|r| r.status == MemoryPhaseStatus::Ok)
                .collect();
            let spread =
                |f: fn(&MemoryPhaseRow) -> Option<u64>| Spread::of(ok.iter().filter_map(|r| f(r)));
            MemoryRuntimeView {
                runtime: (*name).to_string(),
                ok: ok.len(),
                failed: mine.len() - ok.len(),
                service_processes: ok.iter().map(|r| r.processes).max().unwrap_or(0),
                idle_rss: spread(|r| r.idle_rss_bytes),
                after_rss: spread(|r| r.after_rss_bytes),
                idle_pss: spread(|r| r.idle_pss_bytes),
                after_pss: spread(|r| r.after_pss_bytes),
                idle_cgroup: spread(|r| r.idle_cgroup_bytes),
                after_cgroup: spread(|r| r.after_cgroup_bytes),
                after_rss_ratio: None,
                after_pss_ratio: None,
                idle_rss_ratio: None,
                requests_ok: spread(|r| Some(r.requests_ok)),
                reasons: mine
                    .iter()
                    .filter(|r| r.status == MemoryPhaseStatus::Failed)
                    .map(|r| r.reason.as_str())
                    .collect::<Vec<_>>()
                    .join("; "),
            }
        })
        .collect();
    let lowest = runtimes
        .iter()
        .filter_map(|r| r.after_rss.map(|s| (r, s.median)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(r, _)| (r.runtime.clone(), r.idle_rss, r.after_rss, r.after_pss));
    let lowest_name = lowest.as_ref().map_or_else(String::new, |l| l.0.clone());
    if let Some((_, idle, after, pss)) = lowest {
        let ratio = |a: Option<Spread>, b: Option<Spread>| match (a, b) {
            (Some(a), Some(b)) if b.median > 0.0 => Some(a.median / b.median),
            _ => None,
        };
        for r in &mut runtimes {
            r.after_rss_ratio = ratio(r.after_rss, after);
            r.after_pss_ratio = ratio(r.after_pss, pss);
            r.idle_rss_ratio = ratio(r.idle_rss, idle);
        }
    }
    Some(MemoryView {
        connections: first.connections,
        load_seconds: first.load_seconds,
        runtimes,
        lowest: lowest_name,
    })
}

const NAME: &str = "memory-phases";

/// Idle against after-load RSS per runtime (median bars, min-max whiskers);
/// `None` without memory phases.
pub fn chart(view: Option<&MemoryView>, runtimes: &[String]) -> Result<Option<Chart>, ReportError> {
    let Some(view) = view else {
        return Ok(None);
    };
    let bars: Vec<(usize, &MemoryRuntimeView, Spread, Spread)> = view
        .runtimes
        .iter()
        .enumerate()
        .filter_map(|(i, r)| Some((i, r, r.idle_rss?, r.after_rss?)))
        .collect();
    if bars.is_empty() {
        return Ok(None);
    }
    let mib = |b: f64| b / 1_048_576.0;
    let top = bars.iter().map(|b| mib(b.3.max)).fold(0.0, f64::max) * 1.15;
    let title = format!(
        "Memory idle (light) and right after {} connections for {:.0} s (RSS over all processes; median of {} fresh processes, whiskers min-max)",
        view.connections,
        view.load_seconds,
        bars.iter().map(|b| b.2.n).max().unwrap_or(0)
    );
    let mut svg = String::new();
    {
        let size = (PANEL_W * 2, PANEL_H + TITLE_H + LEGEND_H);
        let area = canvas_with_legend(&mut svg, size, &title, runtimes, NAME)?;
        let mut chart = ChartBuilder::on(&area)
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(78)
            .build_cartesian_2d(-0.5f64..(bars.len() as f64 - 0.5), 0f64..top)
            .map_err(err(NAME))?;
        let labels: Vec<String> = bars.iter().map(|b| b.1.runtime.clone()).collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(bars.len())
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 0.01 && i >= 0.0 {
                    labels.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_desc("MiB (RSS summed over the service's processes)")
            .axis_desc_style((FONT, 14))
            .label_style((FONT, 12))
            .light_line_style(WHITE)
            .draw()
            .map_err(err(NAME))?;
        for (slot, (_, r, idle, after)) in bars.iter().enumerate() {
            let c = colour(
                runtimes
                    .iter()
                    .position(|n| *n == r.runtime)
                    .unwrap_or(slot),
            );
            let x = slot as f64;
            for (spread, left, style) in [
                (idle, x - 0.36, c.mix(0.35).filled()),
                (after, x + 0.02, c.filled()),
            ] {
                let right = left + 0.34;
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(left, 0.0), (right, mib(spread.median))],
                        style,
                    )))
                    .map_err(err(NAME))?;
                let mid = (left + right) / 2.0;
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(mid, mib(spread.min)), (mid, mib(spread.max))],
                        BLACK.stroke_width(2),
                    )))
                    .map_err(err(NAME))?;
                chart
                    .draw_series(std::iter::once(Text::new(
                        format::bytes(spread.median),
                        (left, mib(spread.max) + top * 0.02),
                        (FONT, 12).into_font(),
                    )))
                    .map_err(err(NAME))?;
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn row(runtime: &str, process: u32, idle: u64, after: u64) -> MemoryPhaseRow {
        MemoryPhaseRow {
            runtime: runtime.into(),
            process,
            status: MemoryPhaseStatus::Ok,
            processes: 1,
            idle_rss_bytes: Some(idle),
            idle_pss_bytes: Some(idle - 1),
            idle_cgroup_bytes: None,
            after_rss_bytes: Some(after),
            after_pss_bytes: Some(after - 1),
            after_cgroup_bytes: None,
            connections: 300,
            load_seconds: 15.0,
            requests_ok: 100,
            errors: 0,
            reason: String::new(),
        }
    }

    #[test]
    fn spread_is_median_min_max_over_the_processes() {
        let s = Spread::of([30, 10, 20]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.n), (20.0, 10.0, 30.0, 3));
        assert_eq!(s.relative_range, 1.0);
        assert_eq!(Spread::of([10, 20]).unwrap().median, 15.0);
        assert!(Spread::of([]).is_none());
    }

    #[test]
    fn ratios_divide_by_the_runtime_with_the_least_after_load_memory() {
        let mut rows = vec![
            row("node", 1, 49, 84),
            row("go", 1, 13, 32),
            row("go", 2, 13, 30),
            row("go", 3, 14, 34),
        ];
        let mut failed = row("node", 2, 50, 90);
        failed.status = MemoryPhaseStatus::Failed;
        failed.reason = "died".into();
        rows.push(failed);
        let view = view_of(&rows).unwrap();
        assert_eq!(view.lowest, "go");
        let node = &view.runtimes[0];
        assert_eq!(
            (node.ok, node.failed, node.reasons.as_str()),
            (1, 1, "died")
        );
        assert_eq!(node.after_rss_ratio, Some(84.0 / 32.0));
        assert_eq!(node.idle_rss_ratio, Some(49.0 / 13.0));
        assert_eq!(view.runtimes[1].after_rss_ratio, Some(1.0));
        let chart = chart(Some(&view), &["go".into(), "node".into()])
            .unwrap()
            .unwrap();
        assert!(chart.svg.contains("<svg") && chart.svg.contains("node"));
    }

    #[test]
    fn no_rows_no_view_and_no_chart() {
        assert!(view_of(&[]).is_none());
        assert!(chart(None, &[]).unwrap().is_none());
    }
}
