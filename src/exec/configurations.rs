//! configurations.csv: one row per runtime, rewritten whole (atomically)
//! whenever a runtime's status changes, so it is valid at every moment.
use std::collections::BTreeMap;

use crate::plan::{Plan, RuntimePlan};
use crate::results::{
    CONFIGURATIONS_FILE, ConfigurationRow, ConfigurationStatus, ResultsError, RunDir, read_csv,
    write_csv_atomic,
};

pub struct Configurations {
    rows: BTreeMap<String, ConfigurationRow>,
    order: Vec<String>,
}

impl Configurations {
    /// Rows for every runtime of `plan`, keeping what an earlier session of
    /// the same run recorded (resume).
    pub fn new(plan: &Plan, run: &RunDir) -> Result<Self, ResultsError> {
        let previous: BTreeMap<String, ConfigurationRow> =
            read_csv::<ConfigurationRow>(&run.file(CONFIGURATIONS_FILE))?
                .unwrap_or_default()
                .into_iter()
                .map(|r| (r.runtime.clone(), r))
                .collect();
        let rows = plan
            .runtimes
            .iter()
            .map(|rt| {
                let row = previous
                    .get(&rt.name)
                    .cloned()
                    .unwrap_or_else(|| declared(rt));
                (rt.name.clone(), row)
            })
            .collect();
        Ok(Configurations {
            rows,
            order: plan.runtimes.iter().map(|r| r.name.clone()).collect(),
        })
    }

    /// A runtime an earlier session skipped is tried again on resume: its
    /// status goes back to `pending` until this session decides.
    pub fn retry(&mut self, runtime: &str) {
        if let Some(row) = self.rows.get_mut(runtime)
            && row.status == ConfigurationStatus::Skipped
        {
            row.status = ConfigurationStatus::Pending;
            row.reason.clear();
        }
    }

    pub fn get_mut(&mut self, runtime: &str) -> &mut ConfigurationRow {
        self.rows.entry(runtime.to_string()).or_default()
    }

    pub fn get(&self, runtime: &str) -> Option<&ConfigurationRow> {
        self.rows.get(runtime)
    }

    pub fn save(&self, run: &RunDir) -> Result<(), ResultsError> {
        let rows: Vec<&ConfigurationRow> =
            self.order.iter().filter_map(|n| self.rows.get(n)).collect();
        write_csv_atomic(&run.file(CONFIGURATIONS_FILE), &rows)
    }
}

/// The declared configuration of a runtime, status `pending`.
fn declared(rt: &RuntimePlan) -> ConfigurationRow {
    ConfigurationRow {
        runtime: rt.name.clone(),
        dir: rt.dir.display().to_string(),
        start: rt.start.clone(),
        env: rt
            .env
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(";"),
        jvm_flags: rt.jvm_flags.join(" "),
        java_home: rt
            .java
            .as_ref()
            .and_then(|j| j.home.as_ref())
            .map(|h| h.display().to_string())
            .unwrap_or_default(),
        tags: rt.tags.join(","),
        status: ConfigurationStatus::Pending,
        ..Default::default()
    }
}
