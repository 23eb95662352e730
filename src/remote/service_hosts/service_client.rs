//! This side of a service host: one `runner remote` session for the whole
//! run, its `service` calls typed. The session is the service's lifeline:
//! when it ends (dropped here, or the connection lost), the far side stops
//! the service and everything it started.
use std::path::Path;
use std::time::{Duration, Instant};

use crate::plan::contract::hosts::SshTarget;
use crate::remote::connect::session::Session;
use crate::remote::error::RemoteError;
use crate::remote::protocol::{Request, Response};
use crate::remote::service_hosts::service_wire::{
    ServiceAnswer, ServiceCall, WireBuild, WireStart, WireTrain,
};
use crate::remote::service_hosts::source_copy::{Copied, copy_sources, state_dir};

/// How long a short call (alive, usage, samples, a log chunk) may take.
const SHORT: Duration = Duration::from_secs(20);
/// Beyond a start's health timeout or a stop's grace, room for the far side.
const SLACK: Duration = Duration::from_secs(30);
/// Upper bound of a build on the service host.
const BUILD_BOUND: Duration = Duration::from_secs(3600);

/// The service host's session.
pub struct ServiceHostClient {
    pub host: String,
    target: SshTarget,
    session: Session,
}

impl ServiceHostClient {
    /// Opens the session (copying runner's binary there when absent).
    pub fn open(target: &SshTarget) -> Result<ServiceHostClient, RemoteError> {
        Ok(ServiceHostClient {
            host: target.destination.clone(),
            target: target.clone(),
            session: Session::open(target)?,
        })
    }

    /// How long opening the session took.
    pub fn open_time(&self) -> Duration {
        self.session.open_time
    }

    /// Copies `dir` there unless that content is there already.
    pub fn copy_sources(&self, runtime: &str, dir: &Path) -> Result<Copied, RemoteError> {
        copy_sources(&self.target, runtime, dir)
    }

    /// The far side's folder for its build cache and logs.
    pub fn state_dir(&self) -> String {
        state_dir(&self.target)
    }

    /// Builds there; `on_log` gets the build's output as it comes.
    pub fn build(
        &mut self,
        build: WireBuild,
        on_log: &mut dyn FnMut(&str),
    ) -> Result<ServiceAnswer, RemoteError> {
        self.call(
            ServiceCall::Build(Box::new(build)),
            BUILD_BOUND,
            "while it built the runtime",
            on_log,
        )
    }

    /// Trains there; `on_log` gets the training's log as it comes.
    pub fn train(
        &mut self,
        train: WireTrain,
        on_log: &mut dyn FnMut(&str),
    ) -> Result<ServiceAnswer, RemoteError> {
        self.call(
            ServiceCall::Train(Box::new(train)),
            BUILD_BOUND,
            "while it trained the runtime",
            on_log,
        )
    }

    pub fn start(&mut self, start: WireStart) -> Result<ServiceAnswer, RemoteError> {
        let bound = start.health.timeout + SLACK;
        self.call(
            ServiceCall::Start(Box::new(start)),
            bound,
            "while it started the service",
            &mut |_| {},
        )
    }

    /// A call that may take up to `bound` (a dependency's start, reset or stop).
    pub fn long(
        &mut self,
        call: ServiceCall,
        bound: Duration,
        during: &str,
    ) -> Result<ServiceAnswer, RemoteError> {
        self.call(call, bound + SLACK, during, &mut |_| {})
    }

    /// A short call (anything but build, start, stop).
    pub fn short(&mut self, call: ServiceCall, during: &str) -> Result<ServiceAnswer, RemoteError> {
        self.call(call, SHORT, during, &mut |_| {})
    }

    pub fn stop(
        &mut self,
        call: ServiceCall,
        grace: Duration,
    ) -> Result<ServiceAnswer, RemoteError> {
        // The far side waits up to the grace, then 5 s for the kill, 5 s for the port.
        self.call(
            call,
            grace + SLACK,
            "while it stopped the service",
            &mut |_| {},
        )
    }

    /// Sends `call`, passes `log` answers to `on_log`, returns the last answer.
    fn call(
        &mut self,
        call: ServiceCall,
        bound: Duration,
        during: &str,
        on_log: &mut dyn FnMut(&str),
    ) -> Result<ServiceAnswer, RemoteError> {
        let logs_stream = matches!(call, ServiceCall::Build(_) | ServiceCall::Train(_));
        self.session.send(
            &Request::Service {
                call: Box::new(call),
            },
            during,
        )?;
        let deadline = Instant::now() + bound;
        loop {
            match self.session.next(deadline, during)? {
                None => {
                    return Err(RemoteError::Timeout {
                        host: self.host.clone(),
                        seconds: bound.as_secs(),
                        during: during.into(),
                    });
                }
                Some(Response::Service { answer }) => match *answer {
                    ServiceAnswer::Log { text, .. } if logs_stream => on_log(&text),
                    ServiceAnswer::Failed { message } => {
                        return Err(RemoteError::Refused {
                            host: self.host.clone(),
                            message,
                        });
                    }
                    other => return Ok(other),
                },
                Some(Response::Progress { .. }) => {}
                Some(other) => return Err(self.session.unexpected(&other)),
            }
        }
    }
}
