//! The [`Driver`] for a spec whose `hosts.service` is reached over SSH: the
//! runtimes' sources are copied there (by content hash), built there, and
//! their services started, health-checked, sampled and stopped there by
//! `runner remote` (the same build and service code as a local run, on the
//! far side) over one session kept for the whole run. The load runs here
//! or on the load hosts, aimed at the service host's address.
//!
//! The runtimes' dependencies run there too, started, reset, checked,
//! sampled and stopped by the far side with the local dependency code, so
//! the services reach them on that host's loopback.
//!
//! A runtime's training runs there too ([`crate::exec::ssh::remote_training`]), so the
//! trained artifact is made where it is used and checked before every
//! measured start there.
//!
//! What a remote service host does not do yet is refused before anything
//! starts ([`unsupported`]): profiles, `mode: search`, a `java:` JDK
//! resolved here, and training paths
//! outside the runtime's `dir` (only that folder is copied).
use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use crate::build::BuildOutcome;
use crate::exec::handle::FirstSuccess;
use crate::exec::measure::context::{CellContext, CellEnd};
use crate::exec::rules::verdict::one_line;
use crate::exec::site::driver::Driver;
use crate::exec::ssh::remote_cell::measure_remote_cell;
use crate::exec::ssh::remote_service::{RemoteService, SharedClient, append, stop_if_lost};
use crate::exec::ssh::remote_training::{check_there, far_path, train_there};
use crate::exec::start::cold_start::{ColdStart, cold_start};
use crate::exec::start::containment::Observed;
use crate::exec::start::dependencies::DependencyFiles;
use crate::exec::start::lifecycle::{start_measured, stop_measured};
use crate::exec::start::memory_phases::memory_phase;
use crate::exec::start::site::{Spawn, SpawnFailure, Spawned, StartSite, millis};
use crate::exec::start::started::{Running, StartFailure};
use crate::exec::start::training::training_row;
use crate::plan::contract::hosts::SshTarget;
use crate::plan::contract::memory::MemoryPlan;
use crate::plan::{Cell, DependencyPlan, LoadMode, Plan, RuntimePlan, TrainPlan};
use crate::preflight::Preflight;
use crate::remote::service_hosts::service_client::ServiceHostClient;
use crate::remote::service_hosts::service_wire::{
    ServiceAnswer, ServiceCall, WireBuild, WireDependency, WireStart, millis as ms,
};
use crate::results::{
    Environment, LifecycleRow, MemoryPhaseRow, ResultsError, StopOutcome, rfc3339_now,
};

/// Drives the runtimes on the service host.
pub struct RemoteHost {
    target: SshTarget,
    host: String,
    client: Option<SharedClient>,
    /// Each runtime's copied sources there.
    dirs: BTreeMap<String, String>,
    /// Each dependency's logs/dependency-<name>.log here, and how much of
    /// its log there has been copied.
    dependency_logs: BTreeMap<String, (std::path::PathBuf, u64)>,
    /// dependency-usage.csv and dependency-stats.csv.
    dependency_files: DependencyFiles,
    /// The run's interruption (a lost session stops the run), once known.
    interrupt: Option<crate::exec::interrupt::Interrupt>,
}

impl RemoteHost {
    /// `None` when the plan's service host is this machine.
    pub fn for_plan(plan: &Plan) -> Option<RemoteHost> {
        let target = plan.hosts.service.ssh()?.clone();
        Some(RemoteHost {
            host: plan.hosts.service.name.clone(),
            target,
            client: None,
            dirs: BTreeMap::new(),
            dependency_logs: BTreeMap::new(),
            dependency_files: DependencyFiles::default(),
            interrupt: None,
        })
    }

    /// The session, opened on first use.
    fn client(&mut self) -> Result<SharedClient, String> {
        if let Some(c) = &self.client {
            return Ok(c.clone());
        }
        let c = ServiceHostClient::open(&self.target).map_err(|e| e.to_string())?;
        let c = Arc::new(Mutex::new(c));
        self.client = Some(c.clone());
        Ok(c)
    }

