//! The GitHub step summary: Markdown appended (never replaced) to the file
//! GitHub Actions names in `$GITHUB_STEP_SUMMARY`, so that several steps of
//! one job (a compare, then a history) each add their part.
use std::io::Write;
use std::path::Path;

use crate::report::error::ReportError;

/// Appends `markdown` to `path` (created when absent), with a blank line
/// before it so that it never runs into the previous step's last line.
pub fn append_step_summary(path: &Path, markdown: &str) -> Result<(), ReportError> {
    let error = |source| ReportError::CiOutput {
        path: path.to_path_buf(),
        what: "GitHub step summary ($GITHUB_STEP_SUMMARY)",
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(error)?;
    let mut text = String::from("\n");
    text.push_str(markdown);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    file.write_all(text.as_bytes()).map_err(error)
}
