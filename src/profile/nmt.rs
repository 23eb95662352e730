//! Native Memory Tracking: `jcmd <pid> VM.native_memory summary` on the
//! service's JVM (started with `-XX:NativeMemoryTracking=summary` or
//! `detail`), read after a measured window, parsed into totals and the
//! committed memory of each category (Java Heap, Class, Thread, Code, GC,
//! Compiler, Internal, Metaspace, ...).
//!
//! The parser is written here rather than taken from a crate: no crate on
//! crates.io reads this output. It reads the lines JDK 17 and JDK 25 both
//! write (`Total: reserved=…, committed=…` and one `-  <Category>
//! (reserved=…, committed=……)` line per category); what the two differ in
//! (JDK 25's `readonly=` on the shared class space, its `peak=` and `tag=`
//! details, blank lines with or without a trailing space) is ignored.
//! tests/fixtures/nmt holds real output of both.
use std::path::Path;

use thiserror::Error;

use super::error::ProfileError;

/// The summary of one JVM, in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NmtSummary {
    pub reserved_bytes: u64,
    pub committed_bytes: u64,
    /// In the order jcmd printed them.
    pub categories: Vec<NmtCategory>,
}

/// One category of the summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NmtCategory {
    /// As jcmd names it: `Java Heap`, `Class`, `Thread`, ...
    pub name: String,
    pub reserved_bytes: u64,
    pub committed_bytes: u64,
}

impl NmtSummary {
    /// The committed bytes of category `name` (0 when jcmd omitted it:
    /// it omits categories under 1KB).
    pub fn committed(&self, name: &str) -> u64 {
        self.categories
            .iter()
            .find(|c| c.name == name)
            .map_or(0, |c| c.committed_bytes)
    }
}

/// Output that is not an NMT summary.
#[derive(Debug, Error, PartialEq)]
pub enum NmtParseError {
    #[error(
        "Native Memory Tracking is not enabled in this JVM: start it with -XX:NativeMemoryTracking=summary"
    )]
    NotEnabled,
    #[error("no `Total: reserved=..., committed=...` line in the jcmd output: {0}")]
    NoTotal(String),
    #[error("cannot read `{0}` as a size (a number with B, KB, MB or GB)")]
    Size(String),
}

/// Parses the text of `jcmd <pid> VM.native_memory summary`.
pub fn parse(text: &str) -> Result<NmtSummary, NmtParseError> {
    if text.contains("Native memory tracking is not enabled") {
        return Err(NmtParseError::NotEnabled);
    }
    let mut total: Option<(u64, u64)> = None;
    let mut categories = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("Total:") {
            total = Some(reserved_committed(rest)?);
        } else if let Some(rest) = line.strip_prefix('-')
            && let Some((name, figures)) = rest.split_once("(reserved=")
        {
            let (reserved_bytes, committed_bytes) =
                reserved_committed(&format!("reserved={figures}"))?;
            categories.push(NmtCategory {
                name: name.trim().to_owned(),
                reserved_bytes,
                committed_bytes,
            });
        }
    }
    let (reserved_bytes, committed_bytes) = total.ok_or_else(|| {
        NmtParseError::NoTotal(
            text.trim()
                .chars()
                .take(200)
                .collect::<String>()
                .replace('\n', " / "),
        )
    })?;
    Ok(NmtSummary {
        reserved_bytes,
        committed_bytes,
        categories,
    })
}

