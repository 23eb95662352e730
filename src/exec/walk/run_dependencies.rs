//! The walk's part for dependencies ([`super::dependency_schedule`] decides,
//! the driver acts): each runtime's dependencies are ready before any start
//! of its service, reset when the slot changes, checked after each cell,
//! stopped once no cell left needs them. A dependency that fails skips every
//! runtime that needs it, with its reason; `--resume` retries them.
use std::collections::HashSet;
use std::time::Instant;

use super::{Executor, Up};
use crate::exec::ExecError;
use crate::exec::events::{DependencyStep, Event};
use crate::exec::rules::dependency_schedule::Prepare;
use crate::exec::site::driver::Driver;
use crate::plan::{Cell, DependencyPlan, RuntimePlan};

impl<'a, D: Driver> Executor<'a, D> {
    fn dependency(&self, name: &str) -> &'a DependencyPlan {
        let plan: &'a crate::plan::Plan = self.ctx.plan;
        plan.dependencies
            .iter()
            .find(|d| d.name == name)
            .expect("`needs` only names planned dependencies")
    }

    fn dependency_event(
        &self,
        dep: &DependencyPlan,
        step: DependencyStep,
        since: Instant,
        problem: Option<String>,
    ) {
        let _ = self.ctx.events.send(Event::Dependency {
            name: dep.name.clone(),
            step,
            seconds: since.elapsed().as_secs_f64(),
            problem,
        });
    }

    /// Makes `rt`'s dependencies ready for `cell` (`None`: for a cold start
    /// or a training). `false`: one failed and `rt` is skipped.
    pub(crate) fn prepare_dependencies(
        &mut self,
        rt: &RuntimePlan,
        cell: Option<&Cell>,
    ) -> Result<bool, ExecError> {
        let plan: &'a crate::plan::Plan = self.ctx.plan;
        for name in plan.needs_of(rt, cell) {
            let dep = self.dependency(name);
            let step = self.deps.prepare(dep, cell);
            let since = Instant::now();
            let outcome = match step {
                Prepare::Start => self.driver.start_dependency(&self.ctx, dep),
                Prepare::Reset => self
                    .driver
                    .check_dependency(dep)
                    .and_then(|()| self.driver.reset_dependency(&self.ctx, dep)),
                Prepare::Keep => self.driver.check_dependency(dep),
            };
            match outcome {
                Ok(()) => {
                    self.deps.used(name, cell);
                    match step {
                        Prepare::Start => {
                            self.dependency_event(dep, DependencyStep::Started, since, None)
                        }
                        Prepare::Reset => {
                            self.dependency_event(dep, DependencyStep::Reset, since, None)
                        }
                        Prepare::Keep => {}
                    }
                }
                Err(why) => {
                    self.dependency_failed(dep, step, &why)?;
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// `dep` failed (to start, to reset, or it died): it is stopped and
    /// every runtime that needs it is skipped with the reason.
    pub(crate) fn dependency_failed(
        &mut self,
        dep: &DependencyPlan,
        step: Prepare,
        why: &str,
    ) -> Result<(), ExecError> {
        if self.deps.up.remove(&dep.name).is_some() {
            let since = Instant::now();
            let problem = self.driver.stop_dependency(dep);
            self.dependency_event(dep, DependencyStep::Stopped, since, problem);
        }
        if self.ctx.interrupt.is_set() {
            return Ok(());
        }
        let plan: &'a crate::plan::Plan = self.ctx.plan;
        let users: Vec<&str> = plan
            .runtimes
            .iter()
            .filter(|r| r.needs.contains(&dep.name))
            .map(|r| r.name.as_str())
            .collect();
        let what = match step {
            Prepare::Start => "failed to start",
            Prepare::Reset => "failed its reset",
            Prepare::Keep => "stopped working",
        };
        let reason = format!(
            "dependency `{}` {what}, so the runtimes that need it ({}) are skipped: {why}; \
             fix it, then continue with: runner exec <spec> --resume {}",
            dep.name,
            users.join(", "),
            self.ctx.run.path().display()
        );
        for user in users {
            if !self.skipped.contains_key(user) {
                self.skip(user, reason.clone())?;
            }
        }
        Ok(())
    }

    /// After a measured `cell` of `rt`: the first of its dependencies found
    /// dead, with why.
    pub(crate) fn dead_dependency(
        &mut self,
        rt: &RuntimePlan,
        cell: &Cell,
    ) -> Option<(&'a DependencyPlan, String)> {
        let plan: &'a crate::plan::Plan = self.ctx.plan;
        let needs = plan.needs_of(self.runtime(&rt.name), Some(cell));
        needs.into_iter().find_map(|name| {
            let dep = self.dependency(name);
            self.driver
                .check_dependency(dep)
                .err()
                .map(|why| (dep, why))
        })
    }

    /// After cell `index`: stops every dependency that no cell still to run
    /// needs (the service of `current` first, when it is one of its users).
    pub(crate) fn stop_unneeded_dependencies(
        &mut self,
        index: usize,
        recorded: &HashSet<String>,
        current: &mut Option<Up<D::Service>>,
    ) -> Result<(), ExecError> {
        let plan: &'a crate::plan::Plan = self.ctx.plan;
        let up: Vec<String> = self.deps.up.keys().cloned().collect();
        for name in up {
            let dep = self.dependency(&name);
            // Still needed: a cell still to run, of a runtime not skipped, uses it.
            let still_needed = plan.cells[index + 1..].iter().any(|c| {
                !recorded.contains(&c.id)
                    && self.repeats.wants(c)
                    && !self.skipped.contains_key(&c.runtime)
                    && plan
                        .needs_of(self.runtime(&c.runtime), Some(c))
                        .contains(&name.as_str())
            });
            if still_needed {
                continue;
            }
            if current
                .as_ref()
                .is_some_and(|u| self.runtime(&u.runtime).needs.contains(&name))
                && let Some(u) = current.take()
            {
                self.stop(&u.runtime, u.running)?;
            }
            self.stop_dependency(dep);
        }
        Ok(())
    }

    fn stop_dependency(&mut self, dep: &DependencyPlan) {
        self.deps.up.remove(&dep.name);
        let since = Instant::now();
        let problem = self.driver.stop_dependency(dep);
        self.dependency_event(dep, DependencyStep::Stopped, since, problem);
    }

    /// Stops every dependency still up (the end of the walk, however it ended).
    pub(crate) fn stop_all_dependencies(&mut self) {
        let up: Vec<String> = self.deps.up.keys().cloned().collect();
        for name in up {
            let dep = self.dependency(&name);
            self.stop_dependency(dep);
        }
    }
}
