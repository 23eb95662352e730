//! The suspect and failed repeats grouped by reason: one line per distinct
//! reason with the repeats it covers, not one line per repeat. On a shared
//! host every repeat can be suspect for the same cause, and 48 copies of
//! one sentence hide the one repeat that failed for another.
//!
//! Reasons carry the repeat's own figures ("used 93% of its CPU budget"), so
//! two reasons are the same when they differ only in their numbers; the
//! line shows the first repeat's text and says when the figures vary
//! (measurements.csv keeps each repeat's own).
use serde::Serialize;

use crate::results::model::{CellStatus, MeasurementRow};

/// Repeats listed by name on a reason's line before "and N more".
const NAMED: usize = 6;

/// A failed or suspect measurement row, listed as is.
#[derive(Debug, Clone, Serialize)]
pub struct FlaggedRow {
    pub cell_id: String,
    pub runtime: String,
    pub axes: String,
    pub status: CellStatus,
    pub reason: String,
    pub throughput_rps: f64,
    pub errors: u64,
}

/// The rows of `rows` with `status`, as they are.
pub fn flagged(rows: &[MeasurementRow], status: CellStatus) -> Vec<FlaggedRow> {
    rows.iter()
        .filter(|r| r.status == status)
        .map(|r| FlaggedRow {
            cell_id: r.cell_id.clone(),
            runtime: r.runtime.clone(),
            axes: r.axes.clone(),
            status: r.status,
            reason: r.reason.clone(),
            throughput_rps: r.throughput_rps,
            errors: r.errors,
        })
        .collect()
}

/// One distinct reason and the repeats it covers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReasonGroup {
    /// The first repeat's reason, as written.
    pub reason: String,
    /// Repeats with this reason.
    pub count: usize,
    /// Whether their figures differ (the reason's numbers vary).
    pub figures_vary: bool,
    /// The first repeats' cell ids.
    pub cells: Vec<String>,
    /// Repeats beyond those named.
    pub more: usize,
}

/// `rows` grouped by reason with its numbers masked, in first-seen order.
pub fn group_reasons(rows: &[FlaggedRow]) -> Vec<ReasonGroup> {
    let mut groups: Vec<(String, ReasonGroup)> = Vec::new();
    for row in rows {
        let key = masked(&row.reason);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => {
                g.count += 1;
                g.figures_vary |= g.reason != row.reason;
                if g.cells.len() < NAMED {
                    g.cells.push(row.cell_id.clone());
                } else {
                    g.more += 1;
                }
            }
            None => groups.push((
                key,
                ReasonGroup {
                    reason: row.reason.clone(),
                    count: 1,
                    figures_vary: false,
                    cells: vec![row.cell_id.clone()],
                    more: 0,
                },
            )),
        }
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// The reason with every number replaced by `#`.
fn masked(reason: &str) -> String {
    let mut out = String::with_capacity(reason.len());
    let mut in_number = false;
    for ch in reason.chars() {
        let numeric = ch.is_ascii_digit() || (in_number && ch == '.');
        if numeric {
            if !in_number {
                out.push('#');
            }
        } else {
            out.push(ch);
        }
        in_number = numeric;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(cell: &str, reason: &str) -> FlaggedRow {
        FlaggedRow {
            cell_id: cell.to_string(),
            runtime: "go".to_string(),
            axes: String::new(),
            status: CellStatus::Suspect,
            reason: reason.to_string(),
            throughput_rps: 1.0,
            errors: 0,
        }
    }

    #[test]
    fn reasons_that_differ_only_in_their_figures_are_one_line() {
        let mut rows: Vec<FlaggedRow> = (1..=8)
            .map(|i| {
                flagged(
                    &format!("go/c={i}/r1"),
                    &format!("generator used 9{i}.5% of its CPU"),
                )
            })
            .collect();
        rows.insert(3, flagged("go/c=3/r2", "errors 0.4% (> 0.1%)"));
        let groups = group_reasons(&rows);
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].reason, "generator used 91.5% of its CPU");
        assert_eq!((groups[0].count, groups[0].more), (8, 2));
        assert!(groups[0].figures_vary);
        assert_eq!(groups[0].cells.len(), NAMED);
        assert_eq!((groups[1].count, groups[1].figures_vary), (1, false));
    }
}