    /// Starts `rt` there and returns the handle and its startup times.
    fn start_there(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        limits: &crate::cgroup::Limits,
    ) -> Result<Spawned<RemoteService>, String> {
        let (client, dir) = self.far_dir(ctx, rt)?;
        let addr = SocketAddr::new(service_address(ctx.plan)?, rt.port);
        let log = ctx.run.log(&rt.name);
        let mut c = client.lock().unwrap_or_else(|p| p.into_inner());
        let state_dir = c.state_dir();
        let started = c.start(WireStart {
            runtime: rt.name.clone(),
            dir,
            command: rt.start.clone(),
            env: rt.env.clone(),
            pass_env: rt.pass_env.clone(),
            port: rt.port,
            limit_cpus: limits.cpus,
            limit_memory_bytes: limits.memory_bytes,
            log_cap: rt.log_cap_bytes,
            health: rt.health.clone(),
            scratch: rt.scratch.clone(),
            tls: (ctx.tls.map(|c| c.files.clone()))
                .filter(|_| rt.scratch.as_ref().is_some_and(|s| s.tls)),
            state_dir,
        });
        drop(c);
        let started = started.map_err(|e| {
            stop_if_lost(ctx.interrupt, &e);
            e.to_string()
        })?;
        let ServiceAnswer::Started {
            pid,
            sid,
            cgroup,
            port_ms,
            startup_ms,
        } = started
        else {
            return Err(started.unexpected("a start"));
        };
        append(
            &log,
            &format!(
                "=== runner: {} started on the service host {} at {}: pid {pid}, session {sid}, cgroup {}\n",
                rt.name,
                self.host,
                rfc3339_now(),
                cgroup.as_deref().unwrap_or("none")
            ),
        );
        let mut service =
            RemoteService::new(client, &rt.name, addr, sid, log, ctx.interrupt.clone());
        service.fetch_log();
        Ok(Spawned {
            service,
            port_ms,
            startup_ms,
        })
    }

    /// The session and `rt`'s copied sources there (a runtime without build
    /// commands has them copied on first use).
    fn far_dir(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
    ) -> Result<(SharedClient, String), String> {
        let client = self.client()?;
        if let Some(dir) = self.dirs.get(&rt.name) {
            return Ok((client, dir.clone()));
        }
        let log = ctx.run.log(&format!("build-{}", rt.name));
        let c = client.lock().unwrap_or_else(|p| p.into_inner());
        let copied = self.copy_logged(&c, (&rt.name, &rt.name), &rt.dir, &log)?;
        drop(c);
        self.dirs.insert(rt.name.clone(), copied.clone());
        Ok((client, copied))
    }

    /// Copies the sources in `dir` there (as `key`: a runtime's name, or
    /// `dependency-<name>`) unless that content is there already, saying
    /// which in `log` about `what`; the folder there.
    fn copy_logged(
        &self,
        c: &ServiceHostClient,
        (key, what): (&str, &str),
        dir: &std::path::Path,
        log: &std::path::Path,
    ) -> Result<String, String> {
        let copied = c.copy_sources(key, dir).map_err(|e| e.to_string())?;
        append(
            log,
            &format!(
                "=== runner: sources of {what} ({} files of {}) {} {}:{}\n",
                copied.files,
                dir.display(),
                if copied.sent {
                    "copied to"
                } else {
                    "unchanged, already on"
                },
                self.host,
                copied.dir
            ),
        );
        Ok(copied.dir)
    }

    /// Stops the service there; the lifecycle row's stop columns.
    fn stop_there(
        &mut self,
        rt: &RuntimePlan,
        service: &mut RemoteService,
        row: &mut LifecycleRow,
    ) -> Option<String> {
        service.fetch_log();
        let stopped = service.client().stop(
            ServiceCall::Stop {
                signal: rt.stop.signal,
                signal_name: rt.stop.signal_name.clone(),
                grace_ms: ms(rt.stop.grace),
            },
            rt.stop.grace,
        );
        service.fetch_log();
        match stopped {
            Ok(ServiceAnswer::Stopped {
                kind,
                exit_status,
                log_dropped_bytes,
            }) => {
                row.stop = Some(kind.into());
                row.exit_status = exit_status;
                row.log_dropped_bytes = log_dropped_bytes;
                None
            }
            Ok(other) => {
                row.stop = Some(StopOutcome::Killed);
                row.exit_status = other.unexpected("a stop");
                Some(row.exit_status.clone())
            }
            Err(e) => {
                row.stop = Some(StopOutcome::Killed);
                row.exit_status = one_line(&e.to_string());
                // A lost session already stopped it there; the run stops
                // resumably, so the runtime is not skipped for it.
                let lost = matches!(
                    e,
                    crate::remote::RemoteError::ConnectionLost { .. }
                        | crate::remote::RemoteError::Timeout { .. }
                );
                (!lost).then(|| e.to_string())
            }
        }
    }
}

