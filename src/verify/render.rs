//! The text output of `runner verify`: the request x runtime grid, each
//! runtime's lifecycle, then every difference spelled out.
use std::fmt::Write;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::compare::{Difference, Verdict};
use super::outcome::{Outcome, RuntimeRecord};
use crate::plan::VerifyPlan;

/// Values longer than this (as compact JSON) are shortened in the text output.
const MAX_VALUE_CHARS: usize = 72;

/// The full text report.
pub fn table(verdict: &Verdict, records: &[RuntimeRecord], requests: &[VerifyPlan]) -> String {
    let mut out = String::new();
    grid(&mut out, verdict);
    out.push('\n');
    lifecycle(&mut out, records);
    out.push('\n');
    if verdict.differences.is_empty() {
        if verdict.equivalent() {
            let _ = writeln!(
                out,
                "EQUIVALENT: {} runtime(s) gave the expected status and identical compared fields \
                 for all {} request(s){}{}",
                verdict.answered,
                verdict.grid.len(),
                vectors_note(requests),
                skipped_note(verdict)
            );
        } else {
            let _ = writeln!(
                out,
                "NOT VERIFIED: no runtime answered{}; install the missing toolchains",
                skipped_note(verdict)
            );
        }
        return out;
    }
    let n = verdict.differences.len();
    let _ = writeln!(
        out,
        "NOT EQUIVALENT: {n} difference{}:",
        if n == 1 { "" } else { "s" }
    );
    for d in &verdict.differences {
        difference(&mut out, d, requests);
    }
    let short = in_short(&verdict.differences);
    if !short.is_empty() {
        let _ = writeln!(out, "in short: {}", short.join("; "));
    }
    out
}

/// One line per runtime that stands out, so that a long list of differences
/// ends with its gist: `go: `workScore` on 13 requests`.
fn in_short(differences: &[Difference]) -> Vec<String> {
    let mut counts: indexmap::IndexMap<(String, String), usize> = indexmap::IndexMap::new();
    for d in differences {
        match d {
            Difference::Field {
                field, values, odd, ..
            } if odd.len() < values.len() => {
                for runtime in odd {
                    *counts
                        .entry((runtime.clone(), format!("`{field}`")))
                        .or_default() += 1;
                }
            }
            Difference::Expected { runtime, field, .. } => {
                *counts
                    .entry((runtime.clone(), format!("`{field}`")))
                    .or_default() += 1;
            }
            Difference::Status { runtime, .. } => {
                *counts
                    .entry((runtime.clone(), "the status".into()))
                    .or_default() += 1;
            }
            Difference::Content { runtime, .. } => {
                *counts
                    .entry((runtime.clone(), "the answer's content".into()))
                    .or_default() += 1;
            }
            Difference::NoAnswer { runtime, .. } => {
                *counts
                    .entry((runtime.clone(), "no answer".into()))
                    .or_default() += 1;
            }
            _ => {}
        }
    }
    counts
        .into_iter()
        .map(|((runtime, what), n)| {
            format!(
                "{runtime} differs in {what} on {n} request{}",
                if n == 1 { "" } else { "s" }
            )
        })
        .collect()
}

/// Said when some requests came from vectors files: their answers were
/// also equal to the vectors, not only to each other.
fn vectors_note(requests: &[VerifyPlan]) -> String {
    match requests.iter().filter(|r| !r.expect.is_empty()).count() {
        0 => String::new(),
        n => format!(", each equal to the expected response of the {n} from vectors files"),
    }
}

fn skipped_note(verdict: &Verdict) -> String {
    match verdict.skipped_allowed {
        0 => String::new(),
        n => format!(" ({n} skipped runtime(s) allowed by --allow-skipped)"),
    }
}

fn grid(out: &mut String, verdict: &Verdict) {
    let first = verdict
        .grid
        .iter()
        .map(|row| row.request.chars().count())
        .chain(["request".len()])
        .max()
        .unwrap_or(7);
    let widths: Vec<usize> = verdict
        .runtimes
        .iter()
        .map(|r| r.chars().count().max(6))
        .collect();
    let _ = write!(out, "{:<first$}", "request");
    for (r, w) in verdict.runtimes.iter().zip(&widths) {
        let _ = write!(out, "  {r:<w$}");
    }
    end_line(out);
    for row in &verdict.grid {
        let _ = write!(out, "{:<first$}", row.request);
        for (mark, w) in row.marks.iter().zip(&widths) {
            let cell = match mark {
                None => "-".to_string(),
                Some(m) => format!(
                    "{} {}",
                    m.status.map_or("ERR".to_string(), |s| s.to_string()),
                    if m.ok { "✓" } else { "✗" }
                ),
            };
            let _ = write!(out, "  {cell:<w$}");
        }
        end_line(out);
    }
}

