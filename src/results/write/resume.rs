//! `--resume`: which cells of a run are already recorded, and whether the
//! spec is still the one the run was started with.
use std::collections::HashSet;
use std::fs::OpenOptions;
use std::path::Path;

use crate::results::model::{MEASUREMENTS_FILE, MeasurementRow, RunStatus};
use crate::results::{ResultsError, RunDir};

/// Refuses to continue a run whose spec hash differs, unless `force`.
pub fn check_spec(
    dir: &RunDir,
    status: &RunStatus,
    current_hash: &str,
    force: bool,
) -> Result<(), ResultsError> {
    if status.spec_hash == current_hash || force {
        return Ok(());
    }
    Err(ResultsError::SpecChanged {
        run: dir.path().to_path_buf(),
        recorded: short(&status.spec_hash),
        current: short(current_hash),
    })
}

fn short(hash: &str) -> String {
    hash.chars().take(12).collect()
}

/// The cell ids with a row in measurements.csv (any status: a recorded cell
/// is never measured twice, so a resumed run has no duplicate rows).
///
/// A row cut short by a kill (no final newline) is removed from the file
/// first: it was never complete, so its cell runs again.
pub fn recorded_cells(dir: &RunDir) -> Result<HashSet<String>, ResultsError> {
    let rows = recorded_rows(dir)?;
    Ok(rows.into_iter().map(|row| row.cell_id).collect())
}

/// The rows of measurements.csv, a partial last one removed as in
/// [`recorded_cells`] (adaptive repeats are judged from them on resume).
pub fn recorded_rows(dir: &RunDir) -> Result<Vec<MeasurementRow>, ResultsError> {
    let path = dir.file(MEASUREMENTS_FILE);
    if !path.exists() {
        return Ok(Vec::new());
    }
    drop_partial_last_line(&path)?;
    Ok(crate::results::read_csv::<MeasurementRow>(&path)?.unwrap_or_default())
}

fn drop_partial_last_line(path: &Path) -> Result<(), ResultsError> {
    let bytes = std::fs::read(path).map_err(ResultsError::read(path))?;
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        return Ok(());
    }
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|f| f.set_len(keep as u64))
        .map_err(ResultsError::write(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{CsvAppender, RunState};

    fn row(id: &str) -> MeasurementRow {
        MeasurementRow {
            cell_id: id.into(),
            status: crate::results::CellStatus::Ok,
            ..Default::default()
        }
    }

    #[test]
    fn recorded_cells_reads_ids_and_drops_a_cut_row() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = RunDir::create(tmp.path(), "r").unwrap();
        assert!(recorded_cells(&dir).unwrap().is_empty());
        let path = dir.file(MEASUREMENTS_FILE);
        let mut w = CsvAppender::open(&path).unwrap();
        w.append(&row("a/r1")).unwrap();
        w.append(&row("b/r1")).unwrap();
        drop(w);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        std::io::Write::write_all(&mut f, b"c/r1,c,rt,1").unwrap();
        let done = recorded_cells(&dir).unwrap();
        assert_eq!(
            done,
            HashSet::from(["a/r1".to_string(), "b/r1".to_string()])
        );
        assert!(std::fs::read_to_string(&path).unwrap().ends_with('\n'));
    }

    #[test]
    fn changed_spec_is_refused_unless_forced() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = RunDir::create(tmp.path(), "r").unwrap();
        let status = RunStatus {
            state: RunState::Interrupted,
            run_id: "r".into(),
            experiment: "x".into(),
            started_at: String::new(),
            updated_at: String::new(),
            cells_total: 1,
            cells_done: 0,
            quick_factor: None,
            spec_hash: "aaaaaaaaaaaaaaaa".into(),
            message: None,
            skipped_cells: Vec::new(),
        };
        assert!(check_spec(&dir, &status, "aaaaaaaaaaaaaaaa", false).is_ok());
        let err = check_spec(&dir, &status, "bbbbbbbbbbbbbbbb", false).unwrap_err();
        assert!(err.to_string().contains("--force"), "{err}");
        assert!(check_spec(&dir, &status, "bbbbbbbbbbbbbbbb", true).is_ok());
    }
}
