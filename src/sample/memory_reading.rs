//! One reading of a service's memory, every process of its session
//! together: the memory phases' idle and after-load readings (exec's
//! `memory_phases`), taken here or by a service host's far side.
use serde::{Deserialize, Serialize};

use super::procfs::{session_pids, session_usage};
use crate::cgroup::UsageFiles;

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct MemoryReading {
    pub processes: u32,
    /// RSS summed over the processes.
    pub rss_bytes: Option<u64>,
    /// PSS summed (shared pages split), only when every process's
    /// smaps_rollup was readable: a partial sum would look like a smaller service.
    pub pss_bytes: Option<u64>,
    /// The service's memory cgroup's `memory.current`, where it has one.
    pub cgroup_bytes: Option<u64>,
}

impl MemoryReading {
    /// Reads the session `sid` and its cgroup's files now.
    pub fn read(sid: i32, cgroup: Option<&UsageFiles>) -> MemoryReading {
        let tree = session_usage(sid);
        let pids = session_pids(sid);
        let pss: Option<u64> = pids
            .iter()
            .map(|&pid| crate::cgroup::usage::pss_kib(pid).map(|kib| kib * 1024))
            .sum();
        MemoryReading {
            processes: tree.processes,
            rss_bytes: (tree.processes > 0).then_some(tree.rss_bytes),
            pss_bytes: pss.filter(|_| !pids.is_empty()),
            cgroup_bytes: cgroup.and_then(|c| c.read(false).memory_bytes),
        }
    }
}
