//! One profiled window: its collectors started before the measured load and
//! stopped after it, each artifact written under `profiles/<cell>/` and
//! described by a profiles.csv row; and, for every cell of a profiled
//! runtime, the GC pauses of its window ([`GcWatch`]).
use std::path::{Path, PathBuf};
use std::thread::{self, JoinHandle};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::error::ProfileError;
use super::folded::{Colours, Folded, flame_graph};
use super::jvm::{self, AsyncEvent};
use super::pauses::{PauseFacts, summarise};
use super::{gc_log, go, perf, pprof};
use crate::plan::contract::profile_plan::ProfilePlan;
use crate::results::cell_file_stem;
use crate::results::rows::profiles::{
    ArtifactKind, ArtifactState, Collector, PROFILES_DIR, ProfileRow,
};

/// Folder of the GC logs, one per start: `profiles/gc/<runtime>-start<N>.log`.
pub const GC_DIR: &str = "gc";

/// The GC log of one start of `runtime`.
pub fn gc_log_path(run_root: &Path, runtime: &str, start_index: u32) -> PathBuf {
    run_root
        .join(PROFILES_DIR)
        .join(GC_DIR)
        .join(format!("{runtime}-start{start_index}.log"))
}

/// What a window profiles.
#[derive(Debug, Clone)]
pub struct Target {
    pub runtime: String,
    pub cell_id: String,
    /// The service's session (its process group leader's pid).
    pub sid: i32,
    pub plan: ProfilePlan,
    pub java_home: Option<PathBuf>,
    pub run_root: PathBuf,
    /// The measured window's planned length.
    pub length: Duration,
}

/// Unix time in ms.
fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// The GC pauses of one cell's window, JVM (GC log) or Go (runtime statistics).
pub struct GcWatch {
    started_ms: f64,
    go_start: Option<Result<u64, ProfileError>>,
}

impl GcWatch {
    /// `None` when `plan` collects no GC pauses.
    pub fn open(target: &Target) -> Option<GcWatch> {
        let go_start = match (target.plan.has(Collector::GoGc), target.plan.pprof_port) {
            (true, Some(port)) => Some(go::gc_pauses(&target.runtime, port).map(|(n, _)| n)),
            _ => None,
        };
        (go_start.is_some() || target.plan.has(Collector::GcLog)).then(|| GcWatch {
            started_ms: now_ms(),
            go_start,
        })
    }

    /// The pauses since `open`, with the window's per-second p99s for the
    /// coincidence of its slowest seconds with pauses.
    pub fn close(self, target: &Target, second_p99_ms: &[f64]) -> Result<PauseFacts, ProfileError> {
        let end = now_ms();
        let (pauses, counted) = match (self.go_start, target.plan.pprof_port) {
            (Some(start), Some(port)) => {
                let start = start?;
                let (n, pauses) = go::gc_pauses(&target.runtime, port)?;
                (pauses, Some(n.saturating_sub(start)))
            }
            _ => (jvm_pauses(target)?, None),
        };
        Ok(summarise(
            &pauses,
            self.started_ms,
            end,
            second_p99_ms,
            counted,
        ))
    }
}

/// Every pause in the runtime's GC logs (all its starts, rotated files
/// included); the window's times pick the ones that matter.
fn jvm_pauses(target: &Target) -> Result<Vec<super::Pause>, ProfileError> {
    let dir = target.run_root.join(PROFILES_DIR).join(GC_DIR);
    let prefix = format!("{}-start", target.runtime);
    let mut pauses = Vec::new();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(pauses),
        Err(e) => return Err(ProfileError::io(&dir)(e)),
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            pauses.extend(gc_log::read_pauses(&entry.path())?);
        }
    }
    Ok(pauses)
}

/// The collectors running over one profiled window.
pub struct Window {
    rows: Vec<ProfileRow>,
    jvm: Option<(PathBuf, i32)>,
    /// async-profiler's event running now, once the switch (if any) is done.
    async_event: Option<AsyncEvent>,
    /// CPU then allocations: the thread switching halfway through the window.
    async_switch: Option<JoinHandle<Vec<ProfileRow>>>,
    threads: Vec<JoinHandle<Vec<ProfileRow>>>,
    jfr_file: Option<PathBuf>,
}

struct Rows<'a> {
    target: &'a Target,
}

