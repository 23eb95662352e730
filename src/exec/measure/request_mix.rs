//! A cell's per-request figures (load's `per_request`) as
//! requests/<cell>.csv rows, for workloads of several requests.

use crate::load::LoadReport;
use crate::plan::Cell;
use crate::results::{REQUESTS_DIR, RequestMixRow, ResultsError, RunDir, write_csv};

/// The rows of `cell`, in workload order; empty for a single-request workload.
pub fn rows(cell: &Cell, report: &LoadReport) -> Vec<RequestMixRow> {
    if cell.requests.len() < 2 {
        return Vec::new();
    }
    let answered: u64 = report.per_request.iter().map(|f| f.ok + f.errors).sum();
    let ms = |us: u64| us as f64 / 1000.0;
    cell.requests
        .iter()
        .zip(&report.per_request)
        .map(|(request, f)| RequestMixRow {
            cell_id: cell.id.clone(),
            request: request.name.clone(),
            weight: request.weight,
            ok: f.ok,
            errors: f.errors,
            share: if answered == 0 {
                0.0
            } else {
                (f.ok + f.errors) as f64 / answered as f64
            },
            p50_ms: ms(f.latency.value_at_quantile(0.5)),
            p90_ms: ms(f.latency.value_at_quantile(0.9)),
            p99_ms: ms(f.latency.value_at_quantile(0.99)),
            max_ms: ms(f.latency.max()),
        })
        .collect()
}

/// Writes requests/<cell>.csv when the workload has several requests.
pub fn write(run: &RunDir, cell: &Cell, report: &LoadReport) -> Result<(), ResultsError> {
    let rows = rows(cell, report);
    if rows.is_empty() {
        return Ok(());
    }
    let path = run.cell_file(REQUESTS_DIR, &cell.id, "csv");
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(ResultsError::write(dir))?;
    }
    write_csv(&path, &rows)
}
