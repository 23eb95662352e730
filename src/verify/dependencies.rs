//! The dependencies of the runtimes under verify (the spec's
//! `dependencies:`, a runtime's `needs`), run with exec's own machinery
//! ([`crate::dependency`]: scratch folder, setup, server in its own
//! process group and cgroup, readiness, seed, reset, graceful stop) and its
//! rule of when to start or reset ([`crate::exec::rules::dependency_schedule`]):
//! started before the first runtime that needs it, reset (a `kind:
//! postgres` database dropped and seeded again) before each later one, so
//! every runtime answers the same requests against the same fresh state,
//! and all stopped at the end, however verify ends. A dependency that fails
//! fails the runtimes that need it, with its reason and log; it is not
//! started again for them.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::dependency::{Dependencies, Site};
use crate::exec::rules::dependency_schedule::{Prepare, Tracker};
use crate::plan::{DependencyPlan, Plan, RuntimePlan};

/// Why a runtime's dependency is not there for it: what, and the log to read.
#[derive(Debug, Clone)]
pub struct DependencyFailure {
    pub reason: String,
    pub log: PathBuf,
}

/// The dependencies of one verify.
pub struct VerifyDependencies<'a> {
    plan: &'a Plan,
    /// `<verify folder>/logs`: `dependency-<name>.log` per dependency.
    logs: &'a Path,
    cancelled: &'a dyn Fn() -> bool,
    running: Dependencies,
    schedule: Tracker,
    /// Those that failed, by name: their later users fail with the same reason.
    failed: BTreeMap<String, DependencyFailure>,
}

impl<'a> VerifyDependencies<'a> {
    pub fn new(plan: &'a Plan, logs: &'a Path, cancelled: &'a dyn Fn() -> bool) -> Self {
        VerifyDependencies {
            plan,
            logs,
            cancelled,
            running: Dependencies::default(),
            schedule: Tracker::default(),
            failed: BTreeMap::new(),
        }
    }

    fn dependency(&self, name: &str) -> &'a DependencyPlan {
        let plan: &'a Plan = self.plan;
        plan.dependencies
            .iter()
            .find(|d| d.name == name)
            .expect("`needs` only names planned dependencies")
    }

    fn log_of(&self, name: &str) -> PathBuf {
        self.logs.join(format!("dependency-{name}.log"))
    }

    /// Makes every dependency `rt` needs ready for it: started the first
    /// time, reset when another runtime used it since; what was done goes
    /// to `notes` ("dependency db reset in 0.4s").
    pub fn prepare(
        &mut self,
        rt: &RuntimePlan,
        notes: &mut Vec<String>,
    ) -> Result<(), DependencyFailure> {
        // The schedule tells runtimes apart by their cells; verify uses one per runtime.
        let cell = self.plan.cells.iter().find(|c| c.runtime == rt.name);
        for name in &rt.needs {
            if let Some(failure) = self.failed.get(name) {
                return Err(failure.clone());
            }
            let dep = self.dependency(name);
            let step = self.schedule.prepare(dep, cell);
            let since = Instant::now();
            let outcome = match step {
                Prepare::Start => {
                    let site = Site {
                        log: self.log_of(name),
                        cancelled: self.cancelled,
                    };
                    self.running.start_at(&site, dep)
                }
                Prepare::Reset => self
                    .running
                    .check(dep)
                    .and_then(|()| self.running.reset_unless(self.cancelled, dep)),
                Prepare::Keep => self.running.check(dep),
            };
            let what = match step {
                Prepare::Start => "failed to start",
                Prepare::Reset => "failed its reset",
                Prepare::Keep => "stopped working",
            };
            if let Err(e) = outcome {
                return Err(self.fail(dep, what, &e.to_string()));
            }
            self.schedule.used(name, cell);
            let seconds = since.elapsed().as_secs_f64();
            match step {
                Prepare::Start => notes.push(format!("dependency {name} started in {seconds:.1}s")),
                Prepare::Reset => notes.push(format!("dependency {name} reset in {seconds:.1}s")),
                Prepare::Keep => {}
            }
        }
        Ok(())
    }

    /// After `rt`'s requests: the first of its dependencies that died meanwhile.
    pub fn check(&mut self, rt: &RuntimePlan) -> Result<(), DependencyFailure> {
        for name in &rt.needs {
            let dep = self.dependency(name);
            if let Err(e) = self.running.check(dep) {
                return Err(self.fail(dep, "died while the requests were sent", &e.to_string()));
            }
        }
        Ok(())
    }

    /// Records `dep`'s failure and stops what is left of it.
    fn fail(&mut self, dep: &DependencyPlan, what: &str, why: &str) -> DependencyFailure {
        let log = self
            .running
            .log(&dep.name)
            .map_or_else(|| self.log_of(&dep.name), Path::to_path_buf);
        let _ = self.running.stop(dep);
        self.schedule.up.remove(&dep.name);
        let users: Vec<&str> = self
            .plan
            .runtimes
            .iter()
            .filter(|r| r.needs.contains(&dep.name))
            .map(|r| r.name.as_str())
            .collect();
        let failure = DependencyFailure {
            reason: format!(
                "dependency `{}` {what}, so the runtimes that need it ({}) cannot be checked: {why}",
                dep.name,
                users.join(", ")
            ),
            log,
        };
        self.failed.insert(dep.name.clone(), failure.clone());
        failure
    }

    /// Stops every dependency still up; a problem per one that did not
    /// stop cleanly (its name, what went wrong, its log).
    pub fn stop_all(&mut self) -> Vec<(String, String, PathBuf)> {
        let up: Vec<String> = self.schedule.up.keys().cloned().collect();
        let mut problems = Vec::new();
        for name in up {
            let dep = self.dependency(&name);
            let log = self.log_of(&name);
            self.schedule.up.remove(&name);
            if let Some(problem) = self.running.stop(dep) {
                problems.push((name, problem, log));
            }
        }
        problems
    }
}

impl Drop for VerifyDependencies<'_> {
    /// A panic or an early return still stops them (the services' own
    /// guards would otherwise kill them only when the runner exits).
    fn drop(&mut self) {
        let _ = self.stop_all();
    }
}
