//! The record of each runtime's last successful build.
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// `.build-cache/<runtime>.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CacheRecord {
    pub input_hash: String,
    pub finished_at: String,
    pub seconds: f64,
    pub artifact_bytes: Option<u64>,
}

/// The folder of cache records (one JSON file per runtime).
#[derive(Debug, Clone)]
pub struct BuildCache {
    dir: PathBuf,
}

impl BuildCache {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        BuildCache { dir: dir.into() }
    }

    /// `<results>/<experiment>/.build-cache`.
    pub fn for_experiment(experiment_results: &Path) -> Self {
        Self::new(experiment_results.join(".build-cache"))
    }

    fn path(&self, runtime: &str) -> PathBuf {
        self.dir.join(format!("{runtime}.json"))
    }

    /// The last successful build of `runtime`, if recorded and readable.
    pub fn last_success(&self, runtime: &str) -> Option<CacheRecord> {
        let bytes = std::fs::read(self.path(runtime)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    pub fn record_success(&self, runtime: &str, record: &CacheRecord) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(&self.dir)?;
        let path = self.path(runtime);
        let text = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
        crate::results::run_dir::write_atomic(&path, &text).map_err(std::io::Error::other)?;
        Ok(path)
    }

    /// Forgets `runtime`'s last build (a failed build must not be skipped next time).
    pub fn forget(&self, runtime: &str) {
        let _ = std::fs::remove_file(self.path(runtime));
    }
}
