//! exec's side of `profile:` (the collectors live in [`crate::profile`]):
//! the GC-log option of each JVM start, the GC pauses of every cell of a
//! profiled runtime in its measurements.csv row, and the collectors of the
//! profiled repeat around its measured load, their artifacts in profiles.csv.
use std::collections::BTreeMap;

use crate::exec::measure::context::CellContext;
use crate::load::LoadReport;
use crate::plan::{Cell, RuntimePlan};
use crate::profile::window::{GcWatch, gc_log_path};
use crate::profile::{Target, Window};
use crate::results::rows::profiles::{
    ArtifactKind, ArtifactState, Collector, PROFILES_FILE, ProfileRow,
};
use crate::results::{CsvAppender, MeasurementRow, ResultsError};
use crate::service::Service;

/// Each GC log file is capped at this many MiB (two rotated files per start).
const GC_LOG_FILE_MIB: u64 = 8;

/// The environment one start of `rt` needs for its collectors: the GC
/// log through `JDK_JAVA_OPTIONS` (read by the `java` launcher, so the
/// start command stays as written), appended to any the runtime sets.
pub fn start_env(
    ctx: &CellContext,
    rt: &RuntimePlan,
    start_index: u32,
) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    if rt.profile.as_ref().is_some_and(|p| p.has(Collector::GcLog)) {
        let path = gc_log_path(ctx.run.path(), &rt.name, start_index);
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let option = crate::profile::gc_log::xlog_option(&path, GC_LOG_FILE_MIB);
        let joined = match rt.env.get("JDK_JAVA_OPTIONS") {
            Some(own) => format!("{own} {option}"),
            None => option,
        };
        env.insert("JDK_JAVA_OPTIONS".into(), joined);
    }
    env
}

/// What watches one cell's window.
pub struct CellProfiling {
    target: Target,
    gc: Option<GcWatch>,
    window: Option<Window>,
}

/// Opens the watches of `cell` just before its measured load (`None` when
/// its runtime is not profiled).
pub fn open(ctx: &CellContext, service: &Service, cell: &Cell) -> Option<CellProfiling> {
    let rt = ctx.plan.runtimes.iter().find(|r| r.name == cell.runtime)?;
    let plan = rt.profile.clone()?;
    let target = Target {
        runtime: rt.name.clone(),
        cell_id: cell.id.clone(),
        sid: service.sid(),
        plan,
        // The cell's own JDK, where it varies per cell.
        java_home: rt.for_cell(cell).java.as_ref().and_then(|j| j.home.clone()),
        run_root: ctx.run.path().to_path_buf(),
        length: match cell.measure {
            crate::plan::Measure::Duration(d) => d,
            crate::plan::Measure::Requests(_) => std::time::Duration::from_secs(5),
        },
    };
    let gc = GcWatch::open(&target);
    let window = cell.profiled.then(|| Window::open(&target));
    Some(CellProfiling { target, gc, window })
}

/// After the measured load: the GC figures into `row`, the profiled
/// window's artifacts into profiles.csv (a collector's failure is a row
/// there, never the cell's).
pub fn close(
    ctx: &CellContext,
    profiling: Option<CellProfiling>,
    report: &LoadReport,
    row: &mut MeasurementRow,
) -> Result<(), ResultsError> {
    let Some(p) = profiling else {
        return Ok(());
    };
    // The GC pauses first: stopping the collectors (a JFR dump, say) can
    // itself cause a pause that is no part of the window.
    let mut rows: Vec<ProfileRow> = Vec::new();
    if let Some(gc) = p.gc {
        let p99: Vec<f64> = report
            .timeline
            .iter()
            .map(|s| s.p99_us as f64 / 1000.0)
            .collect();
        match gc.close(&p.target, &p99) {
            Ok(f) => {
                row.gc_pauses = Some(f.count);
                row.gc_pause_total_ms = Some(f.total_ms);
                row.gc_pause_max_ms = Some(f.max_ms);
                row.gc_pause_p99_ms = Some(f.p99_ms);
                row.gc_slow_seconds_paused = f.slow_seconds_paused;
                row.gc_seconds_paused = f.seconds_paused;
            }
            Err(e) => rows.push(ProfileRow {
                cell_id: p.target.cell_id.clone(),
                runtime: p.target.runtime.clone(),
                collector: if p.target.plan.has(Collector::GoGc) {
                    Collector::GoGc
                } else {
                    Collector::GcLog
                },
                kind: ArtifactKind::Raw,
                state: ArtifactState::Failed,
                file: String::new(),
                bytes: 0,
                note: format!("GC pauses not read: {e}"),
            }),
        }
    }
    if let Some(w) = p.window {
        rows.splice(0..0, w.close(&p.target));
    }
    if !rows.is_empty() {
        let mut out = CsvAppender::open(&ctx.run.file(PROFILES_FILE))?;
        for r in &rows {
            out.append(r)?;
        }
    }
    Ok(())
}
