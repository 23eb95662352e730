//! One service start's cgroup: a directory per hierarchy, created under the
//! runner's own cgroup before the service is spawned, limits written before
//! the first process joins, killed as a whole, checked empty, removed.
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::detect::{Controller, Host, Mode};
use super::files::{self, CgroupError};
use super::limits::{self, Limits, Setting};
use super::usage::{CpuSource, MemoryFiles, UsageFiles};

/// Where one directory of a service's cgroup lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The v2 hierarchy: pure v2 (with controllers) or hybrid's `unified`.
    Unified,
    V1(Controller),
}

/// A service's cgroup. Not removed on drop: [`ServiceCgroup::remove`] is
/// called once the service is known to be gone (the guard removes it if the
/// runner dies first).
#[derive(Debug)]
pub struct ServiceCgroup {
    mode: Mode,
    /// Created directories, in creation order.
    dirs: Vec<(Place, PathBuf)>,
    /// Pure v2 with controllers: the unified directory carries limits and accounting.
    unified_controllers: Vec<Controller>,
    limits: Limits,
    /// Every file written, `file=value`, for configurations.csv.
    applied: Vec<String>,
}

impl ServiceCgroup {
    /// Creates `name` under the runner's own cgroup in every usable
    /// hierarchy of `host` (the cpuset one only when `cpuset` is given), and
    /// writes `limits` and `cpuset` there. A limit the host cannot apply is
    /// an error; on any error nothing is left behind.
    pub fn create(
        host: &Host,
        name: &str,
        limits: &Limits,
        cpuset: Option<&[usize]>,
    ) -> Result<ServiceCgroup, CgroupError> {
        for (needed, controller, what) in [
            (limits.cpus.is_some(), Controller::Cpu, "limits.cpus"),
            (
                limits.memory_bytes.is_some(),
                Controller::Memory,
                "limits.memory",
            ),
        ] {
            if needed && !host.has(controller) {
                return Err(CgroupError::Unsupported {
                    what: what.to_string(),
                    controller: controller.name(),
                    why: format!("{}: {}", host.mode.as_str(), host.why),
                });
            }
        }
        let mut group = ServiceCgroup {
            mode: host.mode,
            dirs: Vec::new(),
            unified_controllers: host.v2_controllers.clone(),
            limits: limits.clone(),
            applied: Vec::new(),
        };
        match group.populate(host, name, cpuset) {
            Ok(()) => Ok(group),
            Err(e) => {
                let _ = group.remove();
                Err(e)
            }
        }
    }

    fn populate(
        &mut self,
        host: &Host,
        name: &str,
        cpuset: Option<&[usize]>,
    ) -> Result<(), CgroupError> {
        let cpu_list = cpuset.map(limits::cpu_list);
        if let Some(own) = &host.unified {
            let dir = self.make(Place::Unified, own, name)?;
            let cpuset = cpu_list
                .as_deref()
                .filter(|_| host.v2_controllers.contains(&Controller::Cpuset));
            // Only controllers enabled for the children carry limits (none on
            // hybrid's unified hierarchy, where v1 below does).
            let enabled = |file: &str| {
                host.v2_controllers
                    .iter()
                    .any(|c| file.starts_with(&format!("{}.", c.name())))
            };
            for s in limits::v2_settings(&self.limits, cpuset) {
                let optional = s.file == "memory.swap.max";
                if !enabled(s.file) || (optional && !dir.join(s.file).exists()) {
                    continue;
                }
                self.apply(&dir, &s)?;
            }
        }
        for (controller, own) in &host.v1 {
            let settings = match controller {
                Controller::Cpuset => {
                    let Some(list) = &cpu_list else { continue };
                    let mems = files::read(&own.join("cpuset.mems"))?;
                    vec![
                        Setting {
                            file: "cpuset.mems",
                            value: mems.trim().to_string(),
                        },
                        Setting {
                            file: "cpuset.cpus",
                            value: list.clone(),
                        },
                    ]
                }
                Controller::Cpu => limits::v1_cpu_settings(&self.limits),
                Controller::Memory => {
                    let memsw = own.join("memory.memsw.limit_in_bytes").exists();
                    limits::v1_memory_settings(&self.limits, memsw)
                }
                _ => Vec::new(),
            };
            let dir = self.make(Place::V1(*controller), own, name)?;
            for s in settings {
                self.apply(&dir, &s)?;
            }
        }
        Ok(())
    }

