//! The training records of a run (training/<runtime>.json) as the report
//! shows them: the training load's figures and, per file, its name and a
//! short sha256, the full record staying in the run directory.
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::results::read::run_files::{RunFiles, RunFolder};
use crate::results::read::run_read_error::RunReadError;
use crate::results::rows::training::{FileHash, TRAINING_DIR, TrainingRecord};

/// One training, for the templates.
#[derive(Debug, Clone, Serialize)]
pub struct TrainingView {
    pub runtime: String,
    pub trained_at: String,
    pub requests: u64,
    pub errors: u64,
    pub duration_s: f64,
    pub connections: u32,
    /// `service.jar 3f2a9c01` per input file; with more than
    /// [`MAX_LISTED`] files, one `37 files (12.3 MiB), together 1a2b3c4d`.
    pub inputs: Vec<String>,
    /// The same per produced file.
    pub produced: Vec<String>,
    pub probe: Option<String>,
}

impl TrainingView {
    fn of(r: TrainingRecord) -> Self {
        let files = |list: &[FileHash]| summary(list);
        TrainingView {
            inputs: files(&r.inputs),
            produced: files(&r.produced),
            runtime: r.runtime,
            trained_at: r.trained_at,
            requests: r.driver.requests,
            errors: r.driver.errors,
            duration_s: r.driver.duration_s,
            connections: r.driver.connections,
            probe: r.probe,
        }
    }
}

/// Files listed one by one in the report; a longer list (a folder of jars)
/// is summarised, the record keeping every file.
pub const MAX_LISTED: usize = 4;

fn summary(list: &[FileHash]) -> Vec<String> {
    if list.len() <= MAX_LISTED {
        return list.iter().map(short).collect();
    }
    // One digest over every file's path and hash, in path order: it changes
    // when any file does, as the per-file check before every start would say.
    let mut sorted: Vec<&FileHash> = list.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    let mut hasher = Sha256::new();
    for f in sorted {
        hasher.update(format!("{} {}\n", f.path, f.sha256));
    }
    let digest = hex::encode(hasher.finalize());
    let bytes: u64 = list.iter().map(|f| f.bytes).sum();
    vec![format!(
        "{} files ({:.1} MiB), together {}",
        list.len(),
        bytes as f64 / (1u64 << 20) as f64,
        &digest[..8]
    )]
}

fn short(f: &FileHash) -> String {
    let name = Path::new(&f.path)
        .file_name()
        .map_or_else(|| f.path.clone(), |n| n.to_string_lossy().into_owned());
    format!("{name} {}", f.sha256.chars().take(8).collect::<String>())
}

/// Every training record of the run in `dir`, by runtime name; empty when
/// it trained nothing (or was recorded before training records existed).
pub fn trainings(dir: &Path) -> Result<Vec<TrainingView>, RunReadError> {
    trainings_in(&RunFolder(dir))
}

/// The training records among a run's files, wherever they are kept.
pub fn trainings_in(files: &dyn RunFiles) -> Result<Vec<TrainingView>, RunReadError> {
    files
        .names_under(TRAINING_DIR, ".json")
        .into_iter()
        .map(|name| {
            let path: PathBuf = files.dir().join(&name);
            let Some(text) = files.text(&name)? else {
                return Err(RunReadError::Missing {
                    path,
                    what: "a training record listed a moment ago",
                });
            };
            let record: TrainingRecord =
                serde_json::from_str(&text).map_err(|e| RunReadError::Json {
                    path: path.clone(),
                    line: e.line(),
                    column: e.column(),
                    detail: e.to_string(),
                })?;
            Ok(TrainingView::of(record))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::rows::training::DriverFigures;

    #[test]
    fn records_are_read_by_runtime_with_short_file_names_and_hashes() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(
            trainings(tmp.path()).unwrap().is_empty(),
            "no training/ folder"
        );
        std::fs::create_dir(tmp.path().join(TRAINING_DIR)).unwrap();
        let record = TrainingRecord {
            runtime: "leyden".into(),
            driver: DriverFigures {
                requests: 1200,
                ..Default::default()
            },
            produced: vec![FileHash {
                path: "/r/target/app.aot".into(),
                bytes: 9,
                sha256: "3f2a9c01deadbeef".into(),
            }],
            ..Default::default()
        };
        std::fs::write(
            tmp.path().join("training/leyden.json"),
            serde_json::to_string(&record).unwrap(),
        )
        .unwrap();
        let views = trainings(tmp.path()).unwrap();
        assert_eq!(views.len(), 1);
        assert_eq!(views[0].requests, 1200);
        assert_eq!(views[0].produced, ["app.aot 3f2a9c01"]);
        std::fs::write(tmp.path().join("training/bad.json"), "{").unwrap();
        let err = trainings(tmp.path()).unwrap_err().to_string();
        assert!(err.contains("bad.json"), "{err}");
    }

    #[test]
    fn a_long_file_list_is_one_line_that_changes_with_any_file() {
        let jar = |i: usize, sha: &str| FileHash {
            path: format!("/r/target/libs/lib{i}.jar"),
            bytes: 1 << 19,
            sha256: sha.into(),
        };
        let mut list: Vec<FileHash> = (0..6).map(|i| jar(i, "aaaa")).collect();
        let before = summary(&list);
        assert_eq!(before.len(), 1);
        assert!(
            before[0].starts_with("6 files (3.0 MiB), together "),
            "{before:?}"
        );
        list[3].sha256 = "bbbb".into();
        assert_ne!(summary(&list), before, "one changed file changes the line");
        list.reverse();
        assert_eq!(
            summary(&list),
            summary(&{
                let mut l = list.clone();
                l.reverse();
                l
            }),
            "the order files were hashed in does not matter"
        );
        assert_eq!(summary(&list[..2]).len(), 2, "a short list stays per file");
    }

    #[test]
    fn a_bad_record_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join(TRAINING_DIR)).unwrap();
        std::fs::write(tmp.path().join("training/bad.json"), "{").unwrap();
        let err = trainings(tmp.path()).unwrap_err().to_string();
        assert!(err.contains("bad.json"), "{err}");
    }
}
