//! The training records of a run (training/<runtime>.json) as the report
//! shows them: the training load's figures and, per file, its name and a
//! short sha256, the full record staying in the run directory.
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::error::ReportError;
use crate::results::training::{FileHash, TRAINING_DIR, TrainingRecord};

/// One training, for the templates.
#[derive(Debug, Clone, Serialize)]
pub struct TrainingView {
    pub runtime: String,
    pub trained_at: String,
    pub requests: u64,
    pub errors: u64,
    pub duration_s: f64,
    pub connections: u32,
    /// `service.jar 3f2a9c01` per input file.
    pub inputs: Vec<String>,
    /// The same per produced file.
    pub produced: Vec<String>,
    pub probe: Option<String>,
}

impl TrainingView {
    fn of(r: TrainingRecord) -> Self {
        let files = |list: &[FileHash]| list.iter().map(short).collect();
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

fn short(f: &FileHash) -> String {
    let name = Path::new(&f.path)
        .file_name()
        .map_or_else(|| f.path.clone(), |n| n.to_string_lossy().into_owned());
    format!("{name} {}", f.sha256.chars().take(8).collect::<String>())
}

/// Every training record of the run in `dir`, by runtime name; empty when
/// it trained nothing (or was recorded before training records existed).
pub fn trainings(dir: &Path) -> Result<Vec<TrainingView>, ReportError> {
    let folder = dir.join(TRAINING_DIR);
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Ok(Vec::new());
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).map_err(|source| ReportError::Io {
                path: path.clone(),
                source,
            })?;
            let record: TrainingRecord =
                serde_json::from_str(&text).map_err(|e| ReportError::Json {
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
    use crate::results::training::DriverFigures;

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
}
