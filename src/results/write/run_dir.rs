//! The run directory on disk: creation, paths of every file, atomic JSON.
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::results::ResultsError;
use crate::results::model::*;

/// `results/<experiment>/<run-id>/`, with its sub-directories.
#[derive(Debug, Clone)]
pub struct RunDir {
    root: PathBuf,
    run_id: String,
}

impl RunDir {
    /// Creates a new run directory under `experiment_dir` (which may not exist
    /// yet). Refuses an existing one: runs are never mixed.
    pub fn create(experiment_dir: &Path, run_id: &str) -> Result<Self, ResultsError> {
        fs::create_dir_all(experiment_dir).map_err(ResultsError::write(experiment_dir))?;
        let root = experiment_dir.join(run_id);
        match fs::create_dir(&root) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(ResultsError::RunExists { path: root });
            }
            Err(e) => return Err(ResultsError::write(&root)(e)),
        }
        let dir = RunDir {
            root,
            run_id: run_id.to_string(),
        };
        dir.create_subdirs()?;
        Ok(dir)
    }

    /// Opens an existing run (for `--resume`): it must have a status.json.
    pub fn open(root: &Path) -> Result<Self, ResultsError> {
        if !root.join(STATUS_FILE).is_file() {
            return Err(ResultsError::NotARun {
                path: root.to_path_buf(),
            });
        }
        let run_id = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = RunDir {
            root: root.to_path_buf(),
            run_id,
        };
        dir.create_subdirs()?;
        Ok(dir)
    }

    fn create_subdirs(&self) -> Result<(), ResultsError> {
        for sub in [TIMELINES_DIR, SAMPLES_DIR, HISTOGRAMS_DIR, LOGS_DIR] {
            let p = self.root.join(sub);
            fs::create_dir_all(&p).map_err(ResultsError::write(&p))?;
        }
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.root
    }

    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// A top-level file of the run, e.g. `file(MEASUREMENTS_FILE)`.
    pub fn file(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// `logs/<name>.log`.
    pub fn log(&self, name: &str) -> PathBuf {
        self.root.join(LOGS_DIR).join(format!("{name}.log"))
    }

    /// A per-cell file: `<dir>/<cell stem>.<ext>`.
    pub fn cell_file(&self, dir: &str, cell_id: &str, ext: &str) -> PathBuf {
        self.root
            .join(dir)
            .join(format!("{}.{ext}", cell_file_stem(cell_id)))
    }

    pub fn write_status(&self, status: &RunStatus) -> Result<(), ResultsError> {
        self.write_json(STATUS_FILE, status)
    }

    pub fn read_status(&self) -> Result<RunStatus, ResultsError> {
        self.read_json(STATUS_FILE)
    }

    /// Writes `name` atomically: a temporary file in the same directory,
    /// fsync'd, then renamed over the old one. Readers never see half a file.
    /// Its first key is `format_version` (results::format).
    pub fn write_json<T: Serialize>(&self, name: &str, value: &T) -> Result<(), ResultsError> {
        let path = self.root.join(name);
        let text =
            serde_json::to_vec_pretty(&crate::results::versioned(value)).map_err(|source| {
                ResultsError::Json {
                    path: path.clone(),
                    source,
                }
            })?;
        write_atomic(&path, &text)
    }

    pub fn read_json<T: DeserializeOwned>(&self, name: &str) -> Result<T, ResultsError> {
        let path = self.root.join(name);
        let bytes = fs::read(&path).map_err(ResultsError::read(&path))?;
        serde_json::from_slice(&bytes).map_err(|source| ResultsError::Json { path, source })
    }
}

/// Replaces `path` with `bytes` atomically (temp file + rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ResultsError> {
    let tmp = path.with_extension(format!(
        "{}.tmp",
        path.extension().and_then(|e| e.to_str()).unwrap_or("")
    ));
    let mut file = fs::File::create(&tmp).map_err(ResultsError::write(&tmp))?;
    file.write_all(bytes).map_err(ResultsError::write(&tmp))?;
    file.sync_all().map_err(ResultsError::write(&tmp))?;
    fs::rename(&tmp, path).map_err(ResultsError::write(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status() -> RunStatus {
        RunStatus {
            state: RunState::Running,
            run_id: "20261130T091500Z".into(),
            experiment: "x".into(),
            started_at: "2026-11-30T09:15:00Z".into(),
            updated_at: "2026-11-30T09:15:00Z".into(),
            cells_total: 4,
            cells_done: 1,
            quick_factor: Some(10),
            spec_hash: "ab".into(),
            message: None,
            skipped_cells: Vec::new(),
        }
    }

    #[test]
    fn create_then_open_round_trips_status() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = RunDir::create(tmp.path(), "20261130T091500Z").unwrap();
        for sub in [TIMELINES_DIR, SAMPLES_DIR, HISTOGRAMS_DIR, LOGS_DIR] {
            assert!(dir.path().join(sub).is_dir());
        }
        dir.write_status(&status()).unwrap();
        let again = RunDir::open(dir.path()).unwrap();
        assert_eq!(again.run_id(), "20261130T091500Z");
        assert_eq!(again.read_status().unwrap(), status());
        assert!(!dir.path().join("status.json.tmp").exists());
    }

    #[test]
    fn existing_run_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        RunDir::create(tmp.path(), "r").unwrap();
        let err = RunDir::create(tmp.path(), "r").unwrap_err();
        assert!(matches!(err, ResultsError::RunExists { .. }), "{err}");
    }

    #[test]
    fn open_requires_status() {
        let tmp = tempfile::tempdir().unwrap();
        let err = RunDir::open(tmp.path()).unwrap_err();
        assert!(err.to_string().contains("not a run directory"), "{err}");
    }

    #[test]
    fn cell_files_use_the_stem() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = RunDir::create(tmp.path(), "r").unwrap();
        let p = dir.cell_file(SAMPLES_DIR, "go/payload=7/r1", "csv");
        assert!(p.ends_with("samples/go__payload=7__r1.csv"));
    }
}