    fn make(&mut self, place: Place, own: &Path, name: &str) -> Result<PathBuf, CgroupError> {
        let dir = own.join(name);
        std::fs::create_dir(&dir).map_err(|source| CgroupError::Create {
            path: dir.clone(),
            source,
        })?;
        self.dirs.push((place, dir.clone()));
        Ok(dir)
    }

    fn apply(&mut self, dir: &Path, s: &Setting) -> Result<(), CgroupError> {
        files::write(&dir.join(s.file), &s.value)?;
        self.applied.push(format!("{}={}", s.file, s.value));
        Ok(())
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Every file written at creation, `file=value` (limits and cpuset).
    pub fn applied(&self) -> &[String] {
        &self.applied
    }

    pub(super) fn v2_has(&self, controller: Controller) -> bool {
        self.unified_controllers.contains(&controller)
    }

    pub(super) fn dir(&self, place: Place) -> Option<&Path> {
        self.dirs
            .iter()
            .find(|(p, _)| *p == place)
            .map(|(_, d)| d.as_path())
    }

    /// The directory whose `cgroup.procs` lists the service's processes.
    pub fn main_dir(&self) -> Option<&Path> {
        self.dir(Place::Unified)
            .or_else(|| self.dir(Place::V1(Controller::Freezer)))
            .or_else(|| self.dirs.first().map(|(_, d)| d.as_path()))
    }

    /// The `cgroup.procs` files the child writes itself into before exec,
    /// as C strings prepared before the fork.
    pub fn procs_files(&self) -> Vec<CString> {
        self.dirs
            .iter()
            .filter_map(|(_, d)| CString::new(d.join("cgroup.procs").as_os_str().as_bytes()).ok())
            .collect()
    }

    /// What the guard needs to kill and remove this cgroup on its own:
    /// `cgroup.kill` (v2) if there is one, and every directory.
    pub fn guard_targets(&self) -> (Option<PathBuf>, Vec<PathBuf>) {
        let kill = self.dir(Place::Unified).map(|d| d.join("cgroup.kill"));
        (kill, self.dirs.iter().map(|(_, d)| d.clone()).collect())
    }

    /// The live processes of the service, whatever session they moved to.
    pub fn pids(&self) -> Vec<i32> {
        self.main_dir().map(files::pids_in).unwrap_or_default()
    }

    /// Sends `signal` to every process in the cgroup (the declared stop
    /// signal reaches a daemon that left the service's session).
    pub fn signal_all(&self, signal: i32) {
        for pid in self.pids() {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe { libc::kill(pid, signal) };
        }
    }

    /// Kills everything in the cgroup: `cgroup.kill` on v2; on v1 the
    /// freezer holds every process still (no fork escapes between reading
    /// the list and the kills), each is SIGKILLed, then it is thawed so the
    /// kills are delivered.
    pub fn kill_all(&self) {
        if let Some(dir) = self.dir(Place::Unified) {
            let _ = files::write(&dir.join("cgroup.kill"), "1");
            return;
        }
        let freezer = self.dir(Place::V1(Controller::Freezer));
        if let Some(dir) = freezer {
            let _ = files::write(&dir.join("freezer.state"), "FROZEN");
            let deadline = Instant::now() + Duration::from_millis(500);
            while Instant::now() < deadline
                && files::read(&dir.join("freezer.state")).is_ok_and(|s| s.trim() != "FROZEN")
            {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        self.signal_all(libc::SIGKILL);
        if let Some(dir) = freezer {
            let _ = files::write(&dir.join("freezer.state"), "THAWED");
        }
    }

    /// Kills until every directory is empty, for up to `timeout`; the pids
    /// still there after it otherwise.
    pub fn kill_until_empty(&self, timeout: Duration) -> Result<(), CgroupError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left: Vec<i32> = self
                .dirs
                .iter()
                .flat_map(|(_, d)| files::pids_in(d))
                .collect();
            if left.is_empty() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                let mut pids = left;
                pids.sort_unstable();
                pids.dedup();
                return Err(CgroupError::NotEmpty {
                    path: self.main_dir().map(Path::to_path_buf).unwrap_or_default(),
                    pids,
                });
            }
            self.kill_all();
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// True when no process is left in the cgroup.
    pub fn is_empty(&self) -> bool {
        self.dirs.iter().all(|(_, d)| files::pids_in(d).is_empty())
    }

    /// Kills times the kernel's OOM killer ended a process of the cgroup
    /// (v2 `memory.events` oom_kill, v1 `memory.oom_control` oom_kill).
    pub fn oom_kills(&self) -> Option<u64> {
        if self.unified_controllers.contains(&Controller::Memory) {
            return files::read_keyed(&self.dir(Place::Unified)?.join("memory.events"), "oom_kill");
        }
        let dir = self.dir(Place::V1(Controller::Memory))?;
        files::read_keyed(&dir.join("memory.oom_control"), "oom_kill")
    }

    /// `the kernel's OOM killer ended 1 process(es) at the memory limit of 64MiB`,
    /// when it did.
    pub fn oom_text(&self) -> Option<String> {
        let kills = self.oom_kills().filter(|&n| n > 0)?;
        let limit = self.limits.memory_bytes.map_or_else(
            || "the host's memory".to_string(),
            |b| format!("the memory limit of {}", super::size::format_bytes(b)),
        );
        Some(format!(
            "OOM-killed: the kernel's OOM killer ended {kills} process(es) of the service at {limit}"
        ))
    }

    /// The files the sampler reads for this cgroup.
    pub fn usage_files(&self) -> UsageFiles {
        let unified = self.dir(Place::Unified);
        let v2_has = |c| self.unified_controllers.contains(&c);
        let v1 = |c| self.dir(Place::V1(c));
        let cpu = match (v1(Controller::Cpuacct), unified) {
            (Some(d), _) => Some(CpuSource::V1Usage(d.join("cpuacct.usage"))),
            (None, Some(d)) => Some(CpuSource::V2Stat(d.join("cpu.stat"))),
            (None, None) => None,
        };
        let memory = match (
            unified.filter(|_| v2_has(Controller::Memory)),
            v1(Controller::Memory),
        ) {
            (Some(d), _) => Some(MemoryFiles::v2(d)),
            (None, Some(d)) => Some(MemoryFiles::v1(d)),
            (None, None) => None,
        };
        let tasks = match (
            unified.filter(|_| v2_has(Controller::Pids)),
            v1(Controller::Pids),
        ) {
            (Some(d), _) | (None, Some(d)) => Some(d.join("pids.current")),
            (None, None) => None,
        };
        UsageFiles {
            cpu,
            memory,
            tasks,
            procs: self.main_dir().map(|d| d.join("cgroup.procs")),
        }
    }

    /// Removes every directory (nested ones first); retried for a moment,
    /// as the kernel may still be finishing the last exit.
    pub fn remove(&mut self) -> Result<(), CgroupError> {
        let mut first_error = None;
        while let Some((_, dir)) = self.dirs.pop() {
            if let Err(e) = remove_tree(&dir) {
                first_error.get_or_insert(CgroupError::Remove {
                    path: dir,
                    source: e,
                });
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

fn remove_tree(dir: &Path) -> std::io::Result<()> {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                remove_tree(&entry.path())?;
            }
        }
    }
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        match std::fs::remove_dir(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) if Instant::now() >= deadline => return Err(e),
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// Pure v2 cannot be exercised on this project's hybrid hosts: a temp
    /// directory stands in for the runner's own cgroup.
    #[test]
    fn pure_v2_writes_limits_and_cpuset_into_one_directory() {
        let root = tempfile::tempdir().unwrap();
        let host = Host {
            mode: Mode::V2,
            why: String::new(),
            unified: Some(root.path().to_path_buf()),
            v2_controllers: Controller::V2.to_vec(),
            v1: Vec::new(),
        };
        let limits = Limits {
            cpus: Some(0.5),
            memory_bytes: Some(64 << 20),
        };
        let group = ServiceCgroup::create(&host, "svc-1", &limits, Some(&[1])).unwrap();
        let dir = root.path().join("svc-1");
        let read = |f: &str| fs::read_to_string(dir.join(f)).unwrap();
        assert_eq!(read("cpu.max"), "50000 100000");
        assert_eq!(read("memory.max"), "67108864");
        assert_eq!(read("cpuset.cpus"), "1");
        // memory.swap.max is written only where the kernel has it.
        assert!(!dir.join("memory.swap.max").exists());
        assert_eq!(
            group.applied(),
            [
                "cpu.max=50000 100000",
                "memory.max=67108864",
                "cpuset.cpus=1"
            ]
        );
        assert_eq!(group.procs_files().len(), 1);
        let (kill, dirs) = group.guard_targets();
        assert_eq!(kill, Some(dir.join("cgroup.kill")));
        assert_eq!(dirs, vec![dir.clone()]);
        fs::write(
            dir.join("memory.events"),
            "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n",
        )
        .unwrap();
        assert_eq!(group.oom_kills(), Some(1));
        assert!(group.oom_text().unwrap().contains("memory limit of 64MiB"));
        let files = group.usage_files();
        assert_eq!(files.cpu, Some(CpuSource::V2Stat(dir.join("cpu.stat"))));
        assert_eq!(files.memory, Some(MemoryFiles::v2(&dir)));
    }

    #[test]
    fn a_limit_without_its_controller_is_refused_saying_why() {
        let host = Host::none("not root");
        let limits = Limits {
            cpus: Some(1.0),
            memory_bytes: None,
        };
        let err = ServiceCgroup::create(&host, "svc", &limits, None).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("limits.cpus") && text.contains("not root"),
            "{text}"
        );
    }

    /// On a host that lets the runner write cgroups (root here and in CI),
    /// a real cgroup holds a forking child, is killed whole and removed.
    #[test]
    fn a_real_cgroup_is_killed_whole_and_removed() {
        let host = crate::cgroup::host();
        if host.mode == Mode::None {
            eprintln!("skipped: no writable cgroups here ({})", host.why);
            return;
        }
        let limits = Limits {
            cpus: Some(0.5),
            memory_bytes: Some(256 << 20),
        };
        let mut group =
            ServiceCgroup::create(host, &crate::cgroup::start_name("test"), &limits, None).unwrap();
        let procs = group.procs_files();
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "sleep 30 & (setsid sleep 30 &) ; sleep 30"]);
        use std::os::unix::process::CommandExt;
        // SAFETY: open/write/close on paths prepared before the fork.
        unsafe {
            cmd.pre_exec(move || {
                for p in &procs {
                    let fd = libc::open(p.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                    if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                        return Err(std::io::Error::last_os_error());
                    }
                    libc::close(fd);
                }
                Ok(())
            });
        }
        let mut child = cmd.spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while group.pids().len() < 4 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(group.pids().len(), 4, "{:?}", group.pids());
        assert!(
            group.applied().iter().any(|a| a.contains("50000")),
            "{:?}",
            group.applied()
        );
        group.kill_until_empty(Duration::from_secs(5)).unwrap();
        child.wait().unwrap();
        assert!(group.is_empty());
        let (_, dirs) = group.guard_targets();
        group.remove().unwrap();
        assert!(dirs.iter().all(|d| !d.exists()), "{dirs:?}");
    }
}
