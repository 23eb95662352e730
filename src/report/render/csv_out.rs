//! The summary CSVs written into the run directory, for spreadsheets and
//! other tools (the templates get the same tables as context).
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::report::analysis::summary::{Pivot, Summary};
use crate::report::error::ReportError;

pub const SUMMARY_FILE: &str = "summary-by-cell.csv";
pub const PEAK_FILE: &str = "peak-throughput.csv";
pub const PIVOT_FILE: &str = "throughput-pivot.csv";
pub const WINS_FILE: &str = "wins.csv";
pub const PAIRS_FILE: &str = "pairs.csv";
pub const EFFICIENCY_PAIRS_FILE: &str = "efficiency-pairs.csv";

/// Writes every table; returns the files written.
pub fn write_all(dir: &Path, summary: &Summary) -> Result<Vec<PathBuf>, ReportError> {
    Ok(vec![
        write_rows(&dir.join(SUMMARY_FILE), &summary.cells)?,
        write_rows(&dir.join(PEAK_FILE), &summary.peaks)?,
        write_pivot(&dir.join(PIVOT_FILE), &summary.pivot)?,
        write_rows(&dir.join(WINS_FILE), &summary.wins)?,
        write_rows(
            &dir.join(PAIRS_FILE),
            &summary
                .pairs
                .iter()
                .flat_map(|p| p.records())
                .collect::<Vec<_>>(),
        )?,
        write_rows(&dir.join(EFFICIENCY_PAIRS_FILE), &summary.efficiency_pairs)?,
    ])
}

fn write_error(path: &Path) -> impl Fn(csv::Error) -> ReportError + '_ {
    move |e| ReportError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    }
}

fn write_rows<T: Serialize>(path: &Path, rows: &[T]) -> Result<PathBuf, ReportError> {
    let mut w = csv::Writer::from_path(path).map_err(write_error(path))?;
    for row in rows {
        w.serialize(row).map_err(write_error(path))?;
    }
    w.flush().map_err(|source| ReportError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(path.to_path_buf())
}

/// `payload,concurrency,axes,<runtime>...`: median req/s, empty where not measured.
fn write_pivot(path: &Path, pivot: &Pivot) -> Result<PathBuf, ReportError> {
    let mut w = csv::Writer::from_path(path).map_err(write_error(path))?;
    let mut header = vec!["payload".to_string(), "concurrency".into(), "axes".into()];
    header.extend(pivot.runtimes.iter().cloned());
    w.write_record(&header).map_err(write_error(path))?;
    let opt = |v: Option<String>| v.unwrap_or_default();
    for row in &pivot.rows {
        let mut record = vec![
            opt(row.payload.map(|p| p.to_string())),
            opt(row.concurrency.map(|c| c.to_string())),
            row.axes.clone(),
        ];
        record.extend(row.rps.iter().map(|v| opt(v.map(|v| v.to_string()))));
        w.write_record(&record).map_err(write_error(path))?;
    }
    w.flush().map_err(|source| ReportError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(path.to_path_buf())
}
