//! A runtime between its two planning steps. Its own fields are rendered
//! first, for every runtime (runtime.rs); its training requests can only be
//! rendered once the axis points are filtered (training.rs). The draft holds
//! the first part, and [`RuntimeDraft::finish`] builds the [`RuntimePlan`]
//! and its [`TrainPlan`] complete, in one go.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::plan::steps::inputs::RuntimeContext;
use crate::plan::{RequestPlan, RuntimePlan, TrainPlan};

/// A runtime with every field rendered except its training requests.
pub struct RuntimeDraft {
    /// The runtime as planned so far: `train` stays `None` until
    /// [`RuntimeDraft::finish`], which is the only way out of a draft.
    runtime: RuntimePlan,
    /// What its cells and training requests are rendered with.
    pub context: RuntimeContext,
    pub train: Option<TrainDraft>,
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
    pub inputs: Vec<PathBuf>,
    pub probe: Option<String>,
}

impl RuntimeDraft {
    /// A draft of `runtime` (whose `train` is ignored: `train` is the draft
    /// of its training).
    pub fn new(runtime: RuntimePlan, context: RuntimeContext, train: Option<TrainDraft>) -> Self {
        RuntimeDraft {
            runtime: RuntimePlan {
                train: None,
                ..runtime
            },
            context,
            train,
        }
    }

    pub fn name(&self) -> &str {
        &self.runtime.name
    }

    /// The runtime as planned so far.
    pub fn runtime(&self) -> &RuntimePlan {
        &self.runtime
    }

    /// For planning steps that complete a runtime from the whole spec (its `profile`).
    pub fn runtime_mut(&mut self) -> &mut RuntimePlan {
        &mut self.runtime
    }

    /// How many repeats its configurations get (the cells render up to the max).
    pub fn repeats(&self) -> crate::plan::RepeatPolicy {
        self.runtime.repeats
    }

    /// The finished runtime; `train_requests` are those its training drives
    /// (ignored, and empty, for a runtime without training).
    pub fn finish(self, train_requests: Vec<RequestPlan>) -> RuntimePlan {
        RuntimePlan {
            train: self.train.map(|t| TrainPlan {
                start: t.start,
                env: t.env,
                requests: train_requests,
                connections: t.connections,
                duration: t.duration,
                after: t.after,
                produces: t.produces,
                evidence: t.evidence,
                inputs: t.inputs,
                probe: t.probe,
            }),
            ..self.runtime
        }
    }
}
