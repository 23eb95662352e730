//! training/<runtime>.json: what one training did and what it was made
//! from, so that every measured start can check it uses that artifact
//! (docs/run-directory.md).
use serde::{Deserialize, Serialize};

/// The folder of the training records in a run directory.
pub const TRAINING_DIR: &str = "training";

/// One training of one runtime.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct TrainingRecord {
    pub runtime: String,
    /// RFC 3339: when the training ended.
    pub trained_at: String,
    /// The training load's own figures.
    pub driver: DriverFigures,
    /// The declared inputs (`train.inputs`, default the build's artifact),
    /// every file under a folder listed on its own, sorted by path.
    pub inputs: Vec<FileHash>,
    /// The files training produced (`train.produces`).
    pub produced: Vec<FileHash>,
    /// The `train.probe` command every measured start runs, if any.
    pub probe: Option<String>,
}

/// The training driver's own figures (the built-in load generator).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct DriverFigures {
    /// Requests answered with the expected status.
    pub requests: u64,
    pub errors: u64,
    pub duration_s: f64,
    pub connections: u32,
}

/// One file as it was: absolute path, size, sha256 (hex).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct FileHash {
    pub path: String,
    pub bytes: u64,
    pub sha256: String,
}

/// `training/<runtime>.json` relative to the run directory.
pub fn training_file(runtime: &str) -> String {
    format!("{TRAINING_DIR}/{runtime}.json")
}
