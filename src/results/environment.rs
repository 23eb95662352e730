//! environment.json: what a run ran on. Read from /proc, /sys and the
//! toolchains' own version commands; never from the process environment,
//! which may hold secrets.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::thread;
use std::time::Duration;

use crate::results::model::{Environment, HostInfo};
use crate::results::rfc3339_now;

/// How long one `--version` command may take before it is abandoned.
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(15);

/// A version command to record: `name` -> first line of `program args...`
/// (run in `dir` when set).
#[derive(Debug, Clone)]
pub struct VersionProbe {
    pub name: String,
    pub program: PathBuf,
    pub args: Vec<String>,
    pub dir: Option<PathBuf>,
    /// A spec's own command: when it exits non-zero, what it printed is
    /// recorded as a failure, not as a version.
    pub marks_failure: bool,
    /// The whole environment it runs with (a spec's command: the one a
    /// runtime's commands get, `process::env::command_env`); `None`: the
    /// runner's own, for the standard toolchain probes.
    pub env: Option<BTreeMap<String, String>>,
}

impl VersionProbe {
    pub fn new(name: &str, program: impl Into<PathBuf>, args: &[&str]) -> Self {
        VersionProbe {
            name: name.to_string(),
            program: program.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            dir: None,
            marks_failure: false,
            env: None,
        }
    }

    /// A spec's `version:` command: `sh -c command` in `dir`.
    pub fn shell(name: &str, command: &str, dir: PathBuf) -> Self {
        VersionProbe {
            dir: Some(dir),
            marks_failure: true,
            ..VersionProbe::new(name, "sh", &["-c", command])
        }
    }
}

/// The standard probes (`go version`, `node --version`, `rustc --version`,
/// `cargo --version`, `mvn -v`, `java -version`, `python3 --version` on PATH) plus one
/// `java -version` per resolved JDK home (`jdks`: label -> home).
pub fn standard_probes(jdks: &[(String, PathBuf)]) -> Vec<VersionProbe> {
    let mut probes = vec![
        VersionProbe::new("go", "go", &["version"]),
        VersionProbe::new("node", "node", &["--version"]),
        VersionProbe::new("rustc", "rustc", &["--version"]),
        VersionProbe::new("cargo", "cargo", &["--version"]),
        VersionProbe::new("mvn", "mvn", &["-v"]),
        VersionProbe::new("java", "java", &["-version"]),
        VersionProbe::new("python3", "python3", &["--version"]),
    ];
    for (label, home) in jdks {
        probes.push(VersionProbe::new(
            &format!("java ({label}: {})", home.display()),
            home.join("bin").join("java"),
            &["-version"],
        ));
    }
    probes
}

/// Captures the host and the toolchains (probes run in parallel, each
/// bounded by `timeout`; a missing tool is simply absent from the map).
pub fn capture(probes: &[VersionProbe], timeout: Duration) -> Environment {
    Environment {
        host: host_info(),
        toolchains: first_lines(probes, timeout),
        runner_version: env!("CARGO_PKG_VERSION").to_string(),
        captured_at: rfc3339_now(),
        cgroup: Some(crate::cgroup::host().report()),
        hosts: Vec::new(),
        versions: BTreeMap::new(),
        labels: BTreeMap::new(),
        sources: BTreeMap::new(),
        passed_env: BTreeMap::new(),
    }
}

/// Each probe's name -> the first line it printed (probes run in parallel,
/// each bounded by `timeout`; one that could not run is left out).
pub fn first_lines(probes: &[VersionProbe], timeout: Duration) -> BTreeMap<String, String> {
    thread::scope(|s| {
        let handles: Vec<_> = probes
            .iter()
            .map(|p| s.spawn(move || (p.name.clone(), first_line_of(p, timeout))))
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().ok())
            .filter_map(|(name, line)| line.map(|l| (name, l)))
            .collect()
    })
}

fn first_line_of(probe: &VersionProbe, timeout: Duration) -> Option<String> {
    // As an OsString, not a Path: duct would resolve a bare Path like `go`
    // relative to the working directory instead of searching PATH.
    let mut command = duct::cmd(probe.program.as_os_str().to_owned(), &probe.args);
    if let Some(dir) = &probe.dir {
        command = command.dir(dir);
    }
    if let Some(env) = &probe.env {
        command = command.full_env(env);
    }
    let output = match run_bounded(command.stderr_to_stdout(), timeout)? {
        Bounded::Exited(output) => output,
        Bounded::TimedOut => return Some(format!("(no answer within {}s)", timeout.as_secs())),
    };
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text
        .lines()
        .map(strip_ansi)
        .map(|l| l.trim().to_string())
        .find(|l| !l.is_empty() && !l.starts_with("Picked up "));
    if probe.marks_failure && !output.status.success() {
        return Some(format!(
            "(the command failed: {}) {}",
            output.status,
            line.unwrap_or_default()
        ));
    }
    line
}

