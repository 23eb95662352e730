//! How long a plan takes, and `--quick` shortening.
//!
//! The estimate counts what the plan fixes: per service start (as many as
//! the restart policies ask for, see [`super::restart`]), the service
//! warmup plus [`START_ALLOWANCE`] (start, health wait, stop); per cold start
//! (`startup.repeats` of each runtime with cells), [`START_ALLOWANCE`]; per cell, its
//! warmup and measure duration. Builds and training depend on the machine
//! and caches: they are listed, not counted.
use std::time::Duration;

use serde::Serialize;

use super::restart::{Slot, needs_fresh_start};
use super::{Measure, Plan, Restart};

/// Time assumed per service start for starting, the health wait and stopping.
pub const START_ALLOWANCE: Duration = Duration::from_secs(5);

/// Shortest duration `--quick` leaves.
pub const QUICK_MIN: Duration = Duration::from_millis(100);

/// Predicted wall time of a plan, with its parts.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Estimate {
    pub total: Duration,
    /// Service starts: one per run of consecutive cells of a runtime, more
    /// as its `lifecycle.restart` asks (deaths aside).
    pub service_starts: usize,
    /// Service warmup + start allowance, per start.
    pub per_start: Duration,
    /// Cold starts before the cells (`startup.repeats`), each a start allowance.
    pub cold_starts: usize,
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
        let mut previous: Option<Slot> = None;
        for cell in &self.cells {
            let next = Slot::of(cell);
            if needs_fresh_start(self.restart_of(&cell.runtime), previous, next) {
                service_starts += 1;
            }
            previous = Some(next);
        }
        let per_start = self.service_warmup + START_ALLOWANCE;
        let cold_starts: usize = self
            .runtimes
            .iter()
            .filter(|r| self.cells.iter().any(|c| c.runtime == r.name))
            .map(|r| r.startup_repeats as usize)
            .sum();
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
            total: per_start * service_starts as u32
                + START_ALLOWANCE * cold_starts as u32
                + cells_time,
            service_starts,
            per_start,
            cold_starts,
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

    /// The restart policy of runtime `name` (the default for a name the plan lacks).
    pub fn restart_of(&self, name: &str) -> Restart {
        self.runtimes
            .iter()
            .find(|r| r.name == name)
            .map_or(super::runtime::DEFAULT_RESTART, |r| r.restart)
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

    /// Three runtimes (`c` extends `b`), 2 points, 3 repeats, sequential, with `extra`.
    fn plan_with(extra: &str) -> Plan {
        let text = format!(
            "experiment: {{ name: e }}\n\
             runtimes:\n  a: {{ start: ./a }}\n  b: {{ start: ./b, lifecycle: {{ restart: run }} }}\n  c: {{ extends: b }}\n\
             workload: {{ path: / }}\n\
             axes: {{ concurrency: [1, 2] }}\n\
             repeats: 3\n\
             order: sequential\n\
             warmup: {{ service: 2s }}\n\
             measure: {{ duration: 1s }}\n{extra}"
        );
        let loaded = crate::spec::from_text(text, std::path::Path::new("/tmp/e.yaml"))
            .unwrap_or_else(|e| panic!("{e}"));
        crate::plan::build(&loaded, &Default::default()).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn cold_starts_follow_each_runtimes_startup_repeats() {
        let plan = plan_with("startup: { repeats: 0 }\n");
        assert_eq!(plan.estimate().cold_starts, 0);
        let plan = plan_with("startup: { repeats: 5 }\n");
        assert_eq!(plan.estimate().cold_starts, 15);
    }

    #[test]
    fn starts_follow_each_runtimes_restart_policy_and_cost_a_warmup_each() {
        let plan = plan_with("lifecycle: { restart: cell }\n");
        let policies: Vec<Restart> = plan.runtimes.iter().map(|r| r.restart).collect();
        assert_eq!(
            policies,
            [Restart::Cell, Restart::Run, Restart::Run],
            "a runtime's own lifecycle wins, and is inherited through extends"
        );
        let e = plan.estimate();
        assert_eq!(
            e.service_starts,
            6 + 1 + 1,
            "a: one per cell; b, c: one each"
        );
        assert_eq!(e.per_start, Duration::from_secs(2) + START_ALLOWANCE);
        // 3 cold starts (the default `startup.repeats`) per runtime.
        assert_eq!(e.cold_starts, 9);
        assert_eq!(
            e.total,
            e.per_start * 8 + START_ALLOWANCE * 9 + Duration::from_secs(18)
        );

        let by_default = plan_with("");
        assert_eq!(by_default.runtimes[0].restart, Restart::Repeat);
        assert_eq!(
            by_default.estimate().service_starts,
            3 + 1 + 1,
            "a: one per repeat"
        );
    }

    #[test]
    fn human_durations_read_naturally() {
        assert_eq!(human(Duration::from_millis(850)), "850ms");
        assert_eq!(human(Duration::from_millis(1500)), "1.5s");
        assert_eq!(human(Duration::from_secs(5)), "5s");
        assert_eq!(human(Duration::from_secs(2565)), "42m 45s");
        assert_eq!(human(Duration::from_secs(3723)), "1h 02m 03s");
    }
}
