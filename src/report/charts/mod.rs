//! Charts: the SVG drawing parts and the summary's charts (`draw`), the
//! latency charts (`latency`); the section charts (search, memory phases)
//! are drawn by their sections with these parts.
pub mod draw;
pub mod latency;

use crate::report::analysis::summary::Summary;
use crate::report::error::ReportError;

pub use draw::Chart;

/// Every chart the run's data allows (a chart without data is left out).
pub fn all(summary: &Summary) -> Result<Vec<Chart>, ReportError> {
    let mut charts = Vec::new();
    if let Some(c) = draw::throughput(summary)? {
        charts.push(c);
    }
    for chart in [
        latency::p99_vs_concurrency(summary)?,
        latency::p99_at_equal_load(summary)?,
        draw::resources(summary)?,
        draw::startup(summary)?,
    ]
    .into_iter()
    .flatten()
    {
        charts.push(chart);
    }
    Ok(charts)
}
