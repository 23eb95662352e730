//! Indexing one run directory: the run's row, its files (what `RunData`
//! reads, and findings.json), its configurations and every repeat's
//! figures, replaced as a whole in one transaction, so indexing a run again
//! (a re-import, a catch-up after the store was down) never duplicates it.
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::results::read::run_files::{RunFiles, RunFolder};
use crate::results::rows::derived_rates::DERIVED_RATES_FILE;
use crate::results::rows::profiles::PROFILES_FILE;
use crate::results::rows::training::TRAINING_DIR;
use crate::results::{
    CONFIGURATIONS_FILE, ENVIRONMENT_FILE, LIFECYCLE_FILE, MEASUREMENTS_FILE, NMT_FILE, PLAN_FILE,
    REPEATS_FILE, RunData, STATUS_FILE,
};
use crate::store::Store;
use crate::store::db::Value;
use crate::store::error::StoreError;

/// Written by `runner report` beside the tables (report::FINDINGS_FILE; the
/// store sits below report, so the name is repeated here and a test holds
/// the two equal).
pub const FINDINGS_FILE: &str = "findings.json";

/// The run-level files kept in the store: everything `RunData` reads, and
/// the run's verdicts. Timelines, histograms and logs stay in the directory.
const FILES: &[&str] = &[
    STATUS_FILE,
    ENVIRONMENT_FILE,
    PLAN_FILE,
    CONFIGURATIONS_FILE,
    LIFECYCLE_FILE,
    MEASUREMENTS_FILE,
    REPEATS_FILE,
    DERIVED_RATES_FILE,
    PROFILES_FILE,
    NMT_FILE,
    FINDINGS_FILE,
];

/// A short, stable name for a host fingerprint (its sha256, 12 hex digits).
pub fn host_id(fingerprint: &str) -> String {
    hex::encode(Sha256::digest(fingerprint.as_bytes()))[..12].to_string()
}

/// What indexing a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Indexed {
    /// The store did not have it.
    Added,
    /// The store had it; its rows were replaced by the directory's.
    Replaced,
}

/// The store's key of a run: the same run id on two hosts is two runs.
pub fn run_key(run: &RunData) -> String {
    format!(
        "{}/{}/{}",
        run.status.experiment,
        run.status.run_id,
        host_id(&run.environment.host.fingerprint())
    )
}

impl Store {
    /// Indexes the run directory `dir` (read with the same reader as
    /// report and history, so a run that cannot be read is not indexed).
    pub fn index_run(&mut self, dir: &Path) -> Result<Indexed, StoreError> {
        let run = RunData::load(dir).map_err(|e| StoreError::Run {
            path: dir.to_path_buf(),
            detail: e.to_string(),
        })?;
        let folder = RunFolder(dir);
        let mut files = Vec::new();
        let training = folder.names_under(TRAINING_DIR, ".json");
        for name in FILES.iter().map(|n| n.to_string()).chain(training) {
            let text = folder.text(&name).map_err(|e| StoreError::Run {
                path: dir.to_path_buf(),
                detail: e.to_string(),
            })?;
            if let Some(text) = text {
                files.push((name, text));
            }
        }
        let key = run_key(&run);
        let absolute = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        self.transaction("indexing a run", |db| {
            let existed = !db
                .query(
                    "SELECT run_key FROM runs WHERE run_key = ?",
                    &[key.as_str().into()],
                )?
                .is_empty();
            for table in [
                "runs",
                "run_labels",
                "run_files",
                "configurations",
                "repeats",
            ] {
                db.execute(
                    &format!("DELETE FROM {table} WHERE run_key = ?"),
                    &[key.as_str().into()],
                )?;
            }
            let state = serde_json::to_value(run.status.state)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            let fingerprint = run.environment.host.fingerprint();
            db.execute(
                "INSERT INTO runs (run_key, experiment, run_id, host_id, host_fingerprint, \
                 hostname, state, started_at, spec_hash, quick_factor, runner_version, dir, \
                 indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                &[
                    key.as_str().into(),
                    run.status.experiment.as_str().into(),
                    run.status.run_id.as_str().into(),
                    host_id(&fingerprint).into(),
                    fingerprint.into(),
                    run.environment.host.hostname.as_str().into(),
                    state.into(),
                    run.status.started_at.as_str().into(),
                    run.status.spec_hash.as_str().into(),
                    run.status
                        .quick_factor
                        .map_or(Value::Null, |q| Value::Int(i64::from(q))),
                    run.environment.runner_version.as_str().into(),
                    absolute.display().to_string().into(),
                    crate::results::rfc3339_now().into(),
                ],
            )?;
            // `runner exec --label`: what the run measured, queryable.
            for (name, value) in &run.environment.labels {
                db.execute(
                    "INSERT INTO run_labels (run_key, name, value) VALUES (?, ?, ?)",
                    &[
                        key.as_str().into(),
                        name.as_str().into(),
                        value.as_str().into(),
                    ],
                )?;
            }
            for (name, body) in &files {
                db.execute(
                    "INSERT INTO run_files (run_key, name, body) VALUES (?, ?, ?)",
                    &[
                        key.as_str().into(),
                        name.as_str().into(),
                        body.as_str().into(),
                    ],
                )?;
            }
            let mut seen = std::collections::BTreeSet::new();
            for m in &run.measurements {
                if seen.insert(m.config_id.clone()) {
                    db.execute(
                        "INSERT INTO configurations (run_key, config_id, runtime, axes) \
                         VALUES (?, ?, ?, ?)",
                        &[
                            key.as_str().into(),
                            m.config_id.as_str().into(),
                            m.runtime.as_str().into(),
                            m.axes.as_str().into(),
                        ],
                    )?;
                }
                let status = serde_json::to_value(m.status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                db.execute(
                    "INSERT INTO repeats (run_key, cell_id, config_id, repeat_index, status, \
                     throughput_rps, latency_p50_ms, latency_p99_ms) \
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    &[
                        key.as_str().into(),
                        m.cell_id.as_str().into(),
                        m.config_id.as_str().into(),
                        Value::Int(i64::from(m.repeat)),
                        status.into(),
                        Some(m.throughput_rps).into(),
                        Some(m.latency_p50_ms).into(),
                        Some(m.latency_p99_ms).into(),
                    ],
                )?;
            }
            Ok(if existed {
                Indexed::Replaced
            } else {
                Indexed::Added
            })
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn host_ids_are_short_and_stable() {
        assert_eq!(super::host_id("a").len(), 12);
        assert_eq!(super::host_id("a"), super::host_id("a"));
        assert_ne!(super::host_id("a"), super::host_id("b"));
    }
}
