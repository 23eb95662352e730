//! Linux `perf` sampling of the service's processes over a window, for any
//! runtime (Node gets `--perf-basic-prof` so its JIT frames have names; the
//! JVM gets a perf map from `jcmd Compiler.perfmap` first). perf.data is
//! folded by inferno's perf collapser and then removed: it is the one
//! artifact that grows past any useful size.
use std::io::BufReader;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use inferno::collapse::Collapse;
use inferno::collapse::perf::Folder;

use super::error::ProfileError;
use super::folded::Folded;

/// Samples per second (an odd rate, so as not to beat with timers).
const FREQUENCY: &str = "99";

/// `None` when perf can sample other processes here, else why not (perf
/// missing, or `kernel.perf_event_paranoid` forbidding it without root).
pub fn unavailable() -> Option<String> {
    let version = Command::new("perf")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !version.is_ok_and(|s| s.success()) {
        return Some("`perf` is not installed (Debian: apt-get install linux-perf)".into());
    }
    let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .ok()
        .and_then(|t| t.trim().parse::<i32>().ok());
    let root = unsafe { libc::geteuid() } == 0;
    match paranoid {
        None => Some(
            "/proc/sys/kernel/perf_event_paranoid is missing: this kernel has no perf events"
                .into(),
        ),
        Some(level) if !root && level > 1 => Some(format!(
            "kernel.perf_event_paranoid is {level}: sampling another process needs <= 1 or root"
        )),
        Some(_) => None,
    }
}

/// Records `pids` for `seconds` into `data` (blocking), with call graphs.
pub fn record(
    runtime: &str,
    pids: &[i32],
    seconds: Duration,
    data: &Path,
) -> Result<(), ProfileError> {
    let list: Vec<String> = pids.iter().map(i32::to_string).collect();
    let sleep = format!("{:.3}", seconds.as_secs_f64());
    let output = Command::new("perf")
        .args(["record", "-F", FREQUENCY, "-g", "-o"])
        .arg(data)
        .args(["-p", &list.join(","), "--", "sleep", &sleep])
        .stdout(Stdio::null())
        .output()
        .map_err(|cause| ProfileError::Spawn {
            program: "perf".into(),
            runtime: runtime.to_string(),
            cause,
        })?;
    if !output.status.success() {
        return Err(ProfileError::Command {
            command: format!("perf record -p {}", list.join(",")),
            runtime: runtime.to_string(),
            status: output.status.to_string(),
            output: String::from_utf8_lossy(&output.stderr)
                .trim()
                .replace('\n', " / "),
        });
    }
    Ok(())
}

/// `perf script` of `data`, folded; `data` is removed afterwards.
pub fn fold(runtime: &str, data: &Path) -> Result<Folded, ProfileError> {
    let output = Command::new("perf")
        .arg("script")
        .arg("-i")
        .arg(data)
        .stderr(Stdio::null())
        .output()
        .map_err(|cause| ProfileError::Spawn {
            program: "perf".into(),
            runtime: runtime.to_string(),
            cause,
        });
    let _ = std::fs::remove_file(data);
    let output = output?;
    if !output.status.success() {
        return Err(ProfileError::Command {
            command: format!("perf script -i {}", data.display()),
            runtime: runtime.to_string(),
            status: output.status.to_string(),
            output: String::new(),
        });
    }
    fold_script(&output.stdout, data)
}

/// Folds `perf script` text with inferno's collapser; each stack is
/// weighed by its samples' period (for `cpu-clock`, nanoseconds on CPU).
pub fn fold_script(script: &[u8], data: &Path) -> Result<Folded, ProfileError> {
    let mut folded = Vec::new();
    Folder::default()
        .collapse(BufReader::new(script), &mut folded)
        .map_err(|e| ProfileError::Parse {
            path: data.to_path_buf(),
            why: format!("perf script output: {e}"),
        })?;
    let text = String::from_utf8_lossy(&folded);
    Ok(Folded::parse(text.lines()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perf_script_samples_fold_root_first() {
        let script = b"server 1234 1234 100.000001:   10101010 cpu-clock:pppH: \n\
\t          4a1b2c main.work+0x1c (/srv/server)\n\
\t          4a0000 main.main+0x20 (/srv/server)\n\
\n\
server 1234 1234 100.010001:   10101010 cpu-clock:pppH: \n\
\t          4a1b2c main.work+0x1c (/srv/server)\n\
\t          4a0000 main.main+0x20 (/srv/server)\n\
\n";
        let f = fold_script(script, Path::new("perf.data")).unwrap();
        // Weighed by each sample's period: ns of cpu-clock, 2 x 10101010.
        assert_eq!(f.lines(), vec!["server;main.main;main.work 20202020"]);
    }
}
