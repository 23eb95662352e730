//! A plan run with the real driver: the services here, or on the plan's
//! service host over SSH when it declares one, with SIGINT and SIGTERM
//! caught for the run's duration.
use std::sync::mpsc::Sender;

use crate::exec::interrupt::Interrupt;
use crate::exec::site::processes::Processes;
use crate::exec::ssh::remote_driver::RemoteHost;
use crate::exec::walk::run::{RunOutcome, RunRequest, run};
use crate::exec::{Event, ExecError};

/// Runs `request` with the driver its plan needs.
pub fn run_for_real(request: &RunRequest, events: Sender<Event>) -> Result<RunOutcome, ExecError> {
    match RemoteHost::for_plan(request.plan) {
        Some(mut remote) => run(request, &mut remote, Interrupt::install, events),
        None => run(
            request,
            &mut Processes::default(),
            Interrupt::install,
            events,
        ),
    }
}
