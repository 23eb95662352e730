//! Reading runs back: the store returns `RunData`, read from its copies of
//! the run's files by the same reader as a run directory, so history and
//! compare judge a stored run exactly as they judge its folder.
use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::results::RunData;
use crate::results::read::run_files::RunFileSet;
use crate::store::Store;
use crate::store::db::Value;
use crate::store::error::StoreError;

/// The complete runs of one experiment on one host, oldest first.
#[derive(Debug, Clone)]
pub struct HostRuns {
    pub host_id: String,
    pub hostname: String,
    pub runs: Vec<RunData>,
}

impl Store {
    /// Every complete run of `experiment`, grouped by host (the host whose
    /// run is newest first), each host's runs oldest first.
    pub fn runs_of(&mut self, experiment: &str) -> Result<Vec<HostRuns>, StoreError> {
        let runs = self
            .db
            .query(
                "SELECT run_key, run_id, host_id, hostname, dir FROM runs \
                 WHERE experiment = ? AND state = 'complete' ORDER BY started_at, run_id",
                &[experiment.into()],
            )
            .map_err(|e| self.query_error("reading the runs", e))?;
        let files = self
            .db
            .query(
                "SELECT f.run_key, f.name, f.body FROM run_files f \
                 JOIN runs r ON r.run_key = f.run_key \
                 WHERE r.experiment = ? AND r.state = 'complete'",
                &[experiment.into()],
            )
            .map_err(|e| self.query_error("reading the runs' files", e))?;
        let mut sets: BTreeMap<String, RunFileSet> = BTreeMap::new();
        for row in files {
            let [Value::Text(key), Value::Text(name), Value::Text(body)] =
                <[Value; 3]>::try_from(row).unwrap_or([Value::Null, Value::Null, Value::Null])
            else {
                continue;
            };
            sets.entry(key).or_default().files.insert(name, body);
        }
        let mut hosts: Vec<HostRuns> = Vec::new();
        for row in runs {
            let text = |i: usize| {
                row.get(i)
                    .and_then(Value::text)
                    .unwrap_or_default()
                    .to_string()
            };
            let (key, run_id, host, hostname, dir) = (text(0), text(1), text(2), text(3), text(4));
            let mut set = sets.remove(&key).unwrap_or_default();
            set.dir = PathBuf::from(dir);
            let run = RunData::from_files(&set).map_err(|e| StoreError::StoredRun {
                url: self.url.masked(),
                experiment: experiment.to_string(),
                run_id: run_id.clone(),
                detail: e.to_string(),
            })?;
            match hosts.iter_mut().find(|h| h.host_id == host) {
                Some(h) => h.runs.push(run),
                None => hosts.push(HostRuns {
                    host_id: host,
                    hostname,
                    runs: vec![run],
                }),
            }
        }
        // The host of the newest run leads: that is the series judged by default.
        hosts.sort_by_key(|h| {
            std::cmp::Reverse(
                h.runs
                    .last()
                    .map(|r| (r.status.started_at.clone(), r.status.run_id.clone())),
            )
        });
        Ok(hosts)
    }

    /// How many runs the store holds (all experiments, hosts and states).
    pub fn run_count(&mut self) -> Result<i64, StoreError> {
        let rows = self
            .db
            .query("SELECT COUNT(*) FROM runs", &[])
            .map_err(|e| self.query_error("counting the runs", e))?;
        Ok(match rows.first().and_then(|r| r.first()) {
            Some(Value::Int(n)) => *n,
            _ => 0,
        })
    }
}
