//! A history's verdict on its newest run as CI outputs: one JUnit test case
//! per configuration and metric (its series), and a step summary with the
//! verdict, the series that moved and where history.md and history.html are.
use std::path::PathBuf;

use super::{History, SeriesReport, Verdict};
use crate::report::analysis::format;
use crate::report::ci::{Case, CaseOutcome, Suite, holm_p, ratio_interval};

/// One test case per series, in history's order.
pub fn suite(h: &History) -> Suite {
    let cases = h
        .series
        .iter()
        .map(|s| Case {
            group: format!("{}.{}", h.experiment, s.runtime),
            name: format!("{} {}", s.config_id, short(s)),
            outcome: outcome(h, s),
        })
        .collect();
    Suite {
        name: format!("runner history {}: {}", h.experiment, h.newest.run_id),
        properties: vec![
            ("experiment".into(), h.dir.clone()),
            ("newest".into(), h.newest.dir.clone()),
            ("runs".into(), h.runs.len().to_string()),
            (
                "threshold".into(),
                format::pct(h.settings.threshold, 1, false),
            ),
            (
                "latency_threshold".into(),
                format::pct(h.settings.latency_threshold, 1, false),
            ),
        ],
        cases,
    }
}

/// `throughput` or `p99`, as compare's test cases are named.
fn short(s: &SeriesReport) -> &'static str {
    match s.metric {
        super::Metric::Throughput => "throughput",
        super::Metric::P99 => "p99",
    }
}

fn outcome(h: &History, s: &SeriesReport) -> CaseOutcome {
    let line = verdict_line(h, s);
    match s.newest.verdict {
        Verdict::Regression | Verdict::Failed => CaseOutcome::Failed { verdict: line },
        Verdict::Inconclusive => CaseOutcome::Skipped {
            reason: format!(
                "could not tell: {line} (the interval still reaches a change for the worse of \
                 the threshold's size)"
            ),
        },
        Verdict::NotMeasured => CaseOutcome::Skipped {
            reason: format!("not measured by the newest run {}", h.newest.run_id),
        },
        Verdict::NoBaseline => CaseOutcome::Skipped {
            reason: "no baseline: the newest run is this configuration's first".to_string(),
        },
        Verdict::Improvement | Verdict::BelowThreshold | Verdict::Unchanged => {
            CaseOutcome::Passed { verdict: line }
        }
    }
}

/// `throughput newest/baseline 0.81 [0.77, 0.85] over 5 runs, p worse
/// 0.0012 (Holm), threshold 5.0%: regression`.
fn verdict_line(h: &History, s: &SeriesReport) -> String {
    let n = &s.newest;
    let ratio = ratio_interval("newest/baseline", n.effect.as_ref());
    let p = holm_p(n.p_worse_adjusted);
    let verdict = serde_json::to_value(n.verdict).expect("an enum serializes");
    format!(
        "{} {ratio} over a baseline of {} run(s){p}, threshold {}: {}",
        s.metric.label(),
        n.baseline.len(),
        format::pct(h.settings.threshold_for(s.metric), 1, false),
        verdict.as_str().unwrap_or_default()
    )
}

/// The verdict, the series that moved (every verdict but unchanged and
/// below threshold) and the paths of the written reports.
pub fn summary(h: &History, files: &[PathBuf]) -> String {
    let mut out = format!(
        "# History: {} (newest run {})\n\n",
        h.experiment, h.newest.run_id
    );
    out.push_str(&if h.regressions > 0 {
        format!(
            "**Verdict: REGRESSION: {} series regressed** over {} comparable runs.\n\n",
            h.regressions,
            h.runs.len()
        )
    } else {
        format!(
            "**Verdict: no regression** over {} comparable runs ({} improvement(s)).\n\n",
            h.runs.len(),
            h.improvements
        )
    });
    let moved: Vec<&SeriesReport> = h
        .series
        .iter()
        .filter(|s| {
            !matches!(
                s.newest.verdict,
                Verdict::Unchanged | Verdict::BelowThreshold
            )
        })
        .collect();
    if moved.is_empty() {
        out.push_str("Every configuration is unchanged.\n");
    } else {
        out.push_str("| configuration | metric | verdict |\n|---|---|---|\n");
        for s in moved {
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                s.config_id,
                s.metric.label(),
                verdict_line(h, s)
            ));
        }
    }
    if !files.is_empty() {
        out.push_str("\nReports: ");
        let paths: Vec<String> = files.iter().map(|f| format!("`{}`", f.display())).collect();
        out.push_str(&paths.join(", "));
        out.push('\n');
    }
    out
}
