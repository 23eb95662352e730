//! How long a plan takes, and `--quick` shortening.
//!
//! The estimate counts what the plan fixes: per service start, the service
//! warmup plus [`START_ALLOWANCE`] (start, health wait, stop); per cell, its
//! warmup and measure duration. Builds and training depend on the machine
//! and caches: they are listed, not counted.
use std::time::Duration;

use serde::Serialize;

use super::{Measure, Plan};

/// Time assumed per service start for starting, the health wait and stopping.
pub const START_ALLOWANCE: Duration = Duration::from_secs(5);

/// Shortest duration `--quick` leaves.
pub const QUICK_MIN: Duration = Duration::from_millis(100);

/// Predicted wall time of a plan, with its parts.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Estimate {
    pub total: Duration,
    /// Services are started once per run of consecutive cells of one runtime.
    pub service_starts: usize,
    /// Service warmup + start allowance, per start.
    pub per_start: Duration,
    pub cells: usize,
    /// Sum of the cells' warmups and measure durations.
    pub cells_time: Duration,
    /// Cells measured by request count: their duration is unknown, not counted.
    pub cells_by_requests: usize,
    /// Runtimes with build commands (not counted).
    pub builds: usize,
    /// Runtimes that train, with the training load duration (not counted).
    pub training: Vec<(String, Duration)>,
}

impl Plan {
    /// The wall-time estimate of this plan.
    pub fn estimate(&self) -> Estimate {
        let mut service_starts = 0;
        let mut previous: Option<&str> = None;
        for cell in &self.cells {
            if previous != Some(cell.runtime.as_str()) {
                service_starts += 1;
                previous = Some(&cell.runtime);
            }
        }
        let per_start = self.service_warmup + START_ALLOWANCE;
        let mut cells_time = Duration::ZERO;
        let mut cells_by_requests = 0;
        for cell in &self.cells {
            cells_time += cell.warmup;
            match cell.measure {
                Measure::Duration(d) => cells_time += d,
                Measure::Requests(_) => cells_by_requests += 1,
            }
        }
        Estimate {
            total: per_start * service_starts as u32 + cells_time,
            service_starts,
            per_start,
            cells: self.cells.len(),
            cells_time,
            cells_by_requests,
            builds: self.runtimes.iter().filter(|r| !r.build.is_empty()).count(),
            training: self
                .runtimes
                .iter()
                .filter_map(|r| r.train.as_ref().map(|t| (r.name.clone(), t.duration)))
                .collect(),
        }
    }

    /// The same plan with every warmup and duration divided by `factor`
    /// (never below 100ms; request counts never below 1), for smoke runs.
    pub fn quick(mut self, factor: u32) -> Plan {
        let factor = factor.max(1);
        let shorten = |d: Duration| {
            if d.is_zero() {
                d
            } else {
                (d / factor).max(QUICK_MIN)
            }
        };
        self.service_warmup = shorten(self.service_warmup);
        for cell in &mut self.cells {
            cell.warmup = shorten(cell.warmup);
            cell.measure = match cell.measure {
                Measure::Duration(d) => Measure::Duration(shorten(d)),
                Measure::Requests(n) => Measure::Requests((n / u64::from(factor)).max(1)),
            };
        }
        for runtime in &mut self.runtimes {
            if let Some(train) = &mut runtime.train {
                train.duration = shorten(train.duration);
            }
        }
        self.quick_factor = Some(factor);
        self
    }
}

/// `42m 45s`, `1h 02m 03s`, `850ms`.
pub fn human(d: Duration) -> String {
    let secs = d.as_secs();
    if secs == 0 {
        return format!("{}ms", d.as_millis());
    }
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    let ms = d.subsec_millis();
    match (h, m) {
        (0, 0) if ms > 0 => format!("{}s", format!("{s}.{ms:03}").trim_end_matches('0')),
        (0, 0) => format!("{s}s"),
        (0, _) => format!("{m}m {s:02}s"),
        _ => format!("{h}h {m:02}m {s:02}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_durations_read_naturally() {
        assert_eq!(human(Duration::from_millis(850)), "850ms");
        assert_eq!(human(Duration::from_millis(1500)), "1.5s");
        assert_eq!(human(Duration::from_secs(5)), "5s");
        assert_eq!(human(Duration::from_secs(2565)), "42m 45s");
        assert_eq!(human(Duration::from_secs(3723)), "1h 02m 03s");
    }
}
