//! What the host lets the runner do with cgroups, found once per process:
//! pure v2 with delegated controllers, hybrid (v1 controllers plus a v2
//! hierarchy without controllers, for `cgroup.kill`), pure v1, or none.
//!
//! The runner nests its service cgroups under its *own* cgroup in each
//! hierarchy (read from /proc/self/cgroup), so limits set above the runner
//! (a container's, a CI job's) still apply to its services.
//!
//! Detection is split in two: [`scan`] reads files only (tested against a
//! temp directory laid out like cgroupfs), a probe creates and removes one
//! directory per hierarchy to learn whether the runner may write there.
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::files;

/// Which cgroup layout the runner uses on this host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Pure cgroup v2 (one hierarchy at the root).
    V2,
    /// v1 controllers, plus a controller-less v2 hierarchy (`unified`) whose
    /// `cgroup.kill` ends a whole service at once.
    Hybrid,
    /// v1 controllers only: a service is ended with the freezer.
    V1,
    /// No writable hierarchy (not root, read-only, disabled): services are
    /// contained by session and process group only.
    None,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::V2 => "v2",
            Mode::Hybrid => "hybrid",
            Mode::V1 => "v1",
            Mode::None => "none",
        }
    }
}

/// The controllers the runner uses. On v2 only cpu, memory, pids and
/// cpuset exist as controllers (CPU accounting and freezing are core files).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Controller {
    Cpu,
    Cpuacct,
    Memory,
    Pids,
    Freezer,
    Cpuset,
}

impl Controller {
    /// The v1 controllers the runner mounts a service into, in this order.
    pub const V1: [Controller; 6] = [
        Controller::Cpu,
        Controller::Cpuacct,
        Controller::Memory,
        Controller::Pids,
        Controller::Freezer,
        Controller::Cpuset,
    ];
    /// The v2 controllers the runner enables for its service cgroups.
    pub const V2: [Controller; 4] = [
        Controller::Cpu,
        Controller::Memory,
        Controller::Pids,
        Controller::Cpuset,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Controller::Cpu => "cpu",
            Controller::Cpuacct => "cpuacct",
            Controller::Memory => "memory",
            Controller::Pids => "pids",
            Controller::Freezer => "freezer",
            Controller::Cpuset => "cpuset",
        }
    }
}

/// The writable hierarchies found, and the runner's own cgroup in each.
#[derive(Debug, Clone, PartialEq)]
pub struct Host {
    pub mode: Mode,
    /// Why this mode (what was found, what was refused), for environment.json.
    pub why: String,
    /// The runner's own cgroup directory on the v2 hierarchy (pure v2: under
    /// the root; hybrid: under `unified`), when writable.
    pub unified: Option<PathBuf>,
    /// Pure v2: the controllers enabled for the runner's child cgroups.
    pub v2_controllers: Vec<Controller>,
    /// v1: each writable controller with the runner's own cgroup directory in it.
    pub v1: Vec<(Controller, PathBuf)>,
}

impl Host {
    /// A host where nothing is usable, with why.
    pub fn none(why: impl Into<String>) -> Host {
        Host {
            mode: Mode::None,
            why: why.into(),
            unified: None,
            v2_controllers: Vec::new(),
            v1: Vec::new(),
        }
    }

    /// Whether `controller` can be set for a service (v2 enabled or v1 writable).
    pub fn has(&self, controller: Controller) -> bool {
        self.v2_controllers.contains(&controller) || self.v1.iter().any(|(c, _)| *c == controller)
    }
}

/// What a probe of one hierarchy found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    /// A child cgroup has `cgroup.kill` (v2, Linux 5.14+).
    pub kill_file: bool,
}

/// The runner's own cgroup per hierarchy, from /proc/self/cgroup
/// (`hierarchy-id:controllers:path`; v2 is `0::path`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OwnCgroups {
    pub v2: Option<String>,
    pub v1: Vec<(String, String)>,
}

