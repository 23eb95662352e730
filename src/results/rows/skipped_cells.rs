//! Cells the plan skips before anything runs: a runtime that cannot run on
//! the JDK a cell resolves to (`java.min`), or a cell's JDK that is not
//! installed. They are listed in plan.json and status.json and in the
//! report's skipped list; they never get a measurements.csv row, so no
//! statistic can mistake them for a measured or a failed cell.
use serde::{Deserialize, Serialize};

/// One skipped cell and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedCell {
    pub cell_id: String,
    pub runtime: String,
    /// In words: the runtime, the cell, the JDK resolved and what it needs.
    pub reason: String,
}
