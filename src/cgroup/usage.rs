//! What the sampler reads from a service's cgroup: CPU time of the whole
//! cgroup (children that already exited included: the counter is the
//! cgroup's, not a process's), memory current / peak and its anon / file
//! split, tasks (threads), and per process PSS (`smaps_rollup`) and open fds.
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::files;

/// Where the cgroup's cumulative CPU time is.
#[derive(Debug, Clone, PartialEq)]
pub enum CpuSource {
    /// v2 `cpu.stat`, `usage_usec` (a core file: present without the cpu controller).
    V2Stat(PathBuf),
    /// v1 `cpuacct.usage`, nanoseconds.
    V1Usage(PathBuf),
}

impl CpuSource {
    pub fn seconds(&self) -> Option<f64> {
        match self {
            CpuSource::V2Stat(p) => files::read_keyed(p, "usage_usec").map(|us| us as f64 / 1e6),
            CpuSource::V1Usage(p) => files::read_number(p).map(|ns| ns as f64 / 1e9),
        }
    }
}

/// The memory controller's files in one hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryFiles {
    current: PathBuf,
    peak: PathBuf,
    stat: PathBuf,
    anon_key: &'static str,
    file_key: &'static str,
    v2: bool,
}

impl MemoryFiles {
    pub fn v2(dir: &Path) -> Self {
        MemoryFiles {
            current: dir.join("memory.current"),
            peak: dir.join("memory.peak"),
            stat: dir.join("memory.stat"),
            anon_key: "anon",
            file_key: "file",
            v2: true,
        }
    }

    /// v1's `total_*` keys include nested cgroups, as v2's always do.
    pub fn v1(dir: &Path) -> Self {
        MemoryFiles {
            current: dir.join("memory.usage_in_bytes"),
            peak: dir.join("memory.max_usage_in_bytes"),
            stat: dir.join("memory.stat"),
            anon_key: "total_rss",
            file_key: "total_cache",
            v2: false,
        }
    }
}

/// Every file the sampler reads for one service's cgroup.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UsageFiles {
    pub cpu: Option<CpuSource>,
    pub memory: Option<MemoryFiles>,
    /// `pids.current`: tasks, i.e. threads of every process.
    pub tasks: Option<PathBuf>,
    /// `cgroup.procs`: the processes, for PSS and fds.
    pub procs: Option<PathBuf>,
}

/// One reading of a cgroup; a field is `None` where the host lacks its file.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CgroupUsage {
    /// Cumulative CPU seconds since the cgroup was created.
    pub cpu_s: Option<f64>,
    pub memory_bytes: Option<u64>,
    pub anon_bytes: Option<u64>,
    pub file_bytes: Option<u64>,
    pub tasks: Option<u32>,
    /// Proportional set size summed over the cgroup's processes: a page
    /// shared by n processes counts 1/n in each.
    pub pss_bytes: Option<u64>,
    pub fds: Option<u32>,
}

impl UsageFiles {
    /// Reads the cgroup-wide figures, and with `per_process` also PSS and
    /// fds of every process in it (one `smaps_rollup` and one fd directory
    /// per process: the costly part, so the sampler does it less often).
    pub fn read(&self, per_process: bool) -> CgroupUsage {
        let mut u = CgroupUsage {
            cpu_s: self.cpu.as_ref().and_then(CpuSource::seconds),
            tasks: self
                .tasks
                .as_deref()
                .and_then(files::read_number)
                .map(|n| n as u32),
            ..Default::default()
        };
        if let Some(m) = &self.memory {
            u.memory_bytes = files::read_number(&m.current);
            if let Ok(stat) = std::fs::read_to_string(&m.stat) {
                u.anon_bytes = files::keyed(&stat, m.anon_key);
                u.file_bytes = files::keyed(&stat, m.file_key);
            }
        }
        if per_process && let Some(procs) = &self.procs {
            let pids = std::fs::read_to_string(procs)
                .map(|t| files::parse_pids(&t))
                .unwrap_or_default();
            let (mut pss, mut fds) = (0u64, 0u32);
            for pid in pids {
                pss += pss_kib(pid).unwrap_or(0) * 1024;
                fds += open_fds(pid).unwrap_or(0);
            }
            u.pss_bytes = Some(pss);
            u.fds = Some(fds);
        }
        u
    }

