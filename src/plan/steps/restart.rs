//! The one rule deciding whether a cell needs a service start of its own:
//! exec applies it while walking the cells, the estimate counts starts with
//! it, so what `runner plan` predicts is what `runner exec` does (deaths
//! aside: a service that died is always started anew, whatever the policy).
use crate::cgroup::Limits;
use crate::plan::contract::start_variant::StartVariant;
use crate::plan::{Cell, Restart};

/// What the restart rule looks at in a cell: its runtime, repeat, limits
/// scenario and the start fields it resolved (when they vary per cell).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slot<'a> {
    pub runtime: &'a str,
    pub repeat: u32,
    pub limits: &'a Limits,
    /// Its `scenario` axis value (`None`: the spec has no `scenarios:`).
    pub scenario: Option<&'a str>,
    /// `None`: the runtime's own start fields (they use no axis).
    pub start: Option<&'a StartVariant>,
}

impl<'a> Slot<'a> {
    pub fn of(cell: &'a Cell) -> Self {
        Slot {
            runtime: &cell.runtime,
            repeat: cell.repeat,
            limits: &cell.limits,
            scenario: crate::spec::keys::scenarios::scenario_of(&cell.axes),
            start: cell.variant.as_ref(),
        }
    }
}

/// Whether `next` needs a fresh service start under `policy` (the policy
/// of `next`'s runtime), given the cell the service that is up measured
/// last (`None`: no service is up, it was never started, was stopped or died).
///
/// Another runtime's service is always replaced: one service runs at a time.
/// So is a service whose limits differ from the next cell's: a runtime sizes
/// itself for the limits it starts under (see [`crate::plan::keys::limits`]). So is
/// a service of another scenario: a scenario has dependencies of its own,
/// and a service opens its pools to them as it starts. So is one whose
/// resolved start (command, env, JVM flags, JDK) differs from the next
/// cell's: that cell measures another process (see [`crate::plan::steps::variant`]).
/// Otherwise `run` keeps the service, `repeat` starts anew when the repeat
/// changes, `cell` starts anew for every cell.
pub fn needs_fresh_start(policy: Restart, up: Option<Slot>, next: Slot) -> bool {
    let Some(last) = up else {
        return true;
    };
    if last.runtime != next.runtime
        || last.limits != next.limits
        || last.scenario != next.scenario
        || last.start != next.start
    {
        return true;
    }
    match policy {
        Restart::Run => false,
        Restart::Repeat => last.repeat != next.repeat,
        Restart::Cell => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: Limits = Limits {
        cpus: None,
        memory_bytes: None,
    };

    fn slot(runtime: &str, repeat: u32) -> Slot<'_> {
        Slot {
            runtime,
            repeat,
            limits: &NONE,
            scenario: None,
            start: None,
        }
    }

    #[test]
    fn another_resolved_start_always_needs_a_start_of_its_own() {
        let variant = |gc: &str| StartVariant {
            start: format!("java -XX:+Use{gc}GC -jar app.jar"),
            env: Default::default(),
            jvm_flags: vec![format!("-XX:+Use{gc}GC")],
            java: None,
            scratch: None,
        };
        let (g1, same, z) = (variant("G1"), variant("G1"), variant("Z"));
        let on = |v| Slot {
            start: Some(v),
            ..slot("a", 1)
        };
        for policy in [Restart::Run, Restart::Repeat] {
            assert!(needs_fresh_start(policy, Some(on(&g1)), on(&z)));
            assert!(!needs_fresh_start(policy, Some(on(&g1)), on(&same)));
        }
    }

    #[test]
    fn another_scenario_always_needs_a_start_of_its_own() {
        let next = Slot {
            scenario: Some("crud"),
            ..slot("a", 1)
        };
        let up = Slot {
            scenario: Some("orders"),
            ..slot("a", 1)
        };
        for policy in [Restart::Run, Restart::Repeat, Restart::Cell] {
            assert!(needs_fresh_start(policy, Some(up), next));
        }
        assert!(!needs_fresh_start(Restart::Run, Some(next), next));
    }

    #[test]
    fn other_limits_always_need_a_start_of_their_own() {
        let two = Limits {
            cpus: Some(2.0),
            memory_bytes: None,
        };
        let next = Slot {
            limits: &two,
            ..slot("a", 1)
        };
        for policy in [Restart::Run, Restart::Repeat, Restart::Cell] {
            assert!(needs_fresh_start(policy, Some(slot("a", 1)), next));
        }
        assert!(!needs_fresh_start(Restart::Run, Some(next), next));
    }

    #[test]
    fn nothing_up_or_another_runtime_up_always_needs_a_start() {
        for policy in [Restart::Run, Restart::Repeat, Restart::Cell] {
            assert!(needs_fresh_start(policy, None, slot("a", 1)));
            assert!(needs_fresh_start(policy, Some(slot("b", 1)), slot("a", 1)));
        }
    }

    #[test]
    fn the_same_runtime_is_restarted_as_its_policy_says() {
        let same_repeat = (Some(slot("a", 1)), slot("a", 1));
        let next_repeat = (Some(slot("a", 1)), slot("a", 2));
        let cases = [
            (Restart::Run, same_repeat, false),
            (Restart::Run, next_repeat, false),
            (Restart::Repeat, same_repeat, false),
            (Restart::Repeat, next_repeat, true),
            (Restart::Cell, same_repeat, true),
            (Restart::Cell, next_repeat, true),
        ];
        for (policy, (up, next), expected) in cases {
            assert_eq!(
                needs_fresh_start(policy, up, next),
                expected,
                "{policy:?}: {up:?} -> {next:?}"
            );
        }
    }
}
