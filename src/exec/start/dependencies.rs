//! The run's side of dependencies ([`crate::dependency`] runs them): a
//! start and a reset at the run's logs and interruption, a cell's window of
//! the dependencies it needs, and the readings written to
//! dependency-usage.csv and dependency-stats.csv (taken here or on a service
//! host over SSH).
use crate::dependency::stats::rows_of;
use crate::dependency::{Dependencies, DependencyError, DependencyReading, Site, Window};
use crate::exec::measure::context::CellContext;
use crate::plan::DependencyPlan;
use crate::results::{
    CsvAppender, DEPENDENCY_STATS_FILE, DEPENDENCY_USAGE_FILE, DependencyStatsRow,
    DependencyUsageRow, MeasurementRow, ResultsError,
};
use crate::sample::SamplerOutput;

/// The dependencies `cell` uses (its scenario's, within its runtime's).
pub fn needs_of_cell(plan: &crate::plan::Plan, cell: &crate::plan::Cell) -> Vec<String> {
    (plan.runtimes.iter())
        .find(|r| r.name == cell.runtime)
        .map(|rt| plan.needs_of(rt, Some(cell)))
        .unwrap_or_default()
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// The run's dependency-usage.csv and dependency-stats.csv, opened on the
/// first window that has readings.
#[derive(Default)]
pub struct DependencyFiles {
    usage: Option<CsvAppender<DependencyUsageRow>>,
    stats: Option<CsvAppender<DependencyStatsRow>>,
}

/// [`Dependencies`] at a run's logs and interruption.
pub trait RunDependencies {
    /// Builds `dep` (once per session), then starts it with its log in the
    /// run's logs/dependency-<name>.log.
    fn start(&mut self, ctx: &CellContext, dep: &DependencyPlan) -> Result<(), DependencyError>;
    /// Runs `dep`'s reset command, given up when the run is interrupted.
    fn reset(&mut self, ctx: &CellContext, dep: &DependencyPlan) -> Result<(), DependencyError>;
    /// Starts sampling the dependencies `needs` names (their stats zeroed).
    fn open_window(&mut self, ctx: &CellContext, needs: &[String]) -> Window;
}

impl RunDependencies for Dependencies {
    fn start(&mut self, ctx: &CellContext, dep: &DependencyPlan) -> Result<(), DependencyError> {
        let cancelled = || ctx.interrupt.is_set();
        let site = Site {
            log: ctx.run.log(&format!("dependency-{}", dep.name)),
            cancelled: &cancelled,
        };
        self.start_at(&site, dep)
    }

    fn reset(&mut self, ctx: &CellContext, dep: &DependencyPlan) -> Result<(), DependencyError> {
        self.reset_unless(&|| ctx.interrupt.is_set(), dep)
    }

    fn open_window(&mut self, ctx: &CellContext, needs: &[String]) -> Window {
        let deps = (ctx.plan.dependencies.iter()).filter(|d| needs.contains(&d.name));
        self.open_window_of(deps, ctx.plan.sample_interval)
    }
}

impl DependencyFiles {
    /// Appends `readings` (taken here or on a service host) for the cell of `row`.
    pub fn write(
        &mut self,
        ctx: &CellContext,
        readings: Vec<DependencyReading>,
        row: &MeasurementRow,
    ) -> Result<(), ResultsError> {
        let answered = (row.ok + row.errors) as f64;
        for r in readings {
            if self.usage.is_none() {
                self.usage = Some(CsvAppender::open(&ctx.run.file(DEPENDENCY_USAGE_FILE))?);
            }
            if let Some(out) = self.usage.as_mut() {
                out.append(&usage_row(row, &r.name, &r.samples, answered))?;
            }
            let Some((path, answer)) = r.stats else {
                continue;
            };
            let rows = rows_of(answer, &path, row, &r.name);
            if self.stats.is_none() {
                self.stats = Some(CsvAppender::open(&ctx.run.file(DEPENDENCY_STATS_FILE))?);
            }
            if let Some(out) = self.stats.as_mut() {
                for r in &rows {
                    out.append(r)?;
                }
            }
        }
        Ok(())
    }
}

fn usage_row(
    row: &MeasurementRow,
    name: &str,
    samples: &SamplerOutput,
    answered: f64,
) -> DependencyUsageRow {
    let cpu = samples.cgroup_cpu_seconds().or(samples.cpu_seconds());
    DependencyUsageRow {
        cell_id: row.cell_id.clone(),
        repeat: row.repeat,
        dependency: name.to_owned(),
        cpu_seconds: cpu,
        cpu_ms_per_request: cpu
            .filter(|_| answered > 0.0)
            .map(|c| c * 1000.0 / answered),
        rss_mean_bytes: samples.rss_mean(),
        rss_max_bytes: samples.rss_max(),
        cgroup_memory_mean_bytes: samples.cgroup_memory_mean(),
        cgroup_memory_peak_bytes: samples.cgroup_memory_peak(),
    }
}
