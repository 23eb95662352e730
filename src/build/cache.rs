//! The record of each runtime's last successful build.
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// `.build-cache/<runtime>.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CacheRecord {
    pub input_hash: String,
    /// The runtime directory built (runtimes sharing a directory and an
    /// input hash share the build: e.g. a JVM and its AOT-cache variant).
    #[serde(default)]
    pub dir: String,
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

    /// A successful build of `dir` with `hash` recorded by any runtime.
    pub fn find(&self, hash: &str, dir: &Path) -> Option<CacheRecord> {
        let dir = dir.display().to_string();
        std::fs::read_dir(&self.dir)
            .ok()?
            .flatten()
            .filter_map(|e| std::fs::read(e.path()).ok())
            .filter_map(|b| serde_json::from_slice::<CacheRecord>(&b).ok())
            .find(|r| r.input_hash == hash && r.dir == dir)
    }

    pub fn record_success(&self, runtime: &str, record: &CacheRecord) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(&self.dir)?;
        let path = self.path(runtime);
        let text = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
        crate::results::write::run_dir::write_atomic(&path, &text)
            .map_err(std::io::Error::other)?;
        Ok(path)
    }

    /// Forgets `runtime`'s last build and every build of `dir`: a build is
    /// about to rewrite that directory's outputs, and if it fails no earlier
    /// success may be trusted.
    pub fn forget(&self, runtime: &str, dir: &Path) {
        let _ = std::fs::remove_file(self.path(runtime));
        let dir = dir.display().to_string();
        for entry in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            let same_dir = std::fs::read(entry.path())
                .ok()
                .and_then(|b| serde_json::from_slice::<CacheRecord>(&b).ok())
                .is_some_and(|r| r.dir == dir);
            if same_dir {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}
