//! Limits need a cgroup controller the runner can write: a spec with
//! `limits` on a host without one is stopped before anything starts, once
//! per runtime and controller, saying what to do.
use std::collections::BTreeSet;

use crate::cgroup::{Controller, Host};
use crate::plan::Plan;

/// One problem per runtime of `runtimes` whose cells ask for a limit that
/// `host` cannot apply.
pub fn limit_problems(plan: &Plan, runtimes: &BTreeSet<String>, host: &Host) -> Vec<String> {
    let mut problems = Vec::new();
    for rt in plan.runtimes.iter().filter(|r| runtimes.contains(&r.name)) {
        let cells: Vec<_> = plan.cells.iter().filter(|c| c.runtime == rt.name).collect();
        let wants = [
            (
                "limits.cpus",
                Controller::Cpu,
                cells.iter().any(|c| c.limits.cpus.is_some()),
            ),
            (
                "limits.memory",
                Controller::Memory,
                cells.iter().any(|c| c.limits.memory_bytes.is_some()),
            ),
        ];
        for (field, controller, wanted) in wants {
            if wanted && !host.has(controller) {
                problems.push(format!(
                    "runtime {}: `{field}` needs the {} cgroup controller, which this host does not let the runner write \
                     (cgroups: {}, {}); run the runner as root on a host with writable cgroups (v2 with delegated \
                     controllers, or v1 {} mounted read-write), or remove `{field}` from runtime {}",
                    rt.name,
                    controller.name(),
                    host.mode.as_str(),
                    host.why,
                    controller.name(),
                    rt.name
                ));
            }
        }
    }
    problems
}
