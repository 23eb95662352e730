//! Proof that a trained artifact was used: a log line matching a pattern.
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;

use regex::Regex;

/// The first line of `log` after byte `from` that matches `pattern`.
pub fn find_evidence(log: &Path, from: u64, pattern: &Regex) -> Option<String> {
    let mut file = std::fs::File::open(log).ok()?;
    file.seek(SeekFrom::Start(from)).ok()?;
    BufReader::new(file)
        .lines()
        .map_while(Result::ok)
        .find(|line| pattern.is_match(line))
        .map(|line| line.trim().chars().take(300).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_line_after_the_offset_only() {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("svc.log");
        let first = "[info][aot] Opened AOT cache old.aot\n";
        std::fs::write(&log, format!("{first}start 2\nplain\n")).unwrap();
        let re = Regex::new(r"Opened AOT cache").unwrap();
        assert_eq!(
            find_evidence(&log, 0, &re).as_deref(),
            Some("[info][aot] Opened AOT cache old.aot")
        );
        assert_eq!(find_evidence(&log, first.len() as u64, &re), None);
    }
}