impl Rows<'_> {
    fn row(
        &self,
        collector: Collector,
        kind: ArtifactKind,
        file: Option<&Path>,
        note: String,
    ) -> ProfileRow {
        let (file_text, bytes) = match file {
            Some(f) => (
                f.strip_prefix(&self.target.run_root)
                    .unwrap_or(f)
                    .display()
                    .to_string(),
                std::fs::metadata(f).map(|m| m.len()).unwrap_or(0),
            ),
            None => (String::new(), 0),
        };
        ProfileRow {
            cell_id: self.target.cell_id.clone(),
            runtime: self.target.runtime.clone(),
            collector,
            kind,
            state: ArtifactState::Ok,
            file: file_text,
            bytes,
            note,
        }
    }

    fn failed(&self, collector: Collector, state: ArtifactState, why: String) -> ProfileRow {
        ProfileRow {
            state,
            ..self.row(collector, ArtifactKind::Raw, None, why)
        }
    }
}

/// The folder of one cell's artifacts.
fn cell_dir(target: &Target) -> PathBuf {
    target
        .run_root
        .join(PROFILES_DIR)
        .join(cell_file_stem(&target.cell_id))
}

fn artifact(target: &Target, collector: Collector, ext: &str) -> PathBuf {
    cell_dir(target).join(format!("{}.{ext}", collector.as_str()))
}

/// Folds `folded` into `<collector>.folded` and `<collector>.svg`: their rows.
fn draw(
    target: &Target,
    collector: Collector,
    folded: Folded,
    what: &str,
    count_name: &str,
    colours: Colours,
) -> Vec<ProfileRow> {
    let rows = Rows { target };
    let folded_path = artifact(target, collector, "folded");
    let svg = artifact(target, collector, "svg");
    let total = folded.total();
    if folded.stacks.is_empty() {
        let why = format!(
            "{what}: nothing sampled in the window (too short, or the service idle); profile a longer window"
        );
        return vec![rows.failed(collector, ArtifactState::Failed, why)];
    }
    let title = format!("{what}: {}", target.cell_id);
    let mut out = Vec::new();
    match folded.write(&folded_path) {
        Ok(_) => out.push(rows.row(
            collector,
            ArtifactKind::Folded,
            Some(&folded_path),
            format!("{} stacks, {total} {count_name}", folded.stacks.len()),
        )),
        Err(e) => out.push(rows.failed(collector, ArtifactState::Failed, e.to_string())),
    }
    match flame_graph(&folded, &title, count_name, colours, &svg) {
        Ok(_) => out.push(rows.row(
            collector,
            ArtifactKind::FlameGraph,
            Some(&svg),
            format!("{total} {count_name}"),
        )),
        Err(e) => out.push(rows.failed(collector, ArtifactState::Failed, e.to_string())),
    }
    out
}

impl Window {
    /// Starts every window collector of `target.plan`; what cannot start
    /// is recorded as a row and the rest go on.
    pub fn open(target: &Target) -> Window {
        let plan = &target.plan;
        let rows = Rows { target };
        let mut window = Window {
            rows: Vec::new(),
            jvm: None,
            async_event: None,
            async_switch: None,
            threads: Vec::new(),
            jfr_file: None,
        };
        if let Err(e) = std::fs::create_dir_all(cell_dir(target)) {
            let why = ProfileError::io(cell_dir(target))(e).to_string();
            window.rows.extend(
                plan.collect
                    .iter()
                    .filter(|c| c.window_only())
                    .map(|c| rows.failed(*c, ArtifactState::Failed, why.clone())),
            );
            return window;
        }
        let jvm_collectors = [Collector::Jfr, Collector::AsyncCpu, Collector::AsyncAlloc];
        if jvm_collectors.iter().any(|c| plan.has(*c)) {
            match jvm::find_jvm(&target.runtime, target.sid) {
                Ok(pid) => window.jvm = Some((jvm::jcmd_program(target.java_home.as_deref()), pid)),
                Err(e) => window.rows.extend(
                    jvm_collectors
                        .iter()
                        .filter(|c| plan.has(**c))
                        .map(|c| rows.failed(*c, ArtifactState::Failed, e.to_string())),
                ),
            }
        }
        if let Some((jcmd, pid)) = window.jvm.clone() {
            window.start_jvm(target, &jcmd, pid);
        }
        if let Some(port) = plan.pprof_port {
            let seconds = target.length.as_secs().max(1);
            if plan.has(Collector::PprofCpu) {
                let t = target.clone();
                window.threads.push(thread::spawn(move || {
                    pprof_window(
                        &t,
                        port,
                        Collector::PprofCpu,
                        &format!("/debug/pprof/profile?seconds={seconds}"),
                        seconds,
                        "cpu",
                        "CPU",
                        "nanoseconds",
                    )
                }));
            }
            if plan.has(Collector::PprofHeap) {
                let t = target.clone();
                window.threads.push(thread::spawn(move || {
                    pprof_window(
                        &t,
                        port,
                        Collector::PprofHeap,
                        &format!("/debug/pprof/heap?seconds={seconds}"),
                        seconds,
                        "alloc_space",
                        "Allocated bytes",
                        "bytes",
                    )
                }));
            }
        }
        if plan.has(Collector::Perf) {
            match perf::unavailable() {
                Some(why) => {
                    window
                        .rows
                        .push(rows.failed(Collector::Perf, ArtifactState::Unavailable, why))
                }
                None => {
                    let t = target.clone();
                    window.threads.push(thread::spawn(move || perf_window(&t)));
                }
            }
        }
        window
    }

