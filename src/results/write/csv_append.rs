//! CSV files written row by row: the header once, each row flushed at once,
//! so a killed run loses at most the row being written.
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::results::ResultsError;

/// Appends rows of `T` to one CSV file, writing the header only when the
/// file is new or empty (so a resumed run continues the same file).
pub struct CsvAppender<T> {
    path: PathBuf,
    writer: csv::Writer<File>,
    _row: PhantomData<fn(&T)>,
}

impl<T: Serialize> CsvAppender<T> {
    pub fn open(path: &Path) -> Result<Self, ResultsError> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(ResultsError::write(path))?;
        let empty = file.metadata().map_err(ResultsError::write(path))?.len() == 0;
        let writer = csv::WriterBuilder::new()
            .has_headers(empty)
            .from_writer(file);
        Ok(CsvAppender {
            path: path.to_path_buf(),
            writer,
            _row: PhantomData,
        })
    }

    /// Appends one row and flushes it to the file.
    pub fn append(&mut self, row: &T) -> Result<(), ResultsError> {
        self.writer
            .serialize(row)
            .map_err(|source| ResultsError::Csv {
                path: self.path.clone(),
                source,
            })?;
        self.writer.flush().map_err(ResultsError::write(&self.path))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Writes a whole CSV file (header + rows) at once, e.g. one cell's samples.
pub fn write_csv<T: Serialize>(path: &Path, rows: &[T]) -> Result<(), ResultsError> {
    let file = File::create(path).map_err(ResultsError::write(path))?;
    let mut writer = csv::Writer::from_writer(file);
    for row in rows {
        writer.serialize(row).map_err(|source| ResultsError::Csv {
            path: path.to_path_buf(),
            source,
        })?;
    }
    let mut file = writer
        .into_inner()
        .map_err(|e| ResultsError::write(path)(e.into_error()))?;
    file.flush().map_err(ResultsError::write(path))
}

/// [`write_csv`] through a temporary file renamed into place, for files
/// rewritten whole during a run (configurations.csv).
pub fn write_csv_atomic<T: Serialize>(path: &Path, rows: &[T]) -> Result<(), ResultsError> {
    let tmp = path.with_extension("csv.tmp");
    write_csv(&tmp, rows)?;
    std::fs::rename(&tmp, path).map_err(ResultsError::write(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::TimelineRow;

    #[test]
    fn header_written_once_across_reopens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        let row = |s| TimelineRow {
            second: s,
            ok: 10,
            errors: 0,
            p50_ms: 1.5,
            p99_ms: 2.0,
        };
        CsvAppender::open(&path).unwrap().append(&row(0)).unwrap();
        let mut again = CsvAppender::open(&path).unwrap();
        again.append(&row(1)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "second,requests,errors,p50_ms,p99_ms\n0,10,0,1.5,2.0\n1,10,0,1.5,2.0\n"
        );
    }
}