    /// Starts a window for the memory peak (the cell's): v1 resets
    /// `max_usage_in_bytes` by writing 0; v2 writes `reset` to an open
    /// `memory.peak` (Linux 6.12+), whose later reads through the same
    /// descriptor give the peak since then. Where no reset is possible the
    /// peak is the cgroup's since the service started.
    pub fn peak_window(&self) -> Option<PeakWindow> {
        let m = self.memory.as_ref()?;
        if m.v2 {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .open(&m.peak)
                .ok()?;
            let reset = file.write_all(b"reset\n").is_ok();
            Some(PeakWindow {
                file: Some(file),
                path: m.peak.clone(),
                reset,
            })
        } else {
            let reset = files::write(&m.peak, "0").is_ok();
            Some(PeakWindow {
                file: None,
                path: m.peak.clone(),
                reset,
            })
        }
    }
}

/// A memory-peak reading since [`UsageFiles::peak_window`].
#[derive(Debug)]
pub struct PeakWindow {
    file: Option<File>,
    path: PathBuf,
    /// False when the peak could not be reset (then it is since the start).
    pub reset: bool,
}

impl PeakWindow {
    pub fn read(&mut self) -> Option<u64> {
        match &mut self.file {
            Some(f) => {
                let mut text = String::new();
                f.seek(SeekFrom::Start(0)).ok()?;
                f.read_to_string(&mut text).ok()?;
                files::parse_number(&text)
            }
            None => files::read_number(&self.path),
        }
    }
}

/// `Pss:` of /proc/<pid>/smaps_rollup, in KiB.
pub fn pss_kib(pid: i32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    parse_pss_kib(&text)
}

pub fn parse_pss_kib(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
}

/// Entries of /proc/<pid>/fd.
pub fn open_fds(pid: i32) -> Option<u32> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn smaps_rollup_gives_pss() {
        let text = "55d0-7ffd ---p 00000000 00:00 0  [rollup]\nRss:    8840 kB\nPss:    2711 kB\nPss_Anon: 1000 kB\n";
        assert_eq!(parse_pss_kib(text), Some(2711));
    }

    /// A temp directory laid out like a v2 cgroup: the pure-v2 files this
    /// host (hybrid) cannot show are read as the kernel writes them.
    #[test]
    fn v2_files_are_read_as_the_kernel_writes_them() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(
            d.join("cpu.stat"),
            "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n",
        )
        .unwrap();
        fs::write(d.join("memory.current"), "104857600\n").unwrap();
        fs::write(
            d.join("memory.stat"),
            "anon 73400320\nfile 20971520\nkernel 1048576\n",
        )
        .unwrap();
        fs::write(d.join("memory.peak"), "209715200\n").unwrap();
        fs::write(d.join("pids.current"), "17\n").unwrap();
        fs::write(d.join("cgroup.procs"), format!("{}\n", std::process::id())).unwrap();
        let files = UsageFiles {
            cpu: Some(CpuSource::V2Stat(d.join("cpu.stat"))),
            memory: Some(MemoryFiles::v2(d)),
            tasks: Some(d.join("pids.current")),
            procs: Some(d.join("cgroup.procs")),
        };
        let u = files.read(true);
        assert_eq!(u.cpu_s, Some(2.5));
        assert_eq!(u.memory_bytes, Some(100 << 20));
        assert_eq!(
            (u.anon_bytes, u.file_bytes),
            (Some(70 << 20), Some(20 << 20))
        );
        assert_eq!(u.tasks, Some(17));
        assert!(u.pss_bytes.unwrap() > 0 && u.fds.unwrap() > 0, "{u:?}");
        assert!(files.read(false).pss_bytes.is_none());
    }

    #[test]
    fn v1_files_use_the_hierarchical_keys() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("cpuacct.usage"), "1500000000\n").unwrap();
        fs::write(d.join("memory.usage_in_bytes"), "4096\n").unwrap();
        fs::write(d.join("memory.max_usage_in_bytes"), "8192\n").unwrap();
        fs::write(
            d.join("memory.stat"),
            "rss 1\ncache 2\ntotal_rss 3072\ntotal_cache 1024\n",
        )
        .unwrap();
        let files = UsageFiles {
            cpu: Some(CpuSource::V1Usage(d.join("cpuacct.usage"))),
            memory: Some(MemoryFiles::v1(d)),
            ..Default::default()
        };
        let u = files.read(false);
        assert_eq!(u.cpu_s, Some(1.5));
        assert_eq!((u.anon_bytes, u.file_bytes), (Some(3072), Some(1024)));
        let mut window = files.peak_window().unwrap();
        assert!(window.reset);
        assert_eq!(window.read(), Some(0));
    }
}
