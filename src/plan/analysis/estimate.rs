//! How long a plan takes, and `--quick` shortening.
//!
//! The estimate counts what the plan fixes: per service start (as many as
//! the restart policies ask for, see [`crate::plan::steps::restart`]), the service
//! warmup plus [`START_ALLOWANCE`] (start, health wait, stop); per cold start
//! (`startup.repeats` of each runtime with cells), [`START_ALLOWANCE`]; per cell, its
//! warmup and measure duration. Builds and training depend on the machine
//! and caches: they are listed, not counted.
use std::time::Duration;

use serde::Serialize;

use crate::plan::steps::restart::{Slot, needs_fresh_start};
use crate::plan::{Cell, CellWarmup, Measure, Plan, RepeatPolicy, Restart};

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
    /// With adaptive repeats or `warmup: { cell: auto }`, the other end of
    /// the range: every configuration stopping at its `min` repeats, every
    /// auto warmup ending at its earliest (the fields above are the most:
    /// every configuration to `max`, every auto warmup to its `max`).
    /// `None`: the plan's length is fixed.
    pub least: Option<Least>,
    /// Memory phases (`memory:`): fresh processes, and each one's time
    /// (start allowance + settle + load).
    pub memory_processes: usize,
    pub per_memory_process: Duration,
}

/// The shortest a plan with adaptive parts can take.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Least {
    pub total: Duration,
    pub service_starts: usize,
    pub cells: usize,
}

/// Service starts, cells, and their warmups and measure durations, of the
/// cells `keep` keeps; warmups counted as `warmup` says.
struct Walk {
    starts: usize,
    cells: usize,
    cells_time: Duration,
    by_requests: usize,
}

impl Plan {
    /// The wall-time estimate of this plan.
    pub fn estimate(&self) -> Estimate {
        let per_start = self.service_warmup + START_ALLOWANCE;
        let cold_starts: usize = self
            .runtimes
            .iter()
            .filter(|r| self.cells.iter().any(|c| c.runtime == r.name))
            .map(|r| r.startup_repeats as usize)
            .sum();
        let cold = START_ALLOWANCE * cold_starts as u32;
        let memory_processes = self.memory.as_ref().map_or(0, |m| {
            m.repeats as usize
                * self
                    .runtimes
                    .iter()
                    .filter(|r| self.cells.iter().any(|c| c.runtime == r.name))
                    .count()
        });
        let per_memory_process = self
            .memory
            .as_ref()
            .map_or(Duration::ZERO, |m| START_ALLOWANCE + m.settle + m.duration);
        // Cold starts and memory processes: the same however the cells run.
        let outside_cells = cold + per_memory_process * memory_processes as u32;
        let most = self.walk(|_| true, CellWarmup::longest);
        let least = self.walk(
            |cell| cell.profiled || cell.repeat <= self.repeats_of(&cell.runtime).min(),
            CellWarmup::shortest,
        );
        let adaptive = (least.cells, least.cells_time) != (most.cells, most.cells_time);
        Estimate {
            total: per_start * most.starts as u32 + outside_cells + most.cells_time,
            service_starts: most.starts,
            per_start,
            cold_starts,
            cells: most.cells,
            cells_time: most.cells_time,
            cells_by_requests: most.by_requests,
            least: adaptive.then(|| Least {
                total: per_start * least.starts as u32 + outside_cells + least.cells_time,
                service_starts: least.starts,
                cells: least.cells,
            }),
            builds: self.runtimes.iter().filter(|r| !r.build.is_empty()).count(),
            training: self
                .runtimes
                .iter()
                .filter_map(|r| r.train.as_ref().map(|t| (r.name.clone(), t.duration)))
                .collect(),
            memory_processes,
            per_memory_process,
        }
    }

