//! The rule of when a dependency is started, reset and stopped, apart from
//! the walk over the cells ([`crate::exec::walk::run`]) so it is unit-tested alone:
//! started before the first runtime that needs it (its cold starts and
//! training included), reset when the (runtime, repeat) slot using it
//! changes as its `reset.when` says, stopped once no cell left needs it.
use std::collections::BTreeMap;

use crate::plan::{Cell, DependencyPlan, ResetWhen};

/// What must happen to a dependency before a cell (or a start) that needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prepare {
    /// Not running: build (once), start, seed.
    Start,
    /// Running, but used by another slot since its seed or last reset.
    Reset,
    /// Running and in the state this slot left it in.
    Keep,
}

/// The slot a dependency was last prepared for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastUse {
    pub runtime: String,
    pub repeat: u32,
}

/// The dependencies up at this point of the run, and the slot each last served.
#[derive(Debug, Default)]
pub struct Tracker {
    /// Dependency -> the slot of its last cell (`None`: started for a cold
    /// start or a training, no cell yet).
    pub up: BTreeMap<String, Option<LastUse>>,
}

impl Tracker {
    /// What `dep` needs before `cell` (`None`: before a start outside any
    /// cell: a cold start or a training).
    pub fn prepare(&self, dep: &DependencyPlan, cell: Option<&Cell>) -> Prepare {
        let Some(last) = self.up.get(&dep.name) else {
            return Prepare::Start;
        };
        let Some(cell) = cell else {
            return Prepare::Keep;
        };
        let due = match last {
            None => true,
            Some(last) if last.runtime != cell.runtime => true,
            Some(last) => {
                dep.reset
                    .as_ref()
                    .is_some_and(|r| r.when == ResetWhen::Repeat)
                    && last.repeat != cell.repeat
            }
        };
        if due && dep.reset.is_some() {
            Prepare::Reset
        } else {
            Prepare::Keep
        }
    }

    /// Records that `dep` was prepared (started or reset, or kept) for `cell`.
    pub fn used(&mut self, dep: &str, cell: Option<&Cell>) {
        let slot = cell.map(|c| LastUse {
            runtime: c.runtime.clone(),
            repeat: c.repeat,
        });
        match (self.up.get_mut(dep), slot) {
            (Some(last), Some(slot)) => *last = Some(slot),
            (Some(_), None) => {}
            (None, slot) => {
                self.up.insert(dep.to_owned(), slot);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::ResetPlan;

    fn dep(when: Option<ResetWhen>) -> DependencyPlan {
        let loaded = crate::spec::from_text(
            "experiment: {name: t}\nruntimes: {a: {start: x}}\nworkload: {path: /}\nload: {connections: 1}\nmeasure: {requests: 1}\n\
             dependencies: {db: {start: y}}\n"
                .into(),
            std::path::Path::new("/t/spec.yaml"),
        )
        .unwrap();
        let mut plan = crate::plan::build(&loaded, &Default::default()).unwrap();
        let mut d = plan.dependencies.remove(0);
        d.reset = when.map(|when| ResetPlan {
            command: "reset".into(),
            when,
        });
        d
    }

    fn cell(runtime: &str, repeat: u32) -> Cell {
        let loaded = crate::spec::from_text(
            format!(
                "experiment: {{name: t}}\nruntimes: {{{runtime}: {{start: x}}}}\nworkload: {{path: /}}\n\
                 load: {{connections: 1}}\nmeasure: {{requests: 1}}\nrepeats: {repeat}\n"
            ),
            std::path::Path::new("/t/spec.yaml"),
        )
        .unwrap();
        let plan = crate::plan::build(&loaded, &Default::default()).unwrap();
        plan.cells.into_iter().find(|c| c.repeat == repeat).unwrap()
    }

    #[test]
    fn resets_between_runtimes_and_between_repeats_only_when_asked() {
        let (a1, a2, b1) = (cell("a", 1), cell("a", 2), cell("b", 1));
        for (when, between_repeats) in [
            (ResetWhen::Runtime, Prepare::Keep),
            (ResetWhen::Repeat, Prepare::Reset),
        ] {
            let d = dep(Some(when));
            let mut t = Tracker::default();
            assert_eq!(t.prepare(&d, Some(&a1)), Prepare::Start);
            t.used("db", Some(&a1));
            assert_eq!(t.prepare(&d, Some(&a1)), Prepare::Keep);
            assert_eq!(t.prepare(&d, Some(&a2)), between_repeats);
            assert_eq!(t.prepare(&d, Some(&b1)), Prepare::Reset);
        }
    }

    #[test]
    fn a_start_for_a_cold_start_is_reset_before_the_first_cell() {
        let d = dep(Some(ResetWhen::Runtime));
        let mut t = Tracker::default();
        t.used("db", None);
        assert_eq!(t.prepare(&d, None), Prepare::Keep);
        assert_eq!(t.prepare(&d, Some(&cell("a", 1))), Prepare::Reset);
        let no_reset = dep(None);
        assert_eq!(t.prepare(&no_reset, Some(&cell("b", 1))), Prepare::Keep);
    }
}
