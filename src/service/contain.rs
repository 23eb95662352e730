//! A service start's cgroup, as the service layer uses it: created fresh for
//! every start (measured and training) when the host allows cgroups, with
//! the start's limits and pinning, and an OOM kill put into words.
use crate::cgroup::{self, Mode, Seen, ServiceCgroup};

use super::ServiceError;
use super::process::ServiceCommand;

/// A fresh cgroup for this start of `command`, or `None` where the host
/// allows none (then containment is session and process group only, and
/// limits are refused: preflight says so before a run starts).
pub fn fresh_cgroup(command: &ServiceCommand) -> Result<Option<ServiceCgroup>, ServiceError> {
    let host = cgroup::host();
    if host.mode == Mode::None && command.limits.is_empty() {
        return Ok(None);
    }
    let name = cgroup::start_name(&command.runtime);
    ServiceCgroup::create(host, &name, &command.limits, command.cpus.as_deref())
        .map(Some)
        .map_err(|source| ServiceError::Cgroup {
            runtime: command.runtime.clone(),
            source,
        })
}

/// What process `pid` of the service sees of its limits (its CPUs, and
/// the quota and memory limit of its cgroup, read back).
pub fn seen(cgroup: Option<&ServiceCgroup>, pid: i32) -> Seen {
    match cgroup {
        Some(c) => c.seen_by(pid),
        None => cgroup::seen::seen_without_cgroup(pid),
    }
}

/// `exit` with the OOM kill appended when the kernel's OOM killer ended a
/// process of the cgroup: `signal 9 (KILL); OOM-killed: ... limit of 64MiB`.
pub fn with_oom(exit: String, cgroup: Option<&ServiceCgroup>) -> String {
    match cgroup.and_then(ServiceCgroup::oom_text) {
        Some(oom) => format!("{exit}; {oom}"),
        None => exit,
    }
}
