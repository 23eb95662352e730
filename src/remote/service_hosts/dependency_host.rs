//! The far side's dependencies: a service host over SSH starts, resets,
//! checks, samples and stops the dependencies of its runtimes with the same
//! code as a local run ([`crate::dependency::Dependencies`]: build
//! once, a fresh scratch folder, setup, the server in its own process group
//! and cgroup, readiness, seed), so that the services reach them on that
//! host's loopback, as they do locally.
//!
//! Nothing outlives the session: dropping the [`DependencyHost`] (the
//! session ended) drops every started dependency's `Service`, which SIGKILLs
//! its group and cgroup.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::dependency::{Dependencies, DependencyReading, Site, Window};
use crate::plan::DependencyPlan;

use crate::remote::service_hosts::service_wire::WireDependency;

/// The dependencies this session started, by name.
#[derive(Default)]
pub struct DependencyHost {
    deps: Dependencies,
    /// Each started dependency's plan as it runs here (`dir` the copy's).
    plans: BTreeMap<String, DependencyPlan>,
    /// Each dependency's log here, readable after its stop too.
    logs: BTreeMap<String, PathBuf>,
    window: Option<Window>,
}

impl DependencyHost {
    /// Starts the dependency `w` describes; `Err` says what, where and what to do.
    pub fn start(
        &mut self,
        w: &WireDependency,
        state: &std::path::Path,
        dir: PathBuf,
        closed: &dyn Fn() -> bool,
    ) -> Result<(), String> {
        let plan = moved_to(&w.plan, &dir);
        let logs = state.join("logs");
        std::fs::create_dir_all(&logs)
            .map_err(|e| format!("cannot create {}: {e}", logs.display()))?;
        let log = logs.join(format!("dependency-{}.log", plan.name));
        // A fresh log per start: the controlling side copies it from its first byte.
        let _ = std::fs::write(&log, b"");
        let site = Site {
            log: log.clone(),
            cancelled: closed,
        };
        self.logs.insert(plan.name.clone(), log);
        let started = self.deps.start_at(&site, &plan).map_err(|e| e.to_string());
        self.plans.insert(plan.name.clone(), plan);
        started
    }

    pub fn reset(&mut self, name: &str, closed: &dyn Fn() -> bool) -> Result<(), String> {
        let plan = started(&self.plans, name)?;
        self.deps
            .reset_unless(closed, plan)
            .map_err(|e| e.to_string())
    }

    pub fn check(&mut self, name: &str) -> Result<(), String> {
        let plan = started(&self.plans, name)?;
        self.deps.check(plan).map_err(|e| e.to_string())
    }

    /// Stops it; `Some(problem)` when the stop or the scratch removal went wrong.
    pub fn stop(&mut self, name: &str) -> Option<String> {
        match started(&self.plans, name) {
            Ok(plan) => self.deps.stop(plan),
            Err(e) => Some(e),
        }
    }

    /// Starts sampling the named dependencies that are up (their stats zeroed).
    pub fn open_window(&mut self, names: &[String], interval: Duration) {
        let plans = names.iter().filter_map(|n| self.plans.get(n));
        self.window = Some(self.deps.open_window_of(plans, interval));
    }

    /// Stops sampling; each one's samples and stats.
    pub fn close_window(&mut self) -> Vec<DependencyReading> {
        let Some(mut window) = self.window.take() else {
            return Vec::new();
        };
        self.deps.close_window(&mut window);
        window.readings()
    }

    /// The log of the dependency `name` here.
    pub fn log(&self, name: &str) -> Option<&std::path::Path> {
        self.logs.get(name).map(PathBuf::as_path)
    }
}

/// The plan of `name`, started in this session.
fn started<'p>(
    plans: &'p BTreeMap<String, DependencyPlan>,
    name: &str,
) -> Result<&'p DependencyPlan, String> {
    plans.get(name).ok_or_else(|| {
        format!("dependency `{name}` was not started in this session: `dependency_start` it first")
    })
}

/// `plan` with its folder moved to `dir` (the copy of its sources here):
/// its `dir`, and every mention of the old folder in its commands and
/// environment (a schema file under it, a script it runs).
fn moved_to(plan: &DependencyPlan, dir: &std::path::Path) -> DependencyPlan {
    let (from, to) = (plan.dir.display().to_string(), dir.display().to_string());
    let moved = |s: &String| s.replace(&from, &to);
    let all = |v: &Vec<String>| v.iter().map(moved).collect::<Vec<_>>();
    let mut out = plan.clone();
    out.dir = dir.to_path_buf();
    out.build = all(&plan.build);
    out.setup = all(&plan.setup);
    out.start = moved(&plan.start);
    out.seed = all(&plan.seed);
    out.env = (plan.env.iter())
        .map(|(k, v)| (k.clone(), moved(v)))
        .collect();
    if let Some(reset) = out.reset.as_mut() {
        reset.command = moved(&reset.command);
    }
    if let crate::plan::HealthCheck::Command(c) = &mut out.health.check {
        *c = moved(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moved_plan_points_into_the_copy_wherever_it_named_its_folder() {
        let text = "experiment: { name: moved }\n\
                    dependencies:\n  db:\n    dir: /src/deps\n    start: python3 /src/deps/db.py\n    \
                    build: [\"make -C /src/deps\"]\n    env: { DATA: /src/deps/data, OTHER: /elsewhere }\n    \
                    reset: { command: /src/deps/reset.sh }\n    \
                    health: { command: /src/deps/ready.sh }\n\
                    runtimes:\n  a: { dir: /src/a, start: ./a }\n\
                    workload: { path: /x }\nload: { connections: 1 }\nmeasure: { duration: 1s }\n";
        let loaded = crate::spec::from_text(text.into(), std::path::Path::new("/spec/moved.yaml"))
            .unwrap_or_else(|e| panic!("{e}"));
        let plan = crate::plan::build(&loaded, &crate::plan::PlanOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let dep = &plan.dependencies[0];
        let moved = moved_to(
            dep,
            std::path::Path::new("/home/b/.cache/runner/src/db-1234"),
        );
        let to = "/home/b/.cache/runner/src/db-1234";
        assert_eq!(moved.dir, std::path::Path::new(to));
        assert_eq!(moved.start, format!("python3 {to}/db.py"));
        assert_eq!(moved.build, vec![format!("make -C {to}")]);
        assert_eq!(moved.reset.unwrap().command, format!("{to}/reset.sh"));
        assert_eq!(moved.env["DATA"], format!("{to}/data"));
        assert_eq!(moved.env["OTHER"], "/elsewhere");
        assert_eq!(
            moved.health.check,
            crate::plan::HealthCheck::Command(format!("{to}/ready.sh"))
        );
    }
}