/// The address the load reaches the service host at.
fn service_address(plan: &Plan) -> Result<std::net::IpAddr, String> {
    plan.hosts.service.address.ok_or_else(|| {
        format!(
            "hosts.service ({}) has no IP address the load can reach it at; add `address: IP` \
             to it (or write `ssh: user@IP`)",
            plan.hosts.service.name
        )
    })
}

/// What this runner cannot do with a remote service host yet, one problem
/// each (they stop the run before anything starts, exit 2).
pub fn unsupported(plan: &Plan) -> Vec<String> {
    let host = &plan.hosts.service.name;
    let mut out = Vec::new();
    let refuse = |what: String, out: &mut Vec<String>| {
        out.push(format!(
            "{what} is not supported with a service host reached over SSH ({host}) by this runner \
             yet; remove it from the spec, or run the services here (`hosts.service: local`)"
        ))
    };
    if let Err(e) = service_address(plan) {
        out.push(e);
    }
    for rt in &plan.runtimes {
        // Only the runtime's dir is copied there: every training path must lie in it.
        let paths = rt
            .train
            .iter()
            .flat_map(|t| t.produces.iter().chain(&t.inputs));
        out.extend(paths.filter_map(|p| far_path(rt, ".", p).err()));
        if rt.profile.is_some() {
            refuse(format!("runtime {}: `profile`", rt.name), &mut out);
        }
        if rt.java.is_some() {
            refuse(
                format!(
                    "runtime {}: `java:` (a JDK found on this machine; put the JDK on the service \
                     host's PATH and leave `java:` out)",
                    rt.name
                ),
                &mut out,
            );
        }
    }
    if plan
        .cells
        .iter()
        .any(|c| matches!(c.load.mode, LoadMode::Search(_)))
    {
        refuse("`mode: search`".into(), &mut out);
    }
    out
}

/// A service host as the start steps see it: a start is a call on the
/// session there, which waits for health itself; the times come back from
/// there, the first answer is timed from here as the load sees it.
impl StartSite for RemoteHost {
    type Service = RemoteService;

    fn check_provenance(&mut self, ctx: &CellContext, rt: &RuntimePlan) -> Option<String> {
        // A far folder that cannot be had fails the start just after.
        rt.train.as_ref()?;
        let (client, dir) = self.far_dir(ctx, rt).ok()?;
        check_there(ctx, &client, &dir, rt)
    }

    fn spawn_ready(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        how: Spawn,
        _: &mut LifecycleRow,
    ) -> Result<Spawned<RemoteService>, SpawnFailure> {
        // (The profiler's environment is refused there: `unsupported`.)
        let limits = match how {
            Spawn::Measured { cell, .. } => cell.limits.clone(),
            Spawn::Bare => Default::default(),
        };
        // The far side's reasons arrive as text: a wrong port there is
        // found at the measured start, one health timeout later than here.
        self.start_there(ctx, rt, &limits)
            .map_err(SpawnFailure::from)
    }

    fn first_request_ms(&self, _: &RemoteService, startup_ms: f64, first: &FirstSuccess) -> f64 {
        millis(first.answered - first.first_try) + startup_ms
    }

    fn rss_bytes(&mut self, service: &mut RemoteService) -> Option<u64> {
        service.rss_bytes()
    }

    fn observe(&self, _: &RemoteService, _: &RuntimePlan) -> Option<Observed> {
        None
    }

    fn stop(
        &mut self,
        rt: &RuntimePlan,
        mut service: RemoteService,
        row: &mut LifecycleRow,
    ) -> Option<String> {
        self.stop_there(rt, &mut service, row)
    }
}

impl Driver for RemoteHost {
    type Service = RemoteService;