    fn start_jvm(&mut self, target: &Target, jcmd: &Path, pid: i32) {
        let plan = &target.plan;
        let rows = Rows { target };
        if plan.has(Collector::Jfr) {
            let file = artifact(target, Collector::Jfr, "jfr");
            match jvm::jfr_start(jcmd, &target.runtime, pid, &file) {
                Ok(()) => self.jfr_file = Some(file),
                Err(e) => self.rows.push(rows.failed(
                    Collector::Jfr,
                    ArtifactState::Failed,
                    e.to_string(),
                )),
            }
        }
        let (cpu, alloc) = (
            plan.has(Collector::AsyncCpu),
            plan.has(Collector::AsyncAlloc),
        );
        let Some(lib) = plan.async_profiler.clone().filter(|_| cpu || alloc) else {
            return;
        };
        let first = if cpu {
            AsyncEvent::Cpu
        } else {
            AsyncEvent::Alloc
        };
        if let Err(e) = jvm::async_start(jcmd, &target.runtime, pid, &lib, first) {
            let why = format!("{e} (library {})", lib.display());
            self.rows.extend(
                [Collector::AsyncCpu, Collector::AsyncAlloc]
                    .iter()
                    .filter(|c| plan.has(**c))
                    .map(|c| rows.failed(*c, ArtifactState::Failed, why.clone())),
            );
            return;
        }
        self.async_event = Some(first);
        if cpu && alloc {
            // One event at a time: CPU for the first half, allocations for the second.
            let (t, jcmd) = (target.clone(), jcmd.to_path_buf());
            self.async_event = Some(AsyncEvent::Alloc);
            self.async_switch = Some(thread::spawn(move || {
                thread::sleep(t.length / 2);
                let rows = stop_async(&t, &jcmd, pid, &lib, AsyncEvent::Cpu);
                if let Err(e) = jvm::async_start(&jcmd, &t.runtime, pid, &lib, AsyncEvent::Alloc) {
                    let mut rows = rows;
                    rows.push(Rows { target: &t }.failed(
                        Collector::AsyncAlloc,
                        ArtifactState::Failed,
                        e.to_string(),
                    ));
                    return rows;
                }
                rows
            }));
        }
    }

    /// Stops every collector and returns the rows of what each wrote.
    pub fn close(mut self, target: &Target) -> Vec<ProfileRow> {
        let rows = Rows { target };
        if let (Some((jcmd, pid)), Some(file)) = (self.jvm.clone(), self.jfr_file.take()) {
            match jvm::jfr_stop(&jcmd, &target.runtime, pid) {
                Ok(()) => self.rows.push(rows.row(
                    Collector::Jfr,
                    ArtifactKind::Raw,
                    Some(&file),
                    "JFR recording, `profile` settings".into(),
                )),
                Err(e) => self.rows.push(rows.failed(
                    Collector::Jfr,
                    ArtifactState::Failed,
                    e.to_string(),
                )),
            }
        }
        let switched_ok = match self.async_switch.take() {
            Some(handle) => {
                let switch_rows = handle.join().unwrap_or_default();
                let alloc_failed = switch_rows
                    .iter()
                    .any(|r| r.collector == Collector::AsyncAlloc);
                self.rows.extend(switch_rows);
                !alloc_failed
            }
            None => true,
        };
        if let (Some((jcmd, pid)), Some(event), Some(lib), true) = (
            self.jvm.clone(),
            self.async_event,
            target.plan.async_profiler.clone(),
            switched_ok,
        ) {
            self.rows
                .extend(stop_async(target, &jcmd, pid, &lib, event));
        }
        for handle in self.threads {
            self.rows.extend(handle.join().unwrap_or_default());
        }
        self.rows
    }
}