    /// The cells `keep` keeps, in plan order, with the starts exec gives
    /// them (the rule exec applies to the cells it runs).
    fn walk(&self, keep: impl Fn(&Cell) -> bool, warmup: fn(CellWarmup) -> Duration) -> Walk {
        let mut walk = Walk {
            starts: 0,
            cells: 0,
            cells_time: Duration::ZERO,
            by_requests: 0,
        };
        let mut previous: Option<Slot> = None;
        for cell in self.cells.iter().filter(|c| keep(c)) {
            let next = Slot::of(cell);
            if needs_fresh_start(self.restart_of(&cell.runtime), previous, next) {
                walk.starts += 1;
            }
            previous = Some(next);
            walk.cells += 1;
            walk.cells_time += warmup(cell.warmup) + cell.load.ramp;
            match cell.measure {
                Measure::Duration(d) => walk.cells_time += d,
                Measure::Requests(_) => walk.by_requests += 1,
            }
        }
        walk
    }

    /// The repeat policy of runtime `name` (fixed at the plan's repeats for a name the plan lacks).
    pub fn repeats_of(&self, name: &str) -> RepeatPolicy {
        self.runtimes.iter().find(|r| r.name == name).map_or(
            RepeatPolicy::Fixed {
                repeats: self.repeats,
            },
            |r| r.repeats,
        )
    }

    /// The restart policy of runtime `name` (the default for a name the plan lacks).
    pub fn restart_of(&self, name: &str) -> Restart {
        self.runtimes
            .iter()
            .find(|r| r.name == name)
            .map_or(crate::plan::steps::inputs::DEFAULT_RESTART, |r| r.restart)
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
            cell.warmup = match cell.warmup.shortened(shorten) {
                // Divided like `measure.requests` below.
                CellWarmup::Requests { count } => CellWarmup::Requests {
                    count: (count / u64::from(factor)).max(1),
                },
                other => other,
            };
            cell.measure = match cell.measure {
                // A profiled window stays long enough for its samplers.
                Measure::Duration(d) if cell.profiled => Measure::Duration(
                    shorten(d).max(crate::plan::steps::profile::QUICK_PROFILED_WINDOW.min(d)),
                ),
                Measure::Duration(d) => Measure::Duration(shorten(d)),
                Measure::Requests(n) => Measure::Requests((n / u64::from(factor)).max(1)),
            };
            // The connection ramp is unmeasured time before the window, like a warmup.
            cell.load.ramp = shorten(cell.load.ramp);
            // A search's steps are its measurement: shortened alike, so a
            // quick run's search stays as short as its other cells.
            if let crate::plan::LoadMode::Search(search) = &mut cell.load.mode {
                search.step_warmup = shorten(search.step_warmup);
                search.step_window = shorten(search.step_window);
            }
        }
        for runtime in &mut self.runtimes {
            if let Some(train) = &mut runtime.train {
                train.duration = shorten(train.duration);
            }
        }
        if let Some(memory) = &mut self.memory {
            memory.settle = shorten(memory.settle);
            memory.duration = shorten(memory.duration);
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
        plan_of("{ start: ./a }", "{ service: 2s }", extra)
    }

