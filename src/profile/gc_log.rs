//! Pauses from a JVM unified GC log written with the decorations the runner
//! asks for (`-Xlog:gc*:file=...:uptime,timemillis,level,tags`): each
//! line that ends a pause carries the tag `gc` (or `gc,phases`, where ZGC
//! logs its pauses), the word `Pause` and its length last, e.g.
//! `[0.773s][1796138336081ms][info][gc          ] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 15M->3M(64M) 7.851ms`.
//! The wall-clock `timemillis` decoration places each pause in a measured window.
use std::path::Path;

use super::error::ProfileError;
use super::pauses::Pause;

/// The decorations the runner's `-Xlog` option sets (parsed below).
pub const DECORATIONS: &str = "uptime,timemillis,level,tags";

/// The `-Xlog` option writing the GC log to `file`, bounded to two
/// rotated files of `file_mib` MiB each.
pub fn xlog_option(file: &Path, file_mib: u64) -> String {
    format!(
        "-Xlog:gc*:file={}:{DECORATIONS}:filecount=2,filesize={file_mib}m",
        file.display()
    )
}

/// Every pause in `text` (the GC log, possibly several rotated files concatenated).
pub fn parse_pauses(text: &str) -> Vec<Pause> {
    text.lines().filter_map(pause_of).collect()
}

/// Reads and parses a GC log file; a missing file has no pauses (the JVM
/// writes none before its first GC ... or never started).
pub fn read_pauses(path: &Path) -> Result<Vec<Pause>, ProfileError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(parse_pauses(&text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(ProfileError::io(path)(e)),
    }
}

fn pause_of(line: &str) -> Option<Pause> {
    let mut rest = line;
    let mut fields = Vec::with_capacity(4);
    while let Some(tail) = rest.strip_prefix('[') {
        let end = tail.find(']')?;
        fields.push(tail[..end].trim());
        rest = &tail[end + 1..];
    }
    let [_uptime, millis, _level, tags] = fields[..] else {
        return None;
    };
    if tags != "gc" && tags != "gc,phases" {
        return None;
    }
    let message = rest.trim();
    if !message.contains("Pause") {
        return None;
    }
    let length = message.rsplit(' ').next()?.strip_suffix("ms")?;
    Some(Pause {
        end_unix_ms: millis.strip_suffix("ms")?.parse().ok()?,
        millis: length.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = format!(
            "{}/tests/fixtures/profile/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn every_g1_young_pause_of_a_real_jdk25_log_is_found() {
        let pauses = parse_pauses(&fixture("gc-g1-jdk25.log"));
        assert_eq!(pauses.len(), 25);
        assert_eq!(
            pauses[0],
            Pause {
                end_unix_ms: 1796138336081.0,
                millis: 7.851
            }
        );
        let max = pauses.iter().map(|p| p.millis).fold(0.0, f64::max);
        assert_eq!(max, 13.084);
    }

    #[test]
    fn serial_pauses_of_a_real_jdk25_log_and_no_start_lines() {
        let pauses = parse_pauses(&fixture("gc-serial-jdk25.log"));
        assert_eq!(pauses.len(), 17);
        assert_eq!(pauses[0].millis, 5.865);
        assert!(
            pauses
                .windows(2)
                .all(|w| w[0].end_unix_ms <= w[1].end_unix_ms)
        );
    }

    #[test]
    fn zgc_phase_pauses_count_and_other_lines_do_not() {
        let log = "\
[1.0s][1000ms][info][gc,phases] GC(0) y: Pause Mark Start 0.012ms
[1.0s][1001ms][info][gc,phases] GC(0) y: Concurrent Mark 4.100ms
[1.0s][1002ms][info][gc,start ] GC(1) Pause Young (Normal) (G1 Evacuation Pause)
[1.0s][1003ms][info][gc,heap  ] GC(1) Pause Eden regions: 1->0(2)
[1.0s][1004ms][info][gc       ] Using G1
garbage";
        assert_eq!(
            parse_pauses(log),
            vec![Pause {
                end_unix_ms: 1000.0,
                millis: 0.012
            }]
        );
    }

    #[test]
    fn the_option_names_the_decorations_parsed() {
        let opt = xlog_option(Path::new("/r/profiles/gc/jvm-start1.log"), 8);
        assert_eq!(
            opt,
            "-Xlog:gc*:file=/r/profiles/gc/jvm-start1.log:uptime,timemillis,level,tags:filecount=2,filesize=8m"
        );
    }
}
