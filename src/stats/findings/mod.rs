//! The statistics of a run's findings (report::analysis::findings words
//! them): the four figures per repeat (`measures`), every question answered
//! with a simultaneous interval (`family`), and when a runtime's questions
//! are settled (`settle`, which `repeats: { until: decided }` stops on).
//! Here, below exec and report, because both use it: exec decides its
//! rounds with it and the report states what it found.
pub mod family;
pub mod measures;
pub mod settle;

pub use family::{Answer, FAMILY_ALPHA, Family, Lead, MAX_REPEATS, Scope, answer_all};
pub use measures::{Measure, PointRepeats, cpu_ms_per_request, point_repeats};

use crate::results::model::MeasurementRow;

/// A change smaller than this is "within" when the interval shows it; the
/// smallest difference a "what would decide it" figure is stated for.
pub const SMALL_CHANGE: f64 = 0.05;

/// Every question findings could state about `runtimes` in these rows,
/// answered with its simultaneous interval: what the sentences are chosen
/// from, what `until: decided` stops on, and what
/// examples/calibrate-findings.rs checks.
pub fn family_of(runtimes: &[String], rows: &[MeasurementRow], looks: usize) -> Family {
    answer_all(runtimes, &point_repeats(rows), looks)
}

/// The looks of a `until: decided` design from `min` to `max` repeats.
pub fn looks(min: u32, max: u32) -> usize {
    (max.saturating_sub(min) + 1) as usize
}

/// `jdk=25,log=true` -> `[("jdk", "25"), ("log", "true")]`: a point's axes.
pub fn axis_parts(axes: &str) -> Vec<(&str, &str)> {
    axes.split(',')
        .filter_map(|part| part.split_once('='))
        .collect()
}
