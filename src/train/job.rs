//! One training as plain data: what [`super::phase::run_job`] needs of a
//! runtime and its `train:` section, and nothing of the plan besides. A
//! service host reached over SSH is sent one (`runner remote`'s `train`
//! call, its `dir` and `produces` made the copy's there), so a training
//! there runs the same code as one here.
use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::load::LoadReport;
use crate::plan::{HealthPlan, RuntimePlan, StopPlan, TrainPlan};
use crate::process::runtime_env;
use crate::results::rows::training::DriverFigures;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrainJob {
    pub runtime: String,
    /// Where the training start and the `after` commands run.
    pub dir: PathBuf,
    /// The training start command (`train.start`, else the runtime's start).
    pub start: String,
    /// The runtime's environment with `train.env` over it.
    pub env: BTreeMap<String, String>,
    pub port: u16,
    pub health: HealthPlan,
    pub stop: StopPlan,
    /// Bytes kept of the head and of the tail of the training log.
    pub log_cap: u64,
    /// The runtime's scratch folder and `files:`, made for the training start too.
    #[serde(default)]
    pub scratch: Option<crate::plan::ScratchPlan>,
    /// The run's certificate files when the training start serves TLS.
    #[serde(default)]
    pub tls: Option<crate::certs::ServerFiles>,
    pub after: Vec<String>,
    /// Files that must exist and be non-empty afterwards (removed before).
    pub produces: Vec<PathBuf>,
}

impl TrainJob {
    /// `tls`: the run's certificate files, given to a training start that
    /// serves TLS (its scratch folder says so) and to no other.
    pub fn new(
        rt: &RuntimePlan,
        tp: &TrainPlan,
        tls: Option<&crate::certs::ServerFiles>,
    ) -> TrainJob {
        let mut env = runtime_env(rt);
        env.extend(tp.env.clone());
        TrainJob {
            runtime: rt.name.clone(),
            dir: rt.dir.clone(),
            start: tp.start.clone(),
            env,
            port: rt.port,
            health: rt.health.clone(),
            stop: rt.stop.clone(),
            log_cap: rt.log_cap_bytes,
            scratch: rt.scratch.clone(),
            tls: tls
                .filter(|_| rt.scratch.as_ref().is_some_and(|s| s.tls))
                .cloned(),
            after: tp.after.clone(),
            produces: tp.produces.clone(),
        }
    }
}

/// The training load's figures for the record, or why the training failed:
/// a load with no successful answer trained nothing.
pub fn driver_figures(report: &LoadReport, connections: u32) -> Result<DriverFigures, String> {
    if report.ok == 0 {
        return Err(format!(
            "no training request succeeded ({} errors)",
            report.errors.total()
        ));
    }
    Ok(DriverFigures {
        requests: report.ok,
        errors: report.errors.total(),
        duration_s: report.elapsed.as_secs_f64(),
        connections,
    })
}
