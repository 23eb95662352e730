//! What a service can see of its limits, read back from where its runtime
//! reads them: the CPUs its process may run on (`Cpus_allowed_list`, what
//! `nproc` and the JVM's and Go's CPU count start from), and the quota and
//! memory limit in its cgroup's own files (what Go >= 1.25 derives
//! GOMAXPROCS from and the JVM its processor count and default heap). The
//! kernel's value is read back, not the spec's: it may round (a memory
//! limit to whole pages) or refuse.
use std::path::Path;

use super::detect::{Controller, Mode};
use super::files;
use super::group::{Place, ServiceCgroup};
use super::size::format_bytes;

/// A limit read back from the service's cgroup and its first process.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    pub mode: Mode,
    /// `0-1`, from /proc/<pid>/status.
    pub cpus_allowed: Option<String>,
    /// CPU quota in cores (quota / period); `None`: unlimited.
    pub cpu_quota: Option<f64>,
    /// Memory limit in bytes; `None`: unlimited.
    pub memory_limit: Option<u64>,
}

impl Seen {
    /// `cpus 0-1 (2), quota 0.5 CPU, memory limit 64MiB`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(list) = &self.cpus_allowed {
            parts.push(format!("cpus {list} ({})", cpu_count(list)));
        }
        parts.push(match self.cpu_quota {
            Some(q) => format!("quota {q} CPU"),
            None => "no CPU quota".into(),
        });
        parts.push(match self.memory_limit {
            Some(m) => format!("memory limit {}", format_bytes(m)),
            None => "no memory limit".into(),
        });
        parts.join(", ")
    }
}

/// CPUs in a `0-3,5` list.
pub fn cpu_count(list: &str) -> usize {
    list.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|part| match part.trim().split_once('-') {
            Some((a, b)) => match (a.parse::<usize>(), b.parse::<usize>()) {
                (Ok(a), Ok(b)) if b >= a => b - a + 1,
                _ => 0,
            },
            None => 1,
        })
        .sum()
}

/// `Cpus_allowed_list` of process `pid`.
pub fn cpus_allowed(pid: i32) -> Option<String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .map(|v| v.trim().to_string())
}

/// v1 reports "no limit" as a huge number (PAGE_COUNTER_MAX pages).
fn limit(bytes: u64) -> Option<u64> {
    (bytes < 1 << 62).then_some(bytes)
}

/// `cpu.max` (`max 100000` or `50000 100000`) as cores.
pub fn parse_cpu_max(text: &str) -> Option<f64> {
    let mut words = text.split_whitespace();
    let quota: f64 = words.next()?.parse().ok()?;
    let period: f64 = words.next()?.parse().ok()?;
    (period > 0.0).then(|| quota / period)
}

fn v1_quota(dir: &Path) -> Option<f64> {
    let quota: i64 = files::read(&dir.join("cpu.cfs_quota_us"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    let period = files::read_number(&dir.join("cpu.cfs_period_us"))?;
    (quota > 0 && period > 0).then(|| quota as f64 / period as f64)
}

impl ServiceCgroup {
    /// What process `pid` of this service sees of its limits.
    pub fn seen_by(&self, pid: i32) -> Seen {
        let unified = self.dir(Place::Unified);
        let v2_cpu = unified.filter(|_| self.v2_has(Controller::Cpu));
        let v2_memory = unified.filter(|_| self.v2_has(Controller::Memory));
        let cpu_quota = match (v2_cpu, self.dir(Place::V1(Controller::Cpu))) {
            (Some(d), _) => files::read(&d.join("cpu.max"))
                .ok()
                .and_then(|t| parse_cpu_max(&t)),
            (None, Some(d)) => v1_quota(d),
            (None, None) => None,
        };
        let memory_limit = match (v2_memory, self.dir(Place::V1(Controller::Memory))) {
            (Some(d), _) => files::read_number(&d.join("memory.max")),
            (None, Some(d)) => files::read_number(&d.join("memory.limit_in_bytes")).and_then(limit),
            (None, None) => None,
        };
        Seen {
            mode: self.mode(),
            cpus_allowed: cpus_allowed(pid),
            cpu_quota,
            memory_limit,
        }
    }
}

/// What a process without a cgroup of its own sees: its CPUs only.
pub fn seen_without_cgroup(pid: i32) -> Seen {
    Seen {
        mode: Mode::None,
        cpus_allowed: cpus_allowed(pid),
        cpu_quota: None,
        memory_limit: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotas_and_cpu_lists_read_as_the_kernel_writes_them() {
        assert_eq!(parse_cpu_max("50000 100000\n"), Some(0.5));
        assert_eq!(parse_cpu_max("max 100000\n"), None);
        assert_eq!(cpu_count("0-3,5"), 5);
        assert_eq!(cpu_count("1"), 1);
        assert_eq!(limit(9_223_372_036_854_771_712), None);
        let seen = Seen {
            mode: Mode::Hybrid,
            cpus_allowed: Some("0-1".into()),
            cpu_quota: Some(0.5),
            memory_limit: Some(64 << 20),
        };
        assert_eq!(
            seen.describe(),
            "cpus 0-1 (2), quota 0.5 CPU, memory limit 64MiB"
        );
        assert!(cpus_allowed(std::process::id() as i32).is_some());
    }
}
