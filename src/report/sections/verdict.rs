//! The report's opening line when the run was judged: `runner nightly`
//! writes verdict.json and verdict.md into the run directory, then renders
//! the report again, so report.md and report.html open with "compared with
//! N earlier runs: slower (confirmed) / ..." and the cells that moved
//! (issue 46: the night's own report must say whether it is slower).
//!
//! Read as plain JSON rather than through `app::nightly`'s type: the report
//! stage sits below the app stage and imports nothing from it; the fields
//! read here are verdict.json's documented ones (docs/compare.md).
use serde::Serialize;
use serde_json::Value;

use crate::results::read::run_data::RunData;

/// verdict.json and verdict.md in the run directory.
const VERDICT_JSON: &str = "verdict.json";
const VERDICT_MD: &str = "verdict.md";

/// What the report opens with.
#[derive(Debug, Serialize)]
pub struct VerdictView {
    /// verdict.md's first line: "compared with 5 earlier runs: slower (confirmed)".
    pub headline: String,
    /// The night's message: what happened and what to do.
    pub message: String,
    /// verdict.json's outcome (`regression`, `unconfirmed`, ...).
    pub outcome: String,
    /// One line per configuration and metric that regressed or improved.
    pub moved: Vec<String>,
}

impl VerdictView {
    /// `None` when the run was never judged (no verdict files) or they
    /// cannot be read: the report then says nothing about a comparison.
    pub fn of(run: &RunData) -> Option<VerdictView> {
        let md = std::fs::read_to_string(run.dir.join(VERDICT_MD)).ok()?;
        let json: Value =
            serde_json::from_str(&std::fs::read_to_string(run.dir.join(VERDICT_JSON)).ok()?)
                .ok()?;
        Some(VerdictView {
            headline: md.lines().next()?.to_string(),
            message: json["message"].as_str().unwrap_or_default().to_string(),
            outcome: json["outcome"].as_str().unwrap_or_default().to_string(),
            moved: moved(&json["moved"]),
        })
    }
}

/// `config throughput 0.80x [0.76, 0.84] (regression)` per moved metric.
fn moved(cells: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    for cell in cells.as_array().into_iter().flatten() {
        let config = cell["config_id"].as_str().unwrap_or_default();
        for metric in ["throughput", "p99"] {
            let judged = &cell[metric];
            let verdict = judged["verdict"].as_str().unwrap_or_default();
            if !matches!(verdict, "regression" | "failed" | "improvement") {
                continue;
            }
            let effect = &judged["effect"];
            let ratio = match (
                effect["ratio"].as_f64(),
                effect["lo"].as_f64(),
                effect["hi"].as_f64(),
            ) {
                (Some(r), Some(lo), Some(hi)) => format!(" {r:.2}x [{lo:.2}, {hi:.2}]"),
                _ => String::new(),
            };
            lines.push(format!("{config} {metric}{ratio} ({verdict})"));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moved_lines_name_the_configuration_metric_ratio_and_verdict() {
        let cells = serde_json::json!([{
            "config_id": "go/c=4",
            "throughput": {"verdict": "regression", "effect": {"ratio": 0.8, "lo": 0.76, "hi": 0.84}},
            "p99": {"verdict": "unchanged", "effect": {"ratio": 1.0, "lo": 0.9, "hi": 1.1}}
        }, {
            "config_id": "go/c=8",
            "throughput": {"verdict": "failed", "effect": null},
            "p99": {"verdict": "improvement", "effect": {"ratio": 0.5, "lo": 0.4, "hi": 0.6}}
        }]);
        assert_eq!(
            moved(&cells),
            [
                "go/c=4 throughput 0.80x [0.76, 0.84] (regression)",
                "go/c=8 throughput (failed)",
                "go/c=8 p99 0.50x [0.40, 0.60] (improvement)",
            ]
        );
    }
}