impl OwnCgroups {
    pub fn parse(text: &str) -> OwnCgroups {
        let mut own = OwnCgroups::default();
        for line in text.lines() {
            let mut parts = line.splitn(3, ':');
            let (Some(_), Some(controllers), Some(path)) =
                (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            if controllers.is_empty() {
                own.v2 = Some(path.to_string());
            } else {
                for c in controllers.split(',') {
                    own.v1.push((c.to_string(), path.to_string()));
                }
            }
        }
        own
    }

    fn v1_path(&self, controller: Controller) -> Option<&str> {
        self.v1
            .iter()
            .find(|(c, _)| c == controller.name())
            .map(|(_, p)| p.as_str())
    }
}

/// `mount` joined with a cgroup path from /proc/self/cgroup (`/a/b`).
fn under(mount: &Path, path: &str) -> PathBuf {
    mount.join(path.trim_start_matches('/'))
}

/// Detects the layout under `root` (normally /sys/fs/cgroup), given
/// /proc/self/cgroup's text, with `probe` telling whether a hierarchy
/// directory is writable (the real one creates and removes a child).
pub fn scan(root: &Path, self_cgroup: &str, probe: &dyn Fn(&Path) -> io::Result<Probe>) -> Host {
    let own = OwnCgroups::parse(self_cgroup);
    if root.join("cgroup.controllers").is_file() {
        return scan_v2(root, &own, probe);
    }
    let mut refused = Vec::new();
    let mut v1 = Vec::new();
    for controller in Controller::V1 {
        let mount = root.join(controller.name());
        if !mount.join("cgroup.procs").is_file() {
            continue;
        }
        let Some(path) = own.v1_path(controller) else {
            continue;
        };
        let dir = under(&mount, path);
        match probe(&dir) {
            Ok(_) => v1.push((controller, dir)),
            Err(e) => refused.push(format!("{}: {e}", dir.display())),
        }
    }
    let unified_mount = root.join("unified");
    let unified = match own.v2.as_deref() {
        Some(path) if unified_mount.join("cgroup.procs").is_file() => {
            let dir = under(&unified_mount, path);
            match probe(&dir) {
                Ok(Probe { kill_file: true }) => Some(dir),
                Ok(Probe { kill_file: false }) => {
                    refused.push(format!(
                        "{}: no cgroup.kill (kernel before 5.14)",
                        dir.display()
                    ));
                    None
                }
                Err(e) => {
                    refused.push(format!("{}: {e}", dir.display()));
                    None
                }
            }
        }
        _ => None,
    };
    let names: Vec<&str> = v1.iter().map(|(c, _)| c.name()).collect();
    let refused_text = if refused.is_empty() {
        String::new()
    } else {
        format!("; not writable: {}", refused.join(", "))
    };
    let (mode, why) = match (&unified, v1.is_empty()) {
        (Some(dir), false) => (
            Mode::Hybrid,
            format!(
                "v1 controllers {} writable, cgroup.kill from the v2 hierarchy at {}{refused_text}",
                names.join(", "),
                dir.display()
            ),
        ),
        (None, false) => (
            Mode::V1,
            format!("v1 controllers {} writable{refused_text}", names.join(", ")),
        ),
        (Some(dir), true) => (
            Mode::V2,
            format!(
                "a v2 hierarchy at {} without controllers (kill and CPU time only){refused_text}",
                dir.display()
            ),
        ),
        (None, true) => {
            return Host::none(format!(
                "no writable cgroup hierarchy under {}{refused_text}",
                root.display()
            ));
        }
    };
    Host {
        mode,
        why,
        unified,
        v2_controllers: Vec::new(),
        v1,
    }
}

/// Pure v2: the runner's own cgroup must be writable, and the controllers
/// it needs enabled for its children (`cgroup.subtree_control`). Enabling
/// them fails when the runner's cgroup holds processes (the v2 "no internal
/// processes" rule) and is not the root: then the mode says which are missing.
fn scan_v2(root: &Path, own: &OwnCgroups, probe: &dyn Fn(&Path) -> io::Result<Probe>) -> Host {
    let Some(path) = own.v2.as_deref() else {
        return Host::none(format!(
            "{} is a cgroup v2 mount, but /proc/self/cgroup names no v2 cgroup",
            root.display()
        ));
    };
    let dir = under(root, path);
    if let Err(e) = probe(&dir) {
        return Host::none(format!("{} is not writable: {e}", dir.display()));
    }
    let available = std::fs::read_to_string(dir.join("cgroup.controllers")).unwrap_or_default();
    let mut enabled: Vec<Controller> = Vec::new();
    let mut missing = Vec::new();
    for controller in Controller::V2 {
        let name = controller.name();
        let subtree =
            std::fs::read_to_string(dir.join("cgroup.subtree_control")).unwrap_or_default();
        if subtree.split_whitespace().any(|c| c == name) {
            enabled.push(controller);
        } else if !available.split_whitespace().any(|c| c == name) {
            missing.push(format!("{name} (not delegated to {})", dir.display()));
        } else {
            match files::write(&dir.join("cgroup.subtree_control"), &format!("+{name}")) {
                Ok(()) => enabled.push(controller),
                Err(e) => missing.push(format!("{name} ({e})")),
            }
        }
    }
    let names: Vec<&str> = enabled.iter().map(|c| c.name()).collect();
    let mut why = format!(
        "cgroup v2 at {}, controllers enabled for services: {}",
        dir.display(),
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    );
    if !missing.is_empty() {
        why.push_str(&format!("; missing: {}", missing.join(", ")));
    }
    Host {
        mode: Mode::V2,
        why,
        unified: Some(dir),
        v2_controllers: enabled,
        v1: Vec::new(),
    }
}

/// The real probe: create and remove `dir/<name>`, noting `cgroup.kill`.
pub fn probe_by_mkdir(dir: &Path, name: &str) -> io::Result<Probe> {
    let child = dir.join(name);
    std::fs::create_dir(&child)?;
    let kill_file = child.join("cgroup.kill").exists();
    std::fs::remove_dir(&child)?;
    Ok(Probe { kill_file })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn writable(_: &Path) -> io::Result<Probe> {
        Ok(Probe { kill_file: true })
    }

    fn cgroupfs_v1(root: &Path, controllers: &[&str]) {
        for c in controllers {
            fs::create_dir_all(root.join(c)).unwrap();
            fs::write(root.join(c).join("cgroup.procs"), "").unwrap();
        }
    }

    const HYBRID_SELF: &str = "9:name=systemd:/\n8:pids:/\n6:freezer:/\n4:memory:/process_api/abc\n\
                               3:cpuset:/\n2:cpuacct:/\n1:cpu:/\n0::/\n";

    #[test]
    fn own_cgroups_are_read_per_controller() {
        let own =
            OwnCgroups::parse("4:memory:/process_api/abc\n2:cpu,cpuacct:/x\n0::/user.slice\n");
        assert_eq!(own.v2.as_deref(), Some("/user.slice"));
        assert_eq!(own.v1_path(Controller::Memory), Some("/process_api/abc"));
        assert_eq!(own.v1_path(Controller::Cpuacct), Some("/x"));
        assert_eq!(own.v1_path(Controller::Freezer), None);
    }

    #[test]
    fn hybrid_nests_under_the_runners_own_cgroup() {
        let root = tempfile::tempdir().unwrap();
        cgroupfs_v1(
            root.path(),
            &[
                "cpu", "cpuacct", "memory", "pids", "freezer", "cpuset", "unified",
            ],
        );
        let host = scan(root.path(), HYBRID_SELF, &writable);
        assert_eq!(host.mode, Mode::Hybrid, "{}", host.why);
        assert_eq!(host.unified, Some(root.path().join("unified")));
        let memory = host
            .v1
            .iter()
            .find(|(c, _)| *c == Controller::Memory)
            .unwrap();
        assert_eq!(memory.1, root.path().join("memory/process_api/abc"));
        assert_eq!(host.v1.len(), 6);
        assert!(host.has(Controller::Cpu) && host.has(Controller::Memory));
    }

    #[test]
    fn v1_only_and_refusals_are_said() {
        let root = tempfile::tempdir().unwrap();
        cgroupfs_v1(root.path(), &["cpu", "cpuacct", "memory", "freezer"]);
        let refuse_memory = |dir: &Path| {
            if dir.starts_with(root.path().join("memory")) {
                Err(io::Error::from_raw_os_error(libc::EROFS))
            } else {
                Ok(Probe { kill_file: false })
            }
        };
        let host = scan(root.path(), HYBRID_SELF, &refuse_memory);
        assert_eq!(host.mode, Mode::V1);
        assert!(!host.has(Controller::Memory));
        assert!(
            host.why.contains("not writable") && host.why.contains("memory"),
            "{}",
            host.why
        );
    }

    #[test]
    fn nothing_writable_is_none_with_why() {
        let root = tempfile::tempdir().unwrap();
        cgroupfs_v1(root.path(), &["cpu", "memory", "unified"]);
        let refuse = |_: &Path| Err(io::Error::from_raw_os_error(libc::EACCES));
        let host = scan(root.path(), HYBRID_SELF, &refuse);
        assert_eq!(host.mode, Mode::None);
        assert!(host.why.contains("Permission denied"), "{}", host.why);
    }

    /// Pure v2 cannot be exercised on this project's hybrid hosts: a temp
    /// directory stands in for /sys/fs/cgroup.
    #[test]
    fn pure_v2_uses_the_controllers_enabled_for_children() {
        let root = tempfile::tempdir().unwrap();
        let own = root.path().join("user.slice/runner.scope");
        fs::create_dir_all(&own).unwrap();
        fs::write(root.path().join("cgroup.controllers"), "cpu memory pids").unwrap();
        fs::write(own.join("cgroup.controllers"), "cpu memory pids io").unwrap();
        fs::write(own.join("cgroup.subtree_control"), "cpu memory").unwrap();
        let host = scan(root.path(), "0::/user.slice/runner.scope\n", &writable);
        assert_eq!(host.mode, Mode::V2);
        assert_eq!(host.unified, Some(own.clone()));
        // pids was available, so it was enabled by writing `+pids`; cpuset was not delegated.
        assert_eq!(
            host.v2_controllers,
            vec![Controller::Cpu, Controller::Memory, Controller::Pids]
        );
        assert_eq!(
            fs::read_to_string(own.join("cgroup.subtree_control")).unwrap(),
            "+pids"
        );
        assert!(host.why.contains("cpuset (not delegated"), "{}", host.why);
    }
}
