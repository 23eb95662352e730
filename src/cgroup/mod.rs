//! Stage `cgroup`: a cgroup per service start, below every stage that runs
//! services (`process` joins a child to it before exec, `service` creates,
//! kills and removes it, `sample` reads it, `preflight` checks that limits
//! can be applied). It imports nothing of the crate but the utility modules.
//!
//! Why not the cgroups-rs crate: it picks one hierarchy kind per host (v1
//! unless the root is a v2 mount), so on a hybrid host, this project's
//! machines and CI, it cannot use the v2 hierarchy's `cgroup.kill` beside the
//! v1 controllers; it attaches tasks with allocating writes, which a
//! `pre_exec` hook may not do; and it would bring nix and regex for a few
//! dozen file writes. This module is those writes, typed.
//!
//! - [`detect`]: which mode the host allows (v2 / hybrid / v1 / none), once;
//! - [`group`]: one service start's cgroup: create with limits, kill, empty, remove;
//! - [`limits`]: CPU and memory limits and the files that carry them;
//! - [`usage`]: what the sampler reads (CPU, memory, tasks, PSS, fds);
//! - [`seen`]: what a service sees of its limits, read back for configurations.csv;
//! - [`files`]: cgroupfs reads and writes, formats, errors;
//! - [`size`]: memory sizes as written in specs (`512MiB`).
pub mod detect;
pub mod files;
pub mod group;
pub mod limits;
pub mod seen;
pub mod size;
pub mod usage;

use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use serde::{Deserialize, Serialize};

pub use detect::{Controller, Host, Mode};
pub use files::CgroupError;
pub use group::ServiceCgroup;
pub use limits::Limits;
pub use seen::Seen;
pub use usage::{CgroupUsage, PeakWindow, UsageFiles};

/// Setting this variable to `none` makes the runner use no cgroups
/// (session and process-group containment only), e.g. to compare.
pub const DISABLE_VAR: &str = "RUNNER_CGROUP";

/// The host's cgroup layout, detected on first use and kept for the process.
pub fn host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(|| {
        if std::env::var(DISABLE_VAR).is_ok_and(|v| v == "none") {
            return Host::none(format!("disabled by {DISABLE_VAR}=none"));
        }
        let self_cgroup = match std::fs::read_to_string("/proc/self/cgroup") {
            Ok(text) => text,
            Err(e) => return Host::none(format!("cannot read /proc/self/cgroup: {e}")),
        };
        let probe_name = format!("runner-{}-probe", std::process::id());
        detect::scan(Path::new("/sys/fs/cgroup"), &self_cgroup, &|dir| {
            detect::probe_by_mkdir(dir, &probe_name)
        })
    })
}

/// environment.json's record of the mode.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CgroupReport {
    pub mode: Mode,
    pub why: String,
}

impl Host {
    pub fn report(&self) -> CgroupReport {
        CgroupReport {
            mode: self.mode,
            why: self.why.clone(),
        }
    }
}

/// A fresh cgroup name for a start of `runtime`: `runner-<pid>-<runtime>-<n>`,
/// with `n` counting this process's starts (several runners may share a
/// parent cgroup; the pid keeps them apart).
pub fn start_name(runtime: &str) -> String {
    static STARTS: AtomicU32 = AtomicU32::new(0);
    let n = STARTS.fetch_add(1, Ordering::Relaxed) + 1;
    let safe: String = runtime
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("runner-{}-{safe}-{n}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_names_are_fresh_and_safe() {
        let a = start_name("jdk/leyden aot");
        let b = start_name("jdk/leyden aot");
        assert_ne!(a, b);
        assert!(
            a.starts_with(&format!("runner-{}-jdk_leyden_aot-", std::process::id())),
            "{a}"
        );
    }
}