fn stop_async(
    target: &Target,
    jcmd: &Path,
    pid: i32,
    lib: &Path,
    event: AsyncEvent,
) -> Vec<ProfileRow> {
    let (collector, what, count_name) = match event {
        AsyncEvent::Cpu => (Collector::AsyncCpu, "CPU (async-profiler)", "samples"),
        AsyncEvent::Alloc => (
            Collector::AsyncAlloc,
            "Allocations (async-profiler)",
            "bytes",
        ),
    };
    let raw = artifact(target, collector, "collapsed");
    if let Err(e) = jvm::async_stop(jcmd, &target.runtime, pid, lib, event, &raw) {
        return vec![Rows { target }.failed(collector, ArtifactState::Failed, e.to_string())];
    }
    let text = match std::fs::read_to_string(&raw) {
        Ok(t) => t,
        Err(e) => {
            return vec![Rows { target }.failed(
                collector,
                ArtifactState::Failed,
                ProfileError::io(&raw)(e).to_string(),
            )];
        }
    };
    let _ = std::fs::remove_file(&raw); // the merged .folded below holds the same stacks
    draw(
        target,
        collector,
        Folded::parse(text.lines()),
        what,
        count_name,
        Colours::Java,
    )
}

#[allow(clippy::too_many_arguments)]
fn pprof_window(
    target: &Target,
    port: u16,
    collector: Collector,
    path: &str,
    seconds: u64,
    value: &str,
    what: &str,
    count_name: &str,
) -> Vec<ProfileRow> {
    let rows = Rows { target };
    let raw = artifact(target, collector, "pb.gz");
    let timeout = Duration::from_secs(seconds + 15);
    let body = match go::get(&target.runtime, port, path, timeout) {
        Ok(b) => b,
        Err(e) => return vec![rows.failed(collector, ArtifactState::Failed, e.to_string())],
    };
    if let Err(e) = super::folded::check_size(&raw, body.len() as u64)
        .and_then(|_| std::fs::write(&raw, &body).map_err(ProfileError::io(&raw)))
    {
        return vec![rows.failed(collector, ArtifactState::Failed, e.to_string())];
    }
    let mut out = vec![rows.row(
        collector,
        ArtifactKind::Raw,
        Some(&raw),
        format!("pprof, {seconds} s; `go tool pprof` reads it"),
    )];
    let folded = pprof::decode(&body, &raw).and_then(|p| pprof::folded(&p, value, &raw));
    match folded {
        Ok(lines) => out.extend(draw(
            target,
            collector,
            Folded::parse(lines.iter().map(String::as_str)),
            what,
            count_name,
            Colours::Hot,
        )),
        Err(e) => out.push(rows.failed(collector, ArtifactState::Failed, e.to_string())),
    }
    out
}

fn perf_window(target: &Target) -> Vec<ProfileRow> {
    let rows = Rows { target };
    let data = artifact(target, Collector::Perf, "data");
    let pids = crate::sample::procfs::session_pids(target.sid);
    let jvm = jvm::find_jvm(&target.runtime, target.sid).ok();
    let folded = perf::record(&target.runtime, &pids, target.length, &data).and_then(|_| {
        // The JVM's JIT frames get names from /tmp/perf-<pid>.map, written
        // by `Compiler.perfmap` for `perf script` and removed after it.
        let map = jvm.and_then(|pid| {
            let path = PathBuf::from(format!("/tmp/perf-{pid}.map"));
            let ours = !path.exists();
            let jcmd = jvm::jcmd_program(target.java_home.as_deref());
            let _ = jvm::jcmd(&jcmd, &target.runtime, pid, &["Compiler.perfmap"]);
            ours.then_some(path)
        });
        let folded = perf::fold(&target.runtime, &data);
        if let Some(map) = map {
            let _ = std::fs::remove_file(map);
        }
        folded
    });
    match folded {
        Ok(f) => draw(
            target,
            Collector::Perf,
            f,
            "CPU (perf)",
            "ns on CPU",
            Colours::Hot,
        ),
        Err(e) => vec![rows.failed(Collector::Perf, ArtifactState::Failed, e.to_string())],
    }
}