    fn preflight(&self, plan: &Plan, _runtimes: &BTreeSet<String>) -> Preflight {
        // The toolchains and ports are the service host's: its build and
        // start say what is missing there. Here: the results folder, CPUs.
        let mut checked = crate::preflight::preflight(plan, &BTreeSet::new());
        for rt in &plan.runtimes {
            if !rt.dir.is_dir() {
                checked.problems.push(format!(
                    "runtime {}: directory {} does not exist; fix `dir` in the spec",
                    rt.name,
                    rt.dir.display()
                ));
            }
        }
        checked.problems.extend(unsupported(plan));
        checked
    }

    fn environment(&self, plan: &Plan) -> Environment {
        let mut env = crate::exec::site::processes::Processes::default().environment(plan);
        // The `version:` commands name what runs on the service host; run
        // here they would name this host's. Not recorded until they are
        // asked there (docs/spec.md says so).
        env.versions.clear();
        env
    }

    fn build(&mut self, ctx: &CellContext, rt: &RuntimePlan) -> Result<BuildOutcome, String> {
        let client = self.client()?;
        let log = ctx.run.log(&format!("build-{}", rt.name));
        let mut c = client.lock().unwrap_or_else(|p| p.into_inner());
        let copied_dir = self.copy_logged(&c, (&rt.name, &rt.name), &rt.dir, &log)?;
        let artifact = rt
            .artifact
            .as_ref()
            .and_then(|a| a.strip_prefix(&rt.dir).ok())
            .map(|a| a.display().to_string());
        let state_dir = c.state_dir();
        let built = c.build(
            WireBuild {
                runtime: rt.name.clone(),
                dir: copied_dir.clone(),
                commands: rt.build.clone(),
                env: rt.env.clone(),
                pass_env: rt.pass_env.clone(),
                artifact,
                state_dir,
            },
            &mut |text| append(&log, text),
        );
        drop(c);
        let built = built.map_err(|e| {
            stop_if_lost(ctx.interrupt, &e);
            e.to_string()
        })?;
        self.dirs.insert(rt.name.clone(), copied_dir);
        match built {
            ServiceAnswer::Built {
                cached,
                seconds,
                input_hash,
                artifact_bytes,
            } => Ok(BuildOutcome {
                cached,
                seconds,
                artifact_bytes,
                input_hash,
                // What ships is measured on the host that builds; only
                // the artifact is sized there.
                deployable_bytes: artifact_bytes,
            }),
            other => Err(other.unexpected("a build")),
        }
    }

    fn check_built(&self, _: &CellContext, _: &RuntimePlan, _: bool) -> Result<(), String> {
        // The far side checked the artifact after its build; a missing start
        // program shows in the start's error, quoting the log.
        Ok(())
    }

    fn train(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        tp: &TrainPlan,
    ) -> (Result<(), String>, LifecycleRow) {
        match self.far_dir(ctx, rt) {
            Ok((client, dir)) => train_there(ctx, &client, (&self.host, &dir), rt, tp),
            Err(e) => (Err(e), training_row(rt)),
        }
    }

    fn cold_start(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        index: u32,
        first_cell: &Cell,
    ) -> ColdStart {
        cold_start(self, ctx, rt, index, first_cell)
    }

    fn memory_phase(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        index: u32,
        first_cell: &Cell,
        memory: &MemoryPlan,
    ) -> MemoryPhaseRow {
        memory_phase(self, ctx, rt, index, first_cell, memory)
    }

    fn start(
        &mut self,
        ctx: &CellContext,
        rt: &RuntimePlan,
        start_index: u32,
        first_cell: &Cell,
    ) -> Result<Running<RemoteService>, Box<StartFailure>> {
        start_measured(self, ctx, rt, start_index, first_cell)
    }

    fn measure(
        &mut self,
        ctx: &CellContext,
        service: &mut RemoteService,
        cell: &Cell,
    ) -> Result<CellEnd, ResultsError> {
        let end = measure_remote_cell(ctx, service, cell)?;
        let readings = std::mem::take(&mut service.readings);
        if let CellEnd::Recorded(row) | CellEnd::ServiceDied(row) = &end {
            self.dependency_files.write(ctx, readings, row)?;
        }
        Ok(end)
    }

    fn stop(
        &mut self,
        rt: &RuntimePlan,
        running: Running<RemoteService>,
    ) -> (LifecycleRow, Option<String>) {
        stop_measured(self, rt, running)
    }

