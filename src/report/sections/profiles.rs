//! The report's view of profiling: the profiled repeats with links to their
//! artifacts (profiles.csv, files under profiles/), and the GC pauses of
//! every cell that has them beside its tail latency, with whether the
//! window's slowest seconds are the paused ones.
use serde::Serialize;

use crate::results::MeasurementRow;
use crate::results::read::run_data::RunData;
use crate::results::rows::profiles::{ArtifactKind, ArtifactState, ProfileRow};

/// How a cell's tail relates to its GC pauses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Coincidence {
    /// No pause in the window.
    NoPauses,
    /// The slowest seconds held a pause more often than seconds at large,
    /// and at least half of them did: the tail coincides with the pauses.
    Coincides,
    /// The slowest seconds held pauses no more often than the rest.
    Apart,
    /// Too few seconds to tell (no timeline).
    Unknown,
}

impl Coincidence {
    fn of(row: &MeasurementRow) -> Coincidence {
        match (
            row.gc_pauses,
            row.gc_slow_seconds_paused,
            row.gc_seconds_paused,
        ) {
            (Some(0), _, _) => Coincidence::NoPauses,
            (_, Some(slow), Some(all)) if slow >= 0.5 && slow > all => Coincidence::Coincides,
            (_, Some(_), Some(_)) => Coincidence::Apart,
            _ => Coincidence::Unknown,
        }
    }

    fn words(self) -> &'static str {
        match self {
            Coincidence::NoPauses => "no GC pause in the window",
            Coincidence::Coincides => "the tail coincides with GC pauses",
            Coincidence::Apart => "the tail does not line up with GC pauses",
            Coincidence::Unknown => "no timeline to tell",
        }
    }
}

/// One cell's GC pauses beside its tail latency.
#[derive(Debug, Serialize)]
pub struct GcCell {
    pub cell_id: String,
    pub runtime: String,
    pub profiled: bool,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
    pub pauses: u64,
    pub pause_total_ms: f64,
    pub pause_max_ms: f64,
    pub pause_p99_ms: f64,
    pub slow_seconds_paused: Option<f64>,
    pub seconds_paused: Option<f64>,
    pub coincidence: Coincidence,
    pub coincidence_words: &'static str,
}

/// One artifact link of a profiled cell.
#[derive(Debug, Serialize)]
pub struct Artifact {
    pub collector: &'static str,
    pub kind: ArtifactKind,
    pub state: ArtifactState,
    /// Relative to the run directory (the reports sit at its top).
    pub file: String,
    pub bytes: u64,
    pub note: String,
}

/// One profiled repeat with its figures (perturbed by the profilers) and artifacts.
#[derive(Debug, Serialize)]
pub struct ProfiledCell {
    pub cell_id: String,
    pub runtime: String,
    pub throughput_rps: f64,
    pub p99_ms: f64,
    pub flame_graphs: Vec<Artifact>,
    pub files: Vec<Artifact>,
    pub problems: Vec<Artifact>,
}

#[derive(Debug, Default, Serialize)]
pub struct ProfilesView {
    pub cells: Vec<ProfiledCell>,
    pub gc: Vec<GcCell>,
    /// Files under profiles/gc/ (one GC log per JVM start), relative to the run directory.
    pub gc_logs: Vec<String>,
}

impl ProfilesView {
    pub fn of(run: &RunData) -> ProfilesView {
        let gc = run
            .measurements
            .iter()
            .chain(&run.profiled)
            .filter(|r| r.gc_pauses.is_some())
            .map(gc_cell)
            .collect();
        let cells = run
            .profiled
            .iter()
            .map(|r| profiled_cell(r, &run.profiles))
            .collect();
        ProfilesView {
            cells,
            gc,
            gc_logs: gc_logs(run),
        }
    }
}

fn gc_cell(r: &MeasurementRow) -> GcCell {
    let coincidence = Coincidence::of(r);
    GcCell {
        cell_id: r.cell_id.clone(),
        runtime: r.runtime.clone(),
        profiled: r.profiled,
        p99_ms: r.latency_p99_ms,
        p999_ms: r.latency_p999_ms,
        max_ms: r.latency_max_ms,
        pauses: r.gc_pauses.unwrap_or(0),
        pause_total_ms: r.gc_pause_total_ms.unwrap_or(0.0),
        pause_max_ms: r.gc_pause_max_ms.unwrap_or(0.0),
        pause_p99_ms: r.gc_pause_p99_ms.unwrap_or(0.0),
        slow_seconds_paused: r.gc_slow_seconds_paused,
        seconds_paused: r.gc_seconds_paused,
        coincidence,
        coincidence_words: coincidence.words(),
    }
}

fn profiled_cell(r: &MeasurementRow, rows: &[ProfileRow]) -> ProfiledCell {
    let mut cell = ProfiledCell {
        cell_id: r.cell_id.clone(),
        runtime: r.runtime.clone(),
        throughput_rps: r.throughput_rps,
        p99_ms: r.latency_p99_ms,
        flame_graphs: Vec::new(),
        files: Vec::new(),
        problems: Vec::new(),
    };
    for p in rows.iter().filter(|p| p.cell_id == r.cell_id) {
        let a = Artifact {
            collector: p.collector.as_str(),
            kind: p.kind,
            state: p.state,
            file: p.file.clone(),
            bytes: p.bytes,
            note: p.note.clone(),
        };
        match (p.state, p.kind) {
            (ArtifactState::Ok, ArtifactKind::FlameGraph) => cell.flame_graphs.push(a),
            (ArtifactState::Ok, _) => cell.files.push(a),
            _ => cell.problems.push(a),
        }
    }
    cell
}

fn gc_logs(run: &RunData) -> Vec<String> {
    let dir = run
        .dir
        .join(crate::results::rows::profiles::PROFILES_DIR)
        .join("gc");
    let mut logs: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| format!("profiles/gc/{}", e.file_name().to_string_lossy()))
                .collect()
        })
        .unwrap_or_default();
    logs.sort();
    logs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(pauses: u64, slow: f64, all: f64) -> MeasurementRow {
        MeasurementRow {
            gc_pauses: Some(pauses),
            gc_slow_seconds_paused: Some(slow),
            gc_seconds_paused: Some(all),
            ..Default::default()
        }
    }

    #[test]
    fn the_tail_coincides_only_when_slow_seconds_are_paused_more_often() {
        assert_eq!(Coincidence::of(&row(0, 0.0, 0.0)), Coincidence::NoPauses);
        assert_eq!(Coincidence::of(&row(5, 1.0, 0.2)), Coincidence::Coincides);
        assert_eq!(Coincidence::of(&row(50, 1.0, 1.0)), Coincidence::Apart);
        assert_eq!(Coincidence::of(&row(3, 0.0, 0.3)), Coincidence::Apart);
        let no_timeline = MeasurementRow {
            gc_pauses: Some(2),
            ..Default::default()
        };
        assert_eq!(Coincidence::of(&no_timeline), Coincidence::Unknown);
    }
}