    /// [`plan_with`] with runtime `a` and `warmup` written as given.
    fn plan_of(a: &str, warmup: &str, extra: &str) -> Plan {
        let text = format!(
            "experiment: {{ name: e }}\n\
             runtimes:\n  a: {a}\n  b: {{ start: ./b, lifecycle: {{ restart: run }} }}\n  c: {{ extends: b }}\n\
             workload: {{ path: / }}\n\
             axes: {{ concurrency: [1, 2] }}\n\
             repeats: 3\n\
             order: sequential\n\
             warmup: {warmup}\n\
             measure: {{ duration: 1s }}\n{extra}"
        );
        let loaded = crate::spec::from_text(text, std::path::Path::new("/tmp/e.yaml"))
            .unwrap_or_else(|e| panic!("{e}"));
        crate::plan::build(&loaded, &Default::default()).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn quick_shortens_a_searchs_steps_like_every_other_window() {
        let plan = plan_with(
            "load: { mode: search, slo: { p99: 50ms, errors: 1% }, from: 100, to: 1000, step: { warmup: 2s, duration: 5s } }
",
        )
        .quick(10);
        let crate::plan::LoadMode::Search(search) = plan.cells[0].load.mode else {
            panic!("a search cell: {:?}", plan.cells[0].load.mode);
        };
        assert_eq!(search.step_warmup, Duration::from_millis(200));
        assert_eq!(search.step_window, Duration::from_millis(500));
    }

    #[test]
    fn quick_shortens_the_connection_ramp_like_a_warmup() {
        let plan = plan_with("load: { mode: closed, connections: 8, ramp: 10s }\n");
        assert_eq!(plan.cells[0].load.ramp, Duration::from_secs(10));
        assert_eq!(
            plan.quick(20).cells[0].load.ramp,
            Duration::from_millis(500)
        );
        let plan = plan_with("load: { mode: closed, connections: 8 }\n").quick(20);
        assert_eq!(
            plan.cells[0].load.ramp,
            Duration::ZERO,
            "no ramp stays no ramp"
        );
    }

    #[test]
    fn cold_starts_follow_each_runtimes_startup_repeats() {
        let plan = plan_with("startup: { repeats: 0 }\n");
        assert_eq!(plan.estimate().cold_starts, 0);
        let plan = plan_with("startup: { repeats: 5 }\n");
        assert_eq!(plan.estimate().cold_starts, 15);
    }

    #[test]
    fn memory_phases_add_their_processes_to_the_total_and_quick_shortens_them() {
        let without = plan_with("startup: { repeats: 0 }\n").estimate();
        let plan = plan_with(
            "startup: { repeats: 0 }\nmemory: { repeats: 2, settle: 1s, connections: 8, duration: 10s }\n",
        );
        let e = plan.estimate();
        assert_eq!(e.memory_processes, 6); // 2 processes x 3 runtimes
        assert_eq!(
            e.per_memory_process,
            START_ALLOWANCE + Duration::from_secs(11)
        );
        assert_eq!(e.total, without.total + e.per_memory_process * 6);
        let quick = plan.quick(10);
        let memory = quick.memory.as_ref().unwrap();
        assert_eq!(
            (memory.settle, memory.duration),
            (Duration::from_millis(100), Duration::from_secs(1))
        );
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
    fn adaptive_repeats_and_auto_warmup_give_a_range_from_min_to_max() {
        let fixed = plan_with("");
        assert_eq!(
            fixed.estimate().least,
            None,
            "a fixed design has one length"
        );
        // a: 2 points x repeats 2..4, a fresh start per repeat; b, c: 3 fixed repeats, one start.
        let plan = plan_of(
            "{ start: ./a, repeats: { min: 2, max: 4, target_ci: 3% } }",
            "{ service: 2s }",
            "",
        );
        let e = plan.estimate();
        assert_eq!((e.cells, e.service_starts), (8 + 6 + 6, 4 + 1 + 1));
        let least = e.least.expect("adaptive: a range");
        assert_eq!((least.cells, least.service_starts), (4 + 6 + 6, 2 + 1 + 1));
        // Both ends include the 3 default cold starts of each runtime.
        let cold = START_ALLOWANCE * e.cold_starts as u32;
        assert_eq!(
            least.total,
            e.per_start * 4 + cold + Duration::from_secs(16)
        );
        assert_eq!(e.total, e.per_start * 6 + cold + Duration::from_secs(20));

        let auto = plan_of(
            "{ start: ./a }",
            "{ service: 2s, cell: auto, max: 10s }",
            "",
        )
        .estimate();
        let least = auto.least.expect("auto warmup: a range");
        assert_eq!(least.cells, auto.cells);
        assert_eq!(auto.cells_time, Duration::from_secs(18 * 11));
        assert_eq!(
            least.total
                - least.service_starts as u32 * auto.per_start
                - START_ALLOWANCE * auto.cold_starts as u32,
            Duration::from_secs(18 * 6),
            "at least the rule's 5 windows of 1 s per cell"
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