/// Ends a padded line without its trailing spaces.
fn end_line(out: &mut String) {
    let trimmed = out.trim_end_matches(' ').len();
    out.truncate(trimmed);
    out.push('\n');
}

fn lifecycle(out: &mut String, records: &[RuntimeRecord]) {
    let width = records.iter().map(|r| r.name.len()).max().unwrap_or(0);
    for r in records {
        let state = match &r.outcome {
            Outcome::Ran => "ran".to_string(),
            Outcome::Skipped { reason } => format!("SKIPPED: {reason}"),
            Outcome::Failed { stage, .. } => format!("FAILED at {}", stage.as_str()),
        };
        let notes = if r.notes.is_empty() {
            String::new()
        } else {
            format!(": {}", r.notes.join("; "))
        };
        let _ = writeln!(out, "{:<width$}  {state}{notes}", r.name);
    }
}

fn difference(out: &mut String, d: &Difference, requests: &[VerifyPlan]) {
    // The request's name with what was sent, so it can be replayed by hand.
    let label = |name: &str| match requests.iter().find(|r| r.name == name) {
        Some(r) => format!("{name} ({} {})", r.method, r.path),
        None => name.to_string(),
    };
    match d {
        Difference::Skipped { runtime, reason } => {
            let _ = writeln!(
                out,
                "- {runtime}: skipped, not checked: {reason} (or pass --allow-skipped)"
            );
        }
        Difference::RuntimeFailed {
            runtime,
            stage,
            reason,
            log,
        } => {
            let _ = writeln!(out, "- {runtime}: {stage} failed: {}", indent(reason));
            let _ = writeln!(out, "  log: {log}");
        }
        Difference::DependencyStop {
            dependency,
            reason,
            log,
        } => {
            let _ = writeln!(
                out,
                "- dependency {dependency}: did not stop cleanly: {}",
                indent(reason)
            );
            let _ = writeln!(out, "  log: {log}");
        }
        Difference::NoAnswer {
            request,
            runtime,
            error,
        } => {
            let _ = writeln!(
                out,
                "- {}: {runtime} gave no answer: {error}",
                label(request)
            );
        }
        Difference::Status {
            request,
            runtime,
            expected,
            got,
        } => {
            let _ = writeln!(
                out,
                "- {}: {runtime} answered status {got}, expected {expected}",
                label(request)
            );
        }
        Difference::Content {
            request,
            runtime,
            wrong,
        } => {
            let _ = writeln!(out, "- {}: {runtime}: {wrong}", label(request));
        }
        Difference::NotJson {
            request,
            runtime,
            error,
        } => {
            let _ = writeln!(out, "- {}: {runtime}: {error}", label(request));
        }
        Difference::Expected {
            request,
            runtime,
            field,
            got,
            expected,
        } => {
            let _ = writeln!(
                out,
                "- {}: field `{field}`: {runtime} {}, expected {}",
                label(request),
                show_value(got.as_ref()),
                show_value(expected.as_ref())
            );
        }
        Difference::Field {
            request,
            field,
            values,
            odd,
        } => {
            let _ = writeln!(out, "- {}: field `{field}` differs:", label(request));
            let width = values.iter().map(|(r, _)| r.len()).max().unwrap_or(0);
            for (runtime, value) in values {
                let flag = if odd.contains(runtime) && odd.len() < values.len() {
                    "   <- differs from the others"
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "    {runtime:<width$} -> {}{flag}",
                    show_value(value.as_ref())
                );
            }
        }
    }
}

/// Continuation lines of a multi-line reason, indented under the bullet.
fn indent(text: &str) -> String {
    text.trim_end().replace('\n', "\n    ")
}

/// A JSON value for a human: compact, shortened with its length and a
/// digest when long (two long values that differ show different digests).
pub fn show_value(value: Option<&Value>) -> String {
    let Some(value) = value else {
        return "(missing)".to_string();
    };
    let text = value.to_string();
    if text.chars().count() <= MAX_VALUE_CHARS {
        return text;
    }
    let head: String = text.chars().take(MAX_VALUE_CHARS - 24).collect();
    let digest = hex::encode(Sha256::digest(text.as_bytes()));
    format!("{head}... ({} bytes, sha256 {})", text.len(), &digest[..12])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_values_are_shortened_with_length_and_digest() {
        assert_eq!(show_value(Some(&json!(42))), "42");
        assert_eq!(show_value(None), "(missing)");
        let long = show_value(Some(&json!("x".repeat(2048))));
        assert!(long.starts_with("\"xxxx"), "{long}");
        assert!(long.contains("(2050 bytes, sha256 "), "{long}");
        assert!(long.chars().count() < 100, "{long}");
    }
}
