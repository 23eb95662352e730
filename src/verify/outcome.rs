//! What happened to each runtime during a verify: the raw material of the
//! comparison, serialised as is into `verify.json`.
use std::path::PathBuf;

use serde::Serialize;

/// One runtime's part of a verify.
#[derive(Debug, Clone, Serialize)]
pub struct RuntimeRecord {
    pub name: String,
    pub outcome: Outcome,
    /// One entry per verify request, in plan order; empty when the service
    /// never became ready to answer (skipped, build or start failure).
    pub answers: Vec<Answer>,
    /// Human notes on the lifecycle: build cached or built, startup time,
    /// how the service stopped.
    pub notes: Vec<String>,
}

/// How far a runtime got.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Outcome {
    /// Built, started, answered every request, stopped with its port free.
    Ran,
    /// Not attempted: a toolchain or JDK it needs is missing on this host.
    Skipped { reason: String },
    /// Attempted and failed at `stage`; `log` is the file to read.
    Failed {
        stage: Stage,
        reason: String,
        log: PathBuf,
    },
}

/// Where a runtime failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    Build,
    /// A dependency it needs failed to start, reset, or died (the log is the dependency's).
    Dependency,
    Start,
    /// The service died while the requests were sent.
    Run,
    Stop,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Build => "build",
            Stage::Dependency => "dependency",
            Stage::Start => "start",
            Stage::Run => "run",
            Stage::Stop => "stop",
        }
    }
}

/// The answer to one verify request.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Answer {
    /// An HTTP answer. `json` is the parsed body, `None` when it is not JSON
    /// (then `body_error` says why).
    Reply {
        status: u16,
        #[serde(skip)]
        json: Option<serde_json::Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        body_error: Option<String>,
        /// A workload request's answer that failed its content checks.
        #[serde(skip_serializing_if = "Option::is_none")]
        wrong: Option<Box<crate::load::http::expect::WrongAnswer>>,
    },
    /// No answer: connection refused, timeout, malformed HTTP.
    Error { error: String },
}

impl Answer {
    /// Parses `body` as JSON, keeping the reason when it is not.
    pub fn from_reply(status: u16, body: &[u8]) -> Answer {
        match serde_json::from_slice(body) {
            Ok(json) => Answer::Reply {
                status,
                json: Some(json),
                body_error: None,
                wrong: None,
            },
            Err(e) => Answer::Reply {
                status,
                json: None,
                body_error: Some(format!("body is not JSON ({} bytes): {e}", body.len())),
                wrong: None,
            },
        }
    }

    /// This answer, failing its content checks as `wrong` says (`None`: it passed).
    pub fn with_wrong(mut self, wrong: Option<crate::load::http::expect::WrongAnswer>) -> Answer {
        if let Answer::Reply { wrong: w, .. } = &mut self {
            *w = wrong.map(Box::new);
        }
        self
    }

    pub fn status(&self) -> Option<u16> {
        match self {
            Answer::Reply { status, .. } => Some(*status),
            Answer::Error { .. } => None,
        }
    }
}