/// How a command run by [`run_bounded`] ended.
pub enum Bounded {
    Exited(std::process::Output),
    /// Still running after the timeout: killed.
    TimedOut,
}

/// Runs `command` with no stdin and its stdout captured, its exit status
/// left to the caller, killed after `timeout` (a version or git probe must
/// never hold up a run). `None`: it could not be started.
pub fn run_bounded(command: duct::Expression, timeout: Duration) -> Option<Bounded> {
    let handle = command
        .stdin_null()
        .stdout_capture()
        .unchecked()
        .start()
        .ok()?;
    match handle.wait_timeout(timeout) {
        Ok(Some(output)) => Some(Bounded::Exited(output.clone())),
        _ => {
            let _ = handle.kill();
            Some(Bounded::TimedOut)
        }
    }
}

/// Removes ANSI escape sequences (`mvn -v` prints bold text).
fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The host, from /proc and /sys.
pub fn host_info() -> HostInfo {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let (cpu_model, physical_cores) = parse_cpuinfo(&cpuinfo);
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    HostInfo {
        hostname: read_trimmed("/proc/sys/kernel/hostname").unwrap_or_default(),
        cpu_model,
        logical_cpus: thread::available_parallelism().map_or(1, |n| n.get() as u32),
        physical_cores,
        memory_bytes: parse_meminfo_total(&meminfo).unwrap_or(0),
        os: os_name(),
        kernel: read_trimmed("/proc/sys/kernel/osrelease").unwrap_or_default(),
        governor: read_trimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
    }
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn os_name() -> String {
    let text = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_string())
        .unwrap_or_else(|| std::env::consts::OS.to_string())
}

/// CPU model name and the number of distinct (physical id, core id) pairs.
fn parse_cpuinfo(text: &str) -> (String, Option<u32>) {
    let mut model = String::new();
    let mut cores = std::collections::BTreeSet::new();
    let mut physical = String::new();
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        match key {
            "model name" if model.is_empty() => model = value.to_string(),
            "physical id" => physical = value.to_string(),
            "core id" => {
                cores.insert((physical.clone(), value.to_string()));
            }
            _ => {}
        }
    }
    let physical_cores = (!cores.is_empty()).then_some(cores.len() as u32);
    (model, physical_cores)
}

fn parse_meminfo_total(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpuinfo_model_and_cores() {
        let text = "processor\t: 0\nmodel name\t: Fast CPU\nphysical id\t: 0\ncore id\t: 0\n\n\
                    processor\t: 1\nmodel name\t: Fast CPU\nphysical id\t: 0\ncore id\t: 0\n\n\
                    processor\t: 2\nmodel name\t: Fast CPU\nphysical id\t: 0\ncore id\t: 1\n";
        assert_eq!(parse_cpuinfo(text), ("Fast CPU".to_string(), Some(2)));
        assert_eq!(parse_cpuinfo("processor: 0\n"), (String::new(), None));
    }

    #[test]
    fn meminfo_total_in_bytes() {
        assert_eq!(
            parse_meminfo_total("MemTotal:       16384 kB\nMemFree: 1 kB\n"),
            Some(16384 * 1024)
        );
    }

    #[test]
    fn ansi_is_stripped() {
        assert_eq!(
            strip_ansi("\u{1b}[1mApache Maven 3.9\u{1b}[m"),
            "Apache Maven 3.9"
        );
    }

    #[test]
    fn capture_records_present_tools_and_skips_missing_ones() {
        let probes = vec![
            VersionProbe::new("sh-echo", "sh", &["-c", "echo 'tool 1.2'; echo second"]),
            VersionProbe::new("missing", "/nonexistent/tool", &["--version"]),
        ];
        let env = capture(&probes, Duration::from_secs(5));
        assert_eq!(
            env.toolchains.get("sh-echo").map(String::as_str),
            Some("tool 1.2")
        );
        assert!(!env.toolchains.contains_key("missing"));
        assert!(env.host.logical_cpus >= 1);
        assert!(env.host.memory_bytes > 0);
    }

    /// A spec's `version:` runs in its folder, and one that fails is
    /// recorded as a failure, not as a version.
    #[test]
    fn a_version_command_runs_in_its_dir_and_a_failure_is_said() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("VERSION"), "server 2.4.1\n").unwrap();
        let probes = vec![
            VersionProbe::shell("runtime ok", "cat VERSION", dir.path().to_path_buf()),
            VersionProbe::shell(
                "runtime typo",
                "echo 'sh: 1: nginxx: not found'; exit 127",
                dir.path().to_path_buf(),
            ),
        ];
        let found = first_lines(&probes, Duration::from_secs(5));
        assert_eq!(found["runtime ok"], "server 2.4.1");
        assert_eq!(
            found["runtime typo"],
            "(the command failed: exit status: 127) sh: 1: nginxx: not found"
        );
    }
}