    fn start_dependency(&mut self, ctx: &CellContext, dep: &DependencyPlan) -> Result<(), String> {
        self.interrupt = Some(ctx.interrupt.clone());
        let client = self.client()?;
        let log = ctx.run.log(&format!("dependency-{}", dep.name));
        let mut c = client.lock().unwrap_or_else(|p| p.into_inner());
        let what = format!("dependency {}", dep.name);
        let copied = self.copy_logged(
            &c,
            (&format!("dependency-{}", dep.name), &what),
            &dep.dir,
            &log,
        )?;
        append(
            &log,
            &format!("=== runner: {what} started there at {}\n", rfc3339_now()),
        );
        let call = ServiceCall::DependencyStart(Box::new(WireDependency {
            plan: dep.clone(),
            dir: copied,
            state_dir: c.state_dir(),
        }));
        // Its builds, setup and seed commands, and its readiness.
        let bound = DEPENDENCY_COMMANDS + dep.health.timeout;
        let started = c.long(call, bound, "while it started a dependency");
        drop(c);
        self.dependency_logs.insert(dep.name.clone(), (log, 0));
        self.fetch_dependency_log(&dep.name);
        self.dependency_outcome(ctx.interrupt, started)
    }

    fn reset_dependency(&mut self, ctx: &CellContext, dep: &DependencyPlan) -> Result<(), String> {
        let call = ServiceCall::DependencyReset {
            name: dep.name.clone(),
        };
        let bound = Some(DEPENDENCY_COMMANDS);
        let reset = self.dependency_call(&dep.name, call, bound, "while it reset a dependency")?;
        self.dependency_outcome(ctx.interrupt, reset)
    }

    fn check_dependency(&mut self, dep: &DependencyPlan) -> Result<(), String> {
        let call = ServiceCall::DependencyCheck {
            name: dep.name.clone(),
        };
        let checked =
            self.dependency_call(&dep.name, call, None, "while it checked a dependency")?;
        match (&self.interrupt, checked) {
            (Some(interrupt), checked) => self.dependency_outcome(&interrupt.clone(), checked),
            (None, checked) => checked.map(drop).map_err(|e| e.to_string()),
        }
    }

    fn stop_dependency(&mut self, dep: &DependencyPlan) -> Option<String> {
        let call = ServiceCall::DependencyStop {
            name: dep.name.clone(),
        };
        let bound = Some(dep.stop.grace);
        match self.dependency_call(&dep.name, call, bound, "while it stopped a dependency") {
            Ok(Ok(ServiceAnswer::Dependency { problem })) => problem,
            Ok(Ok(other)) => Some(other.unexpected("a dependency's stop")),
            Ok(Err(e)) => Some(e.to_string()),
            Err(e) => Some(e),
        }
    }
}

/// Longest a dependency's own commands (build, setup, seed, reset) may take
/// on the service host before this side stops waiting.
const DEPENDENCY_COMMANDS: std::time::Duration = std::time::Duration::from_secs(600);

impl RemoteHost {
    /// A dependency call's answer: `Ok` when it went through; a lost
    /// session stops the run (resumably), a refusal says why.
    fn dependency_outcome(
        &self,
        interrupt: &crate::exec::interrupt::Interrupt,
        answer: Result<ServiceAnswer, crate::remote::RemoteError>,
    ) -> Result<(), String> {
        match answer {
            Ok(ServiceAnswer::Dependency { .. }) => Ok(()),
            Ok(other) => Err(other.unexpected("a dependency call")),
            Err(e) => {
                stop_if_lost(interrupt, &e);
                Err(format!("on the service host {}: {e}", self.host))
            }
        }
    }

    /// One call about the dependency `name` (`bound`: a long one, else
    /// short), its log copied back after it; `Err`: no session.
    fn dependency_call(
        &mut self,
        name: &str,
        call: ServiceCall,
        bound: Option<std::time::Duration>,
        during: &str,
    ) -> Result<Result<ServiceAnswer, crate::remote::RemoteError>, String> {
        let client = self.client()?;
        let answer = {
            let mut c = client.lock().unwrap_or_else(|p| p.into_inner());
            match bound {
                Some(bound) => c.long(call, bound, during),
                None => c.short(call, during),
            }
        };
        self.fetch_dependency_log(name);
        Ok(answer)
    }

