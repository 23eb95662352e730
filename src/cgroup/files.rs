//! Reading and writing cgroupfs files, and parsing their formats: a single
//! number (`memory.current`, `cpuacct.usage`), `max`, flat-keyed lines
//! (`cpu.stat`, `memory.stat`, `memory.events`) and pid lists
//! (`cgroup.procs`). Pure text functions, so the pure-v2 layout (which this
//! project's hybrid hosts cannot exercise) is tested against a temp directory.
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// A cgroup file that could not be read or written, with what to do.
#[derive(Debug, thiserror::Error)]
pub enum CgroupError {
    #[error(
        "cannot write `{value}` to {path}: {source}; the runner needs write access to its cgroup \
         (run as root, or on a host that delegates the cgroup to the runner's user)"
    )]
    Write {
        path: PathBuf,
        value: String,
        #[source]
        source: io::Error,
    },
    #[error(
        "cannot create cgroup {path}: {source}; check that the hierarchy is mounted read-write"
    )]
    Create {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "cannot read {path}: {source}; the cgroup file the runner expected is missing (kernel too old, \
         or the controller is not enabled for this cgroup)"
    )]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "`{what}` needs the {controller} cgroup controller, which this host does not let \
         the runner use ({why}); run as root on a host with writable cgroups, or remove `{what}` from the runtime"
    )]
    Unsupported {
        what: String,
        controller: &'static str,
        why: String,
    },
    #[error(
        "processes survived the kill of cgroup {path}: {pids:?}; they are still running: end them by pid \
         (`kill -9 PID`) and report this as a bug of the runner"
    )]
    NotEmpty { path: PathBuf, pids: Vec<i32> },
    #[error(
        "cgroup {path} could not be removed: {source}; remove it by hand (`rmdir {path}`) once it is empty"
    )]
    Remove {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// Writes `value` to the cgroup file `path` (one `write`, as cgroupfs wants).
pub fn write(path: &Path, value: &str) -> Result<(), CgroupError> {
    fs::write(path, value).map_err(|source| CgroupError::Write {
        path: path.to_path_buf(),
        value: value.to_string(),
        source,
    })
}

/// Reads a cgroup file as text.
pub fn read(path: &Path) -> Result<String, CgroupError> {
    fs::read_to_string(path).map_err(|source| CgroupError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// One unsigned number (`max` is `None`: no limit).
pub fn parse_number(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

/// The value of `key` in flat-keyed text (`key value` per line).
pub fn keyed(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        (words.next() == Some(key))
            .then(|| words.next()?.parse().ok())
            .flatten()
    })
}

/// The pids of a `cgroup.procs` file (one per line).
pub fn parse_pids(text: &str) -> Vec<i32> {
    text.lines().filter_map(|l| l.trim().parse().ok()).collect()
}

/// The pids in `dir/cgroup.procs`; empty when the file is gone.
pub fn pids_in(dir: &Path) -> Vec<i32> {
    fs::read_to_string(dir.join("cgroup.procs"))
        .map(|t| parse_pids(&t))
        .unwrap_or_default()
}

/// `u64` from a file, `None` when unreadable or `max`.
pub fn read_number(path: &Path) -> Option<u64> {
    parse_number(&fs::read_to_string(path).ok()?)
}

/// The `key` of a flat-keyed file, `None` when unreadable or absent.
pub fn read_keyed(path: &Path, key: &str) -> Option<u64> {
    keyed(&fs::read_to_string(path).ok()?, key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_keyed_files_give_the_named_value() {
        let cpu_stat = "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\nnr_periods 0\n";
        assert_eq!(keyed(cpu_stat, "usage_usec"), Some(1_500_000));
        assert_eq!(keyed(cpu_stat, "user"), None);
        let v1_oom = "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n";
        assert_eq!(keyed(v1_oom, "oom_kill"), Some(2));
        assert_eq!(keyed(v1_oom, "oom_kill_disable"), Some(0));
    }

    #[test]
    fn numbers_and_max() {
        assert_eq!(parse_number("4096\n"), Some(4096));
        assert_eq!(parse_number("max\n"), None);
        assert_eq!(parse_pids("12\n13\n\n"), vec![12, 13]);
    }
}
