//! A runtime between its two planning steps. Its own fields are rendered
//! first, for every runtime (runtime.rs); its training requests can only be
//! rendered once the axis points are filtered (training.rs). The draft holds
//! the first part, and [`RuntimeDraft::finish`] builds the [`RuntimePlan`]
//! and its [`TrainPlan`] complete, in one go.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use super::runtime::RuntimeContext;
use super::{HealthPlan, JavaPlan, RequestPlan, RuntimePlan, StopPlan, TrainPlan};

/// A runtime with every field rendered except its training requests.
pub struct RuntimeDraft {
    pub name: String,
    /// What its cells and training requests are rendered with.
    pub context: RuntimeContext,
    pub train: Option<TrainDraft>,
    pub dir: PathBuf,
    pub build: Vec<String>,
    pub start: String,
    pub env: BTreeMap<String, String>,
    pub jvm_flags: Vec<String>,
    pub java: Option<JavaPlan>,
    pub port: u16,
    pub health: HealthPlan,
    pub stop: StopPlan,
    pub tags: Vec<String>,
    pub artifact: Option<PathBuf>,
    pub tools: Vec<String>,
}

/// A training phase with every field rendered except the requests it drives.
pub struct TrainDraft {
    /// The workload requests it drives, by name; `None`: all of them.
    pub workload: Option<Vec<String>>,
    pub start: String,
    pub env: BTreeMap<String, String>,
    pub connections: u32,
    pub duration: Duration,
    pub after: Vec<String>,
    pub produces: Vec<PathBuf>,
    pub evidence: Option<String>,
}

impl RuntimeDraft {
    /// The finished runtime; `train_requests` are those its training drives
    /// (ignored, and empty, for a runtime without training).
    pub fn finish(self, train_requests: Vec<RequestPlan>) -> RuntimePlan {
        RuntimePlan {
            name: self.name,
            dir: self.dir,
            build: self.build,
            start: self.start,
            env: self.env,
            jvm_flags: self.jvm_flags,
            java: self.java,
            port: self.port,
            health: self.health,
            stop: self.stop,
            train: self.train.map(|t| TrainPlan {
                start: t.start,
                env: t.env,
                requests: train_requests,
                connections: t.connections,
                duration: t.duration,
                after: t.after,
                produces: t.produces,
                evidence: t.evidence,
            }),
            tags: self.tags,
            artifact: self.artifact,
            tools: self.tools,
        }
    }
}
