//! `--repeats N`: at most N repeats of everything a spec repeats (every
//! configuration's cells, each runtime's cold starts, the memory phases),
//! for a smoke run that must reach every cell of a study without paying for
//! the repeats its statistics need. Applied to each runtime before its cells
//! are rendered, so the cells, the profiled repeat's number and the
//! estimate all follow from the capped policy, as they would from a spec
//! that said N.
use crate::plan::{Plan, RepeatPolicy, RuntimePlan};

impl RepeatPolicy {
    /// The policy with no more than `cap` repeats (an adaptive policy keeps
    /// its target, between `min` and `max` both capped).
    pub fn capped(self, cap: u32) -> RepeatPolicy {
        match self {
            RepeatPolicy::Fixed { repeats } => RepeatPolicy::Fixed {
                repeats: repeats.min(cap),
            },
            RepeatPolicy::Adaptive {
                min,
                max,
                target_ci,
            } => RepeatPolicy::Adaptive {
                min: min.min(cap),
                max: max.min(cap),
                target_ci,
            },
            RepeatPolicy::Decided { min, max } => RepeatPolicy::Decided {
                min: min.min(cap),
                max: max.min(cap),
            },
        }
    }
}

/// Caps one runtime's repeats and cold starts (before its cells are rendered).
pub fn cap_runtime(runtime: &mut RuntimePlan, cap: u32) {
    runtime.repeats = runtime.repeats.capped(cap);
    runtime.startup_repeats = runtime.startup_repeats.min(cap);
}

/// Caps the plan-wide figures and records the cap in the plan.
pub fn cap_plan(plan: &mut Plan, cap: u32) {
    plan.repeats = plan.repeats.min(cap);
    if let Some(memory) = &mut plan.memory {
        memory.repeats = memory.repeats.min(cap);
    }
    plan.repeats_cap = Some(cap);
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::plan::{PlanOptions, build};

    const SPEC: &str = "\
experiment: { name: capped }
runtimes:
  a: { start: ./a, health: { path: /health }, repeats: { min: 3, max: 6, target_ci: 2% } }
  b: { start: ./b, health: { path: /health } }
  c: { start: ./c, health: { path: /health }, repeats: 1 }
workload: { path: / }
load: { mode: closed, connections: 1 }
axes: { size: [1, 2] }
repeats: 4
startup: { repeats: 3 }
memory: { repeats: 5, connections: 10, duration: 1s }
measure: { duration: 1s }
";

    fn plan(repeats: Option<u32>) -> crate::plan::Plan {
        let loaded = crate::spec::from_text(SPEC.into(), Path::new("/nowhere/spec.yaml")).unwrap();
        let options = PlanOptions {
            repeats,
            ..PlanOptions::default()
        };
        build(&loaded, &options).unwrap()
    }

    fn cells_of(plan: &crate::plan::Plan, runtime: &str) -> usize {
        plan.cells.iter().filter(|c| c.runtime == runtime).count()
    }

    #[test]
    fn without_a_cap_every_repeat_is_planned() {
        let plan = plan(None);
        assert_eq!(
            [
                cells_of(&plan, "a"),
                cells_of(&plan, "b"),
                cells_of(&plan, "c")
            ],
            [12, 8, 2]
        );
        assert_eq!(plan.repeats_cap, None);
    }

    #[test]
    fn a_cap_bounds_cells_cold_starts_and_memory_phases_but_never_raises_them() {
        let plan = plan(Some(2));
        assert_eq!(
            [
                cells_of(&plan, "a"),
                cells_of(&plan, "b"),
                cells_of(&plan, "c")
            ],
            [4, 4, 2]
        );
        assert!(plan.cells.iter().all(|c| c.repeat <= 2));
        assert!(plan.runtimes.iter().all(|r| r.startup_repeats == 2));
        assert_eq!(plan.memory.as_ref().unwrap().repeats, 2);
        assert_eq!(plan.repeats, 2);
        assert_eq!(plan.repeats_cap, Some(2));
        assert_eq!(
            plan.runtimes[0].repeats,
            crate::plan::RepeatPolicy::Adaptive {
                min: 2,
                max: 2,
                target_ci: 0.02
            }
        );
    }
}