    /// Appends what the dependency's log there has gained to the run's
    /// logs/dependency-<name>.log.
    fn fetch_dependency_log(&mut self, name: &str) {
        let Some(client) = self.client.clone() else {
            return;
        };
        let Some((log, next)) = self.dependency_logs.get_mut(name) else {
            return;
        };
        let mut c = client.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let call = ServiceCall::LogFrom {
                from: *next,
                dependency: Some(name.to_owned()),
            };
            let Ok(ServiceAnswer::Log { text, next: after }) =
                c.short(call, "while it sent a dependency's log")
            else {
                return;
            };
            if text.is_empty() {
                return;
            }
            append(log, &text);
            *next = after;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::PlanOptions;

    fn plan(runtime_extra: &str, warmup_cell: &str) -> Plan {
        let dir = std::env::temp_dir();
        let text = format!(
            "experiment: {{ name: remote-svc }}\n\
             runtimes:\n  a: {{ dir: ., start: ./a{runtime_extra} }}\n\
             workload: {{ path: /x }}\n\
             load: {{ connections: 2 }}\n\
             warmup: {{ service: 0s, cell: {warmup_cell} }}\n\
             measure: {{ duration: 1s }}\n\
             hosts:\n  service: {{ ssh: bench@10.213.0.20 }}\n"
        );
        let loaded = crate::spec::from_text(text, &dir.join("remote-svc.yaml"))
            .unwrap_or_else(|e| panic!("test spec: {e}"));
        crate::plan::build(&loaded, &PlanOptions::default())
            .unwrap_or_else(|e| panic!("test plan: {e}"))
    }

    #[test]
    fn a_plain_plan_runs_on_the_service_host_at_its_ssh_address() {
        let p = plan("", "1s");
        assert!(unsupported(&p).is_empty(), "{:?}", unsupported(&p));
        assert_eq!(
            service_address(&p).unwrap(),
            "10.213.0.20".parse::<std::net::IpAddr>().unwrap()
        );
        assert!(RemoteHost::for_plan(&p).is_some());
    }

    #[test]
    fn a_training_runs_there_unless_a_path_of_it_lies_outside_the_copied_dir() {
        let inside = plan(", train: { produces: [build/app.aot] }", "1s");
        assert!(
            unsupported(&inside).is_empty(),
            "{:?}",
            unsupported(&inside)
        );
        let outside = plan(
            ", train: { produces: [build/app.aot, ../elsewhere/app.aot], inputs: [/opt/app.jar] }",
            "1s",
        );
        let problems = unsupported(&outside);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems[0].contains("elsewhere/app.aot is outside its dir"),
            "{problems:?}"
        );
        assert!(
            problems[1].contains("/opt/app.jar is outside its dir"),
            "{problems:?}"
        );
        assert!(
            problems[1].contains("relative to the runtime's dir"),
            "{problems:?}"
        );
    }

    #[test]
    fn training_paths_map_into_the_copy_there_on_path_boundaries() {
        let p = plan("", "1s");
        let rt = &p.runtimes[0];
        let far = ".runner/src/a-3f2a";
        let map = |rel: &str| far_path(rt, far, &rt.dir.join(rel));
        assert_eq!(
            map("build/app.aot").unwrap(),
            ".runner/src/a-3f2a/build/app.aot"
        );
        assert_eq!(map("").unwrap(), far);
        // A sibling folder whose name starts the same is not under the dir.
        let name = rt.dir.file_name().unwrap().to_string_lossy().into_owned();
        let sibling = rt.dir.with_file_name(format!("{name}-old")).join("app.aot");
        assert!(far_path(rt, far, &sibling).is_err());
    }

    #[test]
    fn what_the_service_host_cannot_do_is_refused_by_name() {
        let p = plan(", java: { version: \"25\" }", "auto");
        let problems = unsupported(&p);
        // An `auto` cell warmup runs there (remote_cell::auto_warmup).
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("runtime a: `java:`"), "{problems:?}");
        for p in &problems {
            assert!(p.contains("bench@10.213.0.20"), "names the host: {p}");
            assert!(p.contains("hosts.service: local"), "says what to do: {p}");
        }
    }
}
