//! CPU and memory limits of a service and the cgroup files that carry them:
//! v2 `cpu.max` / `memory.max` (with `memory.swap.max`), v1
//! `cpu.cfs_quota_us` with `cpu.cfs_period_us` / `memory.limit_in_bytes`
//! (with `memory.memsw.limit_in_bytes`), and `cpuset.cpus` when the spec
//! pins the service (`affinity`).
use serde::{Deserialize, Serialize};

/// The CFS period the runner uses: 100 ms, the kernel's default, so a quota
/// of `cpus x 100 ms` per period is `cpus` cores.
pub const CFS_PERIOD_US: u64 = 100_000;

/// A service's limits, as the spec resolved them for a cell.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// CPU bandwidth in cores (1.5 = one and a half cores per period).
    pub cpus: Option<f64>,
    /// Memory limit in bytes (swap is limited to nothing beside it).
    pub memory_bytes: Option<u64>,
}

impl Limits {
    pub fn is_empty(&self) -> bool {
        self.cpus.is_none() && self.memory_bytes.is_none()
    }

    /// The CFS quota per [`CFS_PERIOD_US`] for `cpus` (at least 1 ms, the kernel's minimum).
    pub fn quota_us(&self) -> Option<u64> {
        self.cpus
            .map(|c| ((c * CFS_PERIOD_US as f64).round() as u64).max(1000))
    }

    /// `cpus=1.5 memory=512MiB`, or `none`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(c) = self.cpus {
            parts.push(format!("cpus={c}"));
        }
        if let Some(m) = self.memory_bytes {
            parts.push(format!("memory={}", super::size::format_bytes(m)));
        }
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(" ")
        }
    }
}

/// One cgroup file write, relative to the service's cgroup directory in a
/// hierarchy: the unit [`super::group`] applies and configurations.csv records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    pub file: &'static str,
    pub value: String,
}

fn set(file: &'static str, value: impl ToString) -> Setting {
    Setting {
        file,
        value: value.to_string(),
    }
}

/// The v2 writes for `limits` and `cpuset` (the files of one unified cgroup).
pub fn v2_settings(limits: &Limits, cpuset: Option<&str>) -> Vec<Setting> {
    let mut out = Vec::new();
    if let Some(quota) = limits.quota_us() {
        out.push(set("cpu.max", format!("{quota} {CFS_PERIOD_US}")));
    }
    if let Some(bytes) = limits.memory_bytes {
        out.push(set("memory.max", bytes));
        out.push(set("memory.swap.max", 0));
    }
    if let Some(cpus) = cpuset {
        out.push(set("cpuset.cpus", cpus));
    }
    out
}

/// The v1 cpu controller's writes (period first: the quota is checked against it).
pub fn v1_cpu_settings(limits: &Limits) -> Vec<Setting> {
    limits
        .quota_us()
        .map(|quota| {
            vec![
                set("cpu.cfs_period_us", CFS_PERIOD_US),
                set("cpu.cfs_quota_us", quota),
            ]
        })
        .unwrap_or_default()
}

/// The v1 memory controller's writes (memory before memsw: memsw may not be
/// below it). `memsw` only when the kernel accounts swap.
pub fn v1_memory_settings(limits: &Limits, memsw: bool) -> Vec<Setting> {
    let Some(bytes) = limits.memory_bytes else {
        return Vec::new();
    };
    let mut out = vec![set("memory.limit_in_bytes", bytes)];
    if memsw {
        out.push(set("memory.memsw.limit_in_bytes", bytes));
    }
    out
}

/// `0-1,3` style list of CPU indices, as cpuset.cpus takes it.
pub fn cpu_list(cpus: &[usize]) -> String {
    cpus.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpus_become_a_quota_per_period() {
        let l = Limits {
            cpus: Some(1.5),
            memory_bytes: Some(512 << 20),
        };
        assert_eq!(
            v2_settings(&l, Some("0,1")),
            vec![
                set("cpu.max", "150000 100000"),
                set("memory.max", 536_870_912u64),
                set("memory.swap.max", 0),
                set("cpuset.cpus", "0,1"),
            ]
        );
        assert_eq!(
            v1_cpu_settings(&l),
            vec![
                set("cpu.cfs_period_us", 100_000),
                set("cpu.cfs_quota_us", 150_000)
            ]
        );
        assert_eq!(
            v1_memory_settings(&l, true),
            vec![
                set("memory.limit_in_bytes", 536_870_912u64),
                set("memory.memsw.limit_in_bytes", 536_870_912u64)
            ]
        );
        assert_eq!(l.describe(), "cpus=1.5 memory=512MiB");
    }

    #[test]
    fn tiny_quotas_are_raised_to_the_kernel_minimum_and_nothing_is_nothing() {
        let l = Limits {
            cpus: Some(0.001),
            memory_bytes: None,
        };
        assert_eq!(l.quota_us(), Some(1000));
        assert!(v1_memory_settings(&l, true).is_empty());
        assert!(v2_settings(&Limits::default(), None).is_empty());
        assert_eq!(Limits::default().describe(), "none");
    }
}
