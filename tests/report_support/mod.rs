//! Helpers shared by the report tests (a module, not a test target); the
//! runner binary and golden comparison come from tests/common.
#![allow(dead_code)]
use std::path::{Path, PathBuf};

pub mod experiment;

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runs")
}

/// Copies a fixture run into a fresh temporary directory (reports are
/// written into the run directory; the committed fixture stays clean).
pub fn copy_fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    copy_run(&fixtures().join(name))
}

/// Copies any run directory into a fresh temporary directory.
pub fn copy_run(run: &Path) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dest = tmp
        .path()
        .join(run.file_name().expect("a run directory name"));
    copy_dir(run, &dest);
    (tmp, dest)
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Replaces `needle` everywhere in a file of a run directory.
pub fn replace_in(run: &Path, file: &str, needle: &str, with: &str) {
    let path = run.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(needle), "{file} does not contain {needle:?}");
    std::fs::write(&path, text.replace(needle, with)).unwrap();
}

/// The committed golden file `name` of the report tests (compare with
/// `common::assert_golden`).
pub fn golden_file(name: &str) -> PathBuf {
    fixtures().join("golden").join(name)
}

/// Replaces the generation timestamp (`generated <time> by`) with a marker.
pub fn redact_generated_at(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("Report generated ") {
        let start = i + "Report generated ".len();
        out.push_str(&rest[..start]);
        let end = rest[start..].find(" by runner").expect("generation line") + start;
        out.push_str("[generated-at]");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Replaces every inline `<svg ...>...</svg>` with a marker: charts are
/// checked on their own (report_charts.rs), the golden file stays reviewable.
pub fn redact_svg(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("<svg ") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find("</svg>").expect("closed svg") + i + "</svg>".len();
        out.push_str("<svg>[chart redacted]</svg>");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Keeps the header and the lines of a run directory's file that `keep`
/// accepts (a fixture cut down to one runtime).
pub fn keep_lines(run: &Path, file: &str, keep: impl Fn(&str) -> bool) {
    let path = run.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    let mut out = format!("{}\n", lines.next().expect("a header"));
    for line in lines.filter(|l| keep(l)) {
        out.push_str(line);
        out.push('\n');
    }
    std::fs::write(&path, out).unwrap();
}

/// (config, metric, verdict) of every series of a history JSON, sorted:
/// what two ways of judging the same runs must agree on.
pub fn history_verdicts(json: &serde_json::Value) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = json["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["config_id"].as_str().unwrap().to_string(),
                s["metric"].as_str().unwrap().to_string(),
                s["newest"]["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}
