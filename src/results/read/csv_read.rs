//! The one CSV reader of the run directory, used by exec (resume,
//! configurations.csv) and by report (every table of a past run).
use std::fs::File;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

/// Why a CSV file of a run could not be read; says which file, which line
/// and, for a value that does not fit, which column.
#[derive(Debug, thiserror::Error)]
pub enum CsvReadError {
    #[error("{path}: cannot read: {source}; check the file's permissions")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path}:{line}: {detail}; the file is damaged or from another runner version: fix or remove the row, or re-run"
    )]
    Row {
        path: PathBuf,
        line: u64,
        detail: String,
    },
}

/// Reads every row of the CSV file at `path` (header first) as `T`;
/// `Ok(None)` when the file does not exist, so each caller decides whether
/// that is normal (a run that never got that far) or an error.
pub fn read_csv<T: DeserializeOwned>(path: &Path) -> Result<Option<Vec<T>>, CsvReadError> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(CsvReadError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    rows_of(path, file).map(Some)
}

/// Reads every row of a CSV text (header first) as `T`; `path` names it in
/// errors. For a run's files kept elsewhere than its folder (a results store).
pub fn read_csv_text<T: DeserializeOwned>(path: &Path, text: &str) -> Result<Vec<T>, CsvReadError> {
    rows_of(path, text.as_bytes())
}

/// Columns are matched by their header name, so a file with columns added,
/// dropped (optional ones) or reordered reads the same.
fn rows_of<T: DeserializeOwned, R: std::io::Read>(
    path: &Path,
    input: R,
) -> Result<Vec<T>, CsvReadError> {
    let mut reader = csv::Reader::from_reader(input);
    let headers = reader.headers().cloned().unwrap_or_default();
    let mut rows = Vec::new();
    for record in reader.deserialize() {
        rows.push(record.map_err(|e| row_error(path, &headers, e))?);
    }
    Ok(rows)
}

fn row_error(path: &Path, headers: &csv::StringRecord, e: csv::Error) -> CsvReadError {
    if let csv::ErrorKind::Io(_) = e.kind() {
        let csv::ErrorKind::Io(source) = e.into_kind() else {
            unreachable!("checked just above")
        };
        return CsvReadError::Io {
            path: path.to_path_buf(),
            source,
        };
    }
    // Name the column: "field 21" alone sends the reader counting commas.
    let column = match e.kind() {
        csv::ErrorKind::Deserialize { err, .. } => err
            .field()
            .and_then(|i| headers.get(i as usize))
            .map(|name| format!("column `{name}`: {}", err.kind())),
        _ => None,
    };
    CsvReadError::Row {
        path: path.to_path_buf(),
        line: e.position().map(|p| p.line()).unwrap_or(0),
        detail: column.unwrap_or_else(|| e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::TimelineRow;

    #[test]
    fn a_missing_file_is_none_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let rows = read_csv::<TimelineRow>(&dir.path().join("absent.csv")).unwrap();
        assert!(rows.is_none());
    }

    #[test]
    fn reads_every_row() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        std::fs::write(
            &path,
            "second,requests,errors,p50_ms,p99_ms\n0,10,0,1.5,2.0\n1,12,1,1.5,3.0\n",
        )
        .unwrap();
        let rows = read_csv::<TimelineRow>(&path).unwrap().unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[1].second, rows[1].ok), (1, 12));
    }

    #[test]
    fn a_bad_value_is_named_by_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        std::fs::write(
            &path,
            "second,requests,errors,p50_ms,p99_ms\n0,10,0,1.5,2.0\n1,12,1,fast,3.0\n",
        )
        .unwrap();
        let err = read_csv::<TimelineRow>(&path).unwrap_err().to_string();
        assert!(
            err.contains("t.csv:3: column `p50_ms`: invalid float literal"),
            "{err}"
        );
    }
}
