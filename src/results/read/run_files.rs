//! Where a run's files are read from: its directory (the source of truth),
//! or the copies a results store kept of them (`store`). `RunData` reads
//! both through this one interface, so a run from the store is the same
//! typed data, parsed by the same code, as the run read from its folder.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::results::read::run_read_error::RunReadError;

/// A run's files by their path relative to the run directory
/// (`measurements.csv`, `training/app.json`).
pub trait RunFiles {
    /// The run directory: for messages, and `RunData::dir`.
    fn dir(&self) -> &Path;
    /// The file's text; `None` when the run has no such file.
    fn text(&self, name: &str) -> Result<Option<String>, RunReadError>;
    /// The files directly under `folder` whose name ends with `suffix`, sorted.
    fn names_under(&self, folder: &str, suffix: &str) -> Vec<String>;
}

/// The run directory on disk.
pub struct RunFolder<'a>(pub &'a Path);

impl RunFiles for RunFolder<'_> {
    fn dir(&self) -> &Path {
        self.0
    }

    fn text(&self, name: &str) -> Result<Option<String>, RunReadError> {
        let path = self.0.join(name);
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(RunReadError::Io { path, source }),
        }
    }

    fn names_under(&self, folder: &str, suffix: &str) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(self.0.join(folder)) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(suffix))
            .map(|n| format!("{folder}/{n}"))
            .collect();
        names.sort();
        names
    }
}

/// A run's files held in memory (what a results store returns).
#[derive(Debug, Clone, Default)]
pub struct RunFileSet {
    pub dir: PathBuf,
    pub files: BTreeMap<String, String>,
}

impl RunFiles for RunFileSet {
    fn dir(&self) -> &Path {
        &self.dir
    }

    fn text(&self, name: &str) -> Result<Option<String>, RunReadError> {
        Ok(self.files.get(name).cloned())
    }

    fn names_under(&self, folder: &str, suffix: &str) -> Vec<String> {
        let prefix = format!("{folder}/");
        self.files
            .keys()
            .filter(|n| {
                n.strip_prefix(&prefix)
                    .is_some_and(|rest| !rest.contains('/') && rest.ends_with(suffix))
            })
            .cloned()
            .collect()
    }
}
