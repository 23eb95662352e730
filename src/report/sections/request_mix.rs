//! What a report says about a weighted request mix: per configuration, the
//! cell's totals and beside them each workload request's share, errors and
//! latency (requests/<cell>.csv). Empty when no workload had several
//! requests, so other reports are unchanged.
use serde::Serialize;

use crate::report::error::ReportError;
use crate::results::read::run_data::RunData;
use crate::results::{
    CellStatus, REQUESTS_DIR, RequestMixRow, cell_file_stem, model::MeasurementRow, read_csv,
};
use crate::stats::spread::median;

/// The template variable `request_mix` (docs/templates.md): one entry per
/// configuration with per-request rows, in measurement order.
#[derive(Debug, Clone, Serialize, Default)]
pub struct RequestMixView {
    pub configurations: Vec<MixConfiguration>,
}

/// One configuration's totals and its requests.
#[derive(Debug, Clone, Serialize)]
pub struct MixConfiguration {
    pub config_id: String,
    /// The configuration's cells together (every recorded repeat but failed ones).
    pub total: MixFigures,
    pub requests: Vec<MixRequest>,
}

/// One request of the mix, over the configuration's repeats.
#[derive(Debug, Clone, Serialize)]
pub struct MixRequest {
    pub name: String,
    pub weight: Option<f64>,
    pub figures: MixFigures,
}

/// Counts summed over the repeats; latencies the median of the repeats'.
#[derive(Debug, Clone, Serialize, Default)]
pub struct MixFigures {
    pub ok: u64,
    pub errors: u64,
    /// Part of the configuration's answers (1 for the total).
    pub share: f64,
    /// errors / (ok + errors).
    pub error_rate: f64,
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
}

impl RequestMixView {
    /// The report context `ctx` with this view as its `request_mix`.
    pub fn of(run: &RunData) -> Result<Self, ReportError> {
        let mut gathered: Vec<Gathered> = Vec::new();
        for m in run
            .measurements
            .iter()
            .filter(|m| m.status != CellStatus::Failed)
        {
            let path = run
                .dir
                .join(REQUESTS_DIR)
                .join(format!("{}.csv", cell_file_stem(&m.cell_id)));
            let Some(rows) = read_csv::<RequestMixRow>(&path)? else {
                continue;
            };
            match gathered.iter_mut().find(|g| g.config_id == m.config_id) {
                Some(g) => {
                    g.cells.push(m);
                    g.files.push(rows);
                }
                None => gathered.push(Gathered {
                    config_id: &m.config_id,
                    cells: vec![m],
                    files: vec![rows],
                }),
            }
        }
        let configurations = gathered
            .into_iter()
            .map(|g| {
                let answered: u64 = g.cells.iter().map(|m| m.ok + m.errors).sum();
                MixConfiguration {
                    config_id: g.config_id.to_owned(),
                    total: figures(
                        g.cells
                            .iter()
                            .map(|m| (m.ok, m.errors, m.latency_p50_ms, m.latency_p99_ms)),
                        answered,
                    ),
                    requests: requests(&g.files, answered),
                }
            })
            .collect();
        Ok(RequestMixView { configurations })
    }
}

/// One configuration's recorded cells and their requests/<cell>.csv rows.
struct Gathered<'a> {
    config_id: &'a str,
    cells: Vec<&'a MeasurementRow>,
    files: Vec<Vec<RequestMixRow>>,
}

/// Each request (by name, in the first cell's order) over every cell's file.
fn requests(files: &[Vec<RequestMixRow>], answered: u64) -> Vec<MixRequest> {
    let Some(first) = files.first() else {
        return Vec::new();
    };
    first
        .iter()
        .map(|r| {
            let rows = files.iter().flatten().filter(|x| x.request == r.request);
            MixRequest {
                name: r.request.clone(),
                weight: r.weight,
                figures: figures(rows.map(|x| (x.ok, x.errors, x.p50_ms, x.p99_ms)), answered),
            }
        })
        .collect()
}

/// Sums `(ok, errors)` and takes the median of the `(p50, p99)` of the
/// repeats that had a successful answer; `answered` is the share's whole.
fn figures(cells: impl Iterator<Item = (u64, u64, f64, f64)>, answered: u64) -> MixFigures {
    let (mut ok, mut errors, mut p50, mut p99) = (0, 0, Vec::new(), Vec::new());
    for (o, e, a, b) in cells {
        ok += o;
        errors += e;
        if o > 0 {
            p50.push(a);
            p99.push(b);
        }
    }
    let ratio = |part: u64, whole: u64| {
        if whole == 0 {
            0.0
        } else {
            part as f64 / whole as f64
        }
    };
    MixFigures {
        ok,
        errors,
        share: ratio(ok + errors, answered),
        error_rate: ratio(errors, ok + errors),
        p50_ms: median(&p50),
        p99_ms: median(&p99),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_over_repeats_and_latency_is_the_median_repeat() {
        let got = figures(
            [(90, 10, 1.0, 5.0), (0, 4, 0.0, 0.0), (110, 0, 3.0, 9.0)].into_iter(),
            400,
        );
        assert_eq!((got.ok, got.errors), (200, 14));
        assert!((got.share - 214.0 / 400.0).abs() < 1e-9);
        assert!((got.error_rate - 14.0 / 214.0).abs() < 1e-9);
        // The repeat without a success has no latency to count.
        assert_eq!((got.p50_ms, got.p99_ms), (Some(2.0), Some(7.0)));
    }
}
