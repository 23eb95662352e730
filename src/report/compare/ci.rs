//! A comparison as CI outputs: one JUnit test case per matched
//! configuration and judged metric (throughput, p99; p50 and metrics not
//! judged are reported in the table, not tested), a skipped one per metric
//! of a configuration only the judged run has, and the step summary,
//! which is the comparison's own Markdown ([`super::markdown`]).
use super::{Comparison, markdown};
use crate::report::analysis::format;
use crate::report::ci::{Case, CaseOutcome, Suite, holm_p, ratio_interval};
use crate::stats::{Judged, Verdict};

/// The comparison's test cases, in the table's order.
pub fn suite(c: &Comparison) -> Suite {
    let mut cases = Vec::new();
    for cell in &c.cells {
        let judged = [
            (
                "throughput",
                &cell.throughput,
                rps as fn(f64) -> String,
                c.threshold,
            ),
            (
                "p99",
                &cell.p99,
                format::ms,
                c.latency_threshold.unwrap_or(0.0),
            ),
        ];
        for (metric, j, value, threshold) in judged {
            if let Some(outcome) = case_outcome(j, &verdict_line(metric, j, value, threshold)) {
                cases.push(Case {
                    group: format!("{}.{}", c.b.experiment, cell.runtime),
                    name: format!("{} {metric}", cell.config_id),
                    outcome,
                });
            }
        }
    }
    // A configuration the baseline lacks (a first run, a new axis value)
    // cannot be told yet: skipped, so that it shows rather than vanishes.
    for id in &c.only_in_b {
        let runtime = id.split('/').next().unwrap_or(id);
        for metric in ["throughput", "p99"] {
            cases.push(Case {
                group: format!("{}.{runtime}", c.b.experiment),
                name: format!("{id} {metric}"),
                outcome: CaseOutcome::Skipped {
                    reason: format!("no baseline: {id} is not in {}", c.a.run_id),
                },
            });
        }
    }
    Suite {
        name: format!(
            "runner compare {}: {} -> {}",
            c.b.experiment, c.a.run_id, c.b.run_id
        ),
        properties: properties(c),
        cases,
    }
}

fn rps(value: f64) -> String {
    format!("{} req/s", format::rps(value))
}

/// The step summary: the Markdown `runner compare` prints.
pub fn summary(c: &Comparison) -> String {
    markdown(c)
}

fn properties(c: &Comparison) -> Vec<(String, String)> {
    let outcome = serde_json::to_value(c.outcome).expect("an enum serializes");
    vec![
        (
            "outcome".into(),
            outcome.as_str().unwrap_or_default().to_string(),
        ),
        ("baseline".into(), c.a.dir.clone()),
        ("run".into(), c.b.dir.clone()),
        ("threshold".into(), format::pct(c.threshold, 1, false)),
        (
            "latency_threshold".into(),
            c.latency_threshold
                .map_or_else(|| "off".to_string(), |t| format::pct(t, 1, false)),
        ),
    ]
}

/// `None` for a metric that is reported, not judged.
fn case_outcome(j: &Judged, line: &str) -> Option<CaseOutcome> {
    let line = line.to_string();
    Some(match j.verdict {
        Verdict::NotJudged => return None,
        Verdict::Regression | Verdict::Failed => CaseOutcome::Failed { verdict: line },
        Verdict::Inconclusive => CaseOutcome::Skipped {
            reason: format!(
                "could not tell: {line} (the interval still reaches a loss of the threshold's \
                 size: the repeats are too few or too noisy, or the run-level noise too large)"
            ),
        },
        Verdict::Insufficient => CaseOutcome::Skipped {
            reason: format!(
                "could not tell: {line} (no usable repeat on a side, or no noise estimate)"
            ),
        },
        Verdict::Improvement | Verdict::BelowThreshold | Verdict::Unchanged => {
            CaseOutcome::Passed { verdict: line }
        }
    })
}

/// `throughput 10.2k -> 8.1k req/s, B/A 0.81 [0.77, 0.85], p worse 0.0012
/// (Holm), threshold 5.0%: REGRESSION`.
fn verdict_line(metric: &str, j: &Judged, value: fn(f64) -> String, threshold: f64) -> String {
    let side = |v: Option<f64>| v.map_or_else(|| format::MISSING.to_string(), value);
    let ratio = ratio_interval("B/A", j.effect.as_ref());
    let p = holm_p(j.p_worse);
    format!(
        "{metric} {} -> {}, {ratio}{p}, threshold {}: {}",
        side(j.a_mean),
        side(j.b_mean),
        format::pct(threshold, 1, false),
        j.verdict.label()
    )
}