/// `reserved=7839501KB, committed=472901KB...` -> bytes.
fn reserved_committed(text: &str) -> Result<(u64, u64), NmtParseError> {
    let field = |name: &str| -> Result<u64, NmtParseError> {
        let start = text
            .find(&format!("{name}="))
            .ok_or_else(|| NmtParseError::Size(text.trim().to_owned()))?;
        let value: String = text[start + name.len() + 1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        size(&value)
    };
    Ok((field("reserved")?, field("committed")?))
}

/// `472901KB` -> bytes.
fn size(text: &str) -> Result<u64, NmtParseError> {
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    let unit = &text[digits.len()..];
    let scale: u64 = match unit {
        "B" | "" => 1,
        "KB" => 1 << 10,
        "MB" => 1 << 20,
        "GB" => 1 << 30,
        _ => return Err(NmtParseError::Size(text.to_owned())),
    };
    digits
        .parse::<u64>()
        .map(|n| n * scale)
        .map_err(|_| NmtParseError::Size(text.to_owned()))
}

/// Runs `jcmd <pid> VM.native_memory summary` with `jcmd` on the JVM of
/// session `sid` (the service's group: the JVM may be a shell's child).
pub fn read(jcmd: &Path, runtime: &str, sid: i32) -> Result<NmtSummary, ProfileError> {
    let pid = super::jvm::find_jvm(runtime, sid)?;
    let text = super::jvm::jcmd(
        jcmd,
        runtime,
        pid,
        &["VM.native_memory", "summary", "scale=KB"],
    )?;
    parse(&text).map_err(|e| ProfileError::Nmt {
        runtime: runtime.to_owned(),
        why: e.to_string(),
    })
}

/// Whether a JVM started with `flags` (its jvm_flags, start command and
/// JVM option variables, as one text) tracks native memory.
pub fn enabled_in(flags: &str) -> bool {
    flags.contains("-XX:NativeMemoryTracking=summary")
        || flags.contains("-XX:NativeMemoryTracking=detail")
}

#[cfg(test)]
mod tests {
    use super::*;

    const JDK17: &str = include_str!("../../tests/fixtures/nmt/jdk17-summary.txt");
    const JDK25: &str = include_str!("../../tests/fixtures/nmt/jdk25-summary.txt");

    #[test]
    fn reads_jdk17_output() {
        let s = parse(JDK17).unwrap();
        assert_eq!(s.reserved_bytes, 7_839_501 * 1024);
        assert_eq!(s.committed_bytes, 472_901 * 1024);
        assert_eq!(s.committed("Java Heap"), 397_312 * 1024);
        assert_eq!(s.committed("Class"), 200 * 1024);
        assert_eq!(s.committed("Thread"), 842 * 1024);
        assert_eq!(s.committed("Metaspace"), 202 * 1024);
        assert_eq!(s.committed("Shared class space"), 12_060 * 1024);
        assert_eq!(s.categories.len(), 18, "{:?}", s.categories);
        let sum: u64 = s.categories.iter().map(|c| c.committed_bytes).sum();
        // Categories under 1KB are omitted: the sum is within a few KB of the total.
        assert!(
            s.committed_bytes.abs_diff(sum) < 32 * 1024,
            "{sum} vs {}",
            s.committed_bytes
        );
    }

    #[test]
    fn reads_jdk25_output_with_its_extra_details() {
        let s = parse(JDK25).unwrap();
        assert_eq!(s.committed_bytes, 464_384 * 1024);
        assert_eq!(s.committed("GC"), 45_356 * 1024);
        assert_eq!(s.committed("Code"), 7_600 * 1024);
        // `readonly=0KB` after committed does not disturb the figure.
        assert_eq!(s.committed("Shared class space"), 13_908 * 1024);
        assert_eq!(s.committed("Tracing"), 5 * 1024);
        assert_eq!(s.committed("No such category"), 0);
    }

    #[test]
    fn refuses_what_is_not_a_summary() {
        assert_eq!(
            parse("12345:\nNative memory tracking is not enabled\n"),
            Err(NmtParseError::NotEnabled)
        );
        assert!(matches!(
            parse("12345:\nsomething else"),
            Err(NmtParseError::NoTotal(_))
        ));
        assert!(matches!(
            parse("Total: reserved=12XB, committed=1KB"),
            Err(NmtParseError::Size(_))
        ));
        assert_eq!(size("3MB"), Ok(3 << 20));
    }

    #[test]
    fn finds_the_flag_in_either_mode() {
        assert!(enabled_in("-Xmx64m -XX:NativeMemoryTracking=summary"));
        assert!(enabled_in("-XX:NativeMemoryTracking=detail"));
        assert!(!enabled_in("-XX:NativeMemoryTracking=off -Xmx1g"));
    }
}
