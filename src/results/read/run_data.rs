//! Reading a run directory with the contract types of `results::model`.
//! The report stage reads nothing else, so any past run can be re-rendered.
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::results::model::{
    CONFIGURATIONS_FILE, ConfigurationRow, ENVIRONMENT_FILE, Environment, LIFECYCLE_FILE,
    LifecycleRow, MEASUREMENTS_FILE, MeasurementRow, PLAN_FILE, REPEATS_FILE, RepeatsRow,
    RunStatus, STATUS_FILE, TIMELINES_DIR, TimelineRow, cell_file_stem,
};
use crate::results::read::csv_read::read_csv_text;
use crate::results::read::run_files::{RunFiles, RunFolder};
use crate::results::read::run_read_error::RunReadError;
use crate::results::read::training_view::{TrainingView, trainings_in};
use crate::results::read_csv;
use crate::results::rows::derived_rates::{DERIVED_RATES_FILE, DerivedRates};
use crate::results::rows::profiles::{PROFILES_FILE, ProfileRow};

/// Everything the report needs from one run directory.
#[derive(Debug, Clone)]
pub struct RunData {
    pub dir: PathBuf,
    pub status: RunStatus,
    pub environment: Environment,
    pub configurations: Vec<ConfigurationRow>,
    /// Empty when the run died before any service started.
    pub lifecycle: Vec<LifecycleRow>,
    /// The measured rows: every statistic is over these (profiled repeats left out).
    pub measurements: Vec<MeasurementRow>,
    /// repeats.csv: per configuration its repeats and why it stopped; empty
    /// for runs from before the file existed.
    pub repeats: Vec<RepeatsRow>,
    /// Title and description from plan.json, when present.
    pub title: Option<String>,
    /// How the runtimes' cells were scheduled (plan.json), for what the
    /// report can and cannot attribute to a runtime.
    pub schedule: Schedule,
    pub description: Option<String>,
    /// The spec's `report.templates` as resolved in plan.json (empty: defaults).
    pub report_templates: Vec<PathBuf>,
    /// The CPU pinning recorded in plan.json, in words; `None`: unpinned.
    pub pinning: Option<String>,
    /// plan.json's `controls`: (candidate, control) runtime names, each
    /// candidate judged against a control measured in this run.
    pub controls: Vec<(String, String)>,
    /// derived-rates.json: the rates of the `equal_load` cells, when it ran them.
    pub derived_rates: Option<DerivedRates>,
    /// training/<runtime>.json of every trained runtime.
    pub trainings: Vec<TrainingView>,
    /// The extra, profiled repeats (`profile:`), kept out of `measurements`.
    pub profiled: Vec<MeasurementRow>,
    /// profiles.csv: the artifacts of the profiled repeats.
    pub profiles: Vec<ProfileRow>,
    /// nmt.csv: Native Memory Tracking of the Java cells that tracked it.
    pub nmt: Vec<crate::results::NmtRow>,
}

impl RunData {
    /// Reads the run directory `dir`.
    pub fn load(dir: &Path) -> Result<Self, RunReadError> {
        if !dir.is_dir() {
            return Err(RunReadError::Missing {
                path: dir.to_path_buf(),
                what: "the run directory itself",
            });
        }
        Self::from_files(&RunFolder(dir))
    }

    /// Reads a run from its files wherever they are kept (its folder, or a
    /// results store's copy): one reader, so both give the same `RunData`.
    pub fn from_files(files: &dyn RunFiles) -> Result<Self, RunReadError> {
        let dir = files.dir();
        let status: RunStatus =
            read_json(files, STATUS_FILE, "status.json, written when a run starts")?;
        let environment: Environment = read_json(
            files,
            ENVIRONMENT_FILE,
            "environment.json, written when a run starts",
        )?;
        let configurations = read_table(files, CONFIGURATIONS_FILE, "configurations.csv")?;
        let lifecycle = read_rows(files, LIFECYCLE_FILE)?.unwrap_or_default();
        let all: Vec<MeasurementRow> = read_table(
            files,
            MEASUREMENTS_FILE,
            "measurements.csv, one row per measured cell",
        )?;
        let (profiled, measurements) = all.into_iter().partition(|r| r.profiled);
        let plan = read_plan(files)?;
        let repeats = read_rows(files, REPEATS_FILE)?.unwrap_or_default();
        Ok(RunData {
            dir: dir.to_path_buf(),
            status,
            environment,
            configurations,
            lifecycle,
            measurements,
            repeats,
            title: plan.title,
            schedule: plan.schedule,
            description: plan.description,
            report_templates: plan.report_templates,
            pinning: plan.pinning,
            controls: plan.controls,
            derived_rates: read_optional_json(files, DERIVED_RATES_FILE)?,
            trainings: trainings_in(files)?,
            profiled,
            profiles: read_rows(files, PROFILES_FILE)?.unwrap_or_default(),
            nmt: read_rows(files, crate::results::NMT_FILE)?.unwrap_or_default(),
        })
    }

    /// Per-second timeline of one cell; `None` when the run has none for it.
    pub fn timeline(&self, cell_id: &str) -> Result<Option<Vec<TimelineRow>>, RunReadError> {
        let path = self
            .dir
            .join(TIMELINES_DIR)
            .join(format!("{}.csv", cell_file_stem(cell_id)));
        Ok(read_csv(&path)?)
    }
}

fn read_text(files: &dyn RunFiles, name: &str, what: &'static str) -> Result<String, RunReadError> {
    files.text(name)?.ok_or_else(|| RunReadError::Missing {
        path: files.dir().join(name),
        what,
    })
}

/// A JSON file a run may lack (`None` when absent).
fn read_optional_json<T: DeserializeOwned>(
    files: &dyn RunFiles,
    name: &str,
) -> Result<Option<T>, RunReadError> {
    match files.text(name)? {
        None => Ok(None),
        Some(text) => parse_json(files, name, &text).map(Some),
    }
}

fn read_json<T: DeserializeOwned>(
    files: &dyn RunFiles,
    name: &str,
    what: &'static str,
) -> Result<T, RunReadError> {
    let text = read_text(files, name, what)?;
    parse_json(files, name, &text)
}

fn parse_json<T: DeserializeOwned>(
    files: &dyn RunFiles,
    name: &str,
    text: &str,
) -> Result<T, RunReadError> {
    serde_json::from_str(text).map_err(|e| RunReadError::Json {
        path: files.dir().join(name),
        line: e.line(),
        column: e.column(),
        detail: e.to_string(),
    })
}

/// How a run scheduled its cells, as far as it limits what a comparison of
/// runtimes within the run can conclude.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Schedule {
    /// `order: sequential`: each runtime's cells ran as one block.
    pub sequential: bool,
    /// Every runtime was started once for the whole run (`restart: run`).
    pub one_start: bool,
}

impl Schedule {
    /// What the report must say about it, or `None` when nothing is confounded.
    pub fn caveat(&self) -> Option<&'static str> {
        match (self.sequential, self.one_start) {
            (true, true) => Some(
                "This run measured each runtime as one block (`order: sequential`) on a single \
                 process start (`lifecycle: { restart: run }`): a difference between runtimes \
                 cannot be told apart from the host drifting between the blocks, and the \
                 repeats share one start, so their spread leaves out start-to-start variation \
                 and the intervals above are too narrow. `order: interleaved` with \
                 `restart: repeat` (the defaults) removes both.",
            ),
            (true, false) => Some(
                "This run measured each runtime as one block (`order: sequential`): a \
                 difference between runtimes cannot be told apart from the host drifting \
                 between the blocks. `order: interleaved` (the default) removes that.",
            ),
            (false, true) => Some(
                "Every runtime was started once for the whole run (`lifecycle: { restart: run \
                 }`): the repeats share one start, so their spread leaves out start-to-start \
                 variation and the intervals above are too narrow. `restart: repeat` (the \
                 default) measures it.",
            ),
            (false, false) => None,
        }
    }
}

/// What the report uses from plan.json (read loosely: the Plan is the plan
/// stage's contract, and a report must not break when it gains fields).
#[derive(Default)]
struct PlanExtract {
    schedule: Schedule,
    title: Option<String>,
    description: Option<String>,
    report_templates: Vec<PathBuf>,
    pinning: Option<String>,
    controls: Vec<(String, String)>,
}

/// plan.json's `affinity` in words: `service on CPUs 0,1,2, load generator
/// on 3 (default for hosts with >= 4 CPUs)`.
fn pinning(plan: &serde_json::Value) -> Option<String> {
    let affinity = plan.get("affinity").filter(|a| !a.is_null())?;
    let cpus = |side: &str| {
        affinity
            .get(side)
            .and_then(|v| v.as_array())
            .map(|list| {
                list.iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .unwrap_or_default()
    };
    let source = match affinity.get("source").and_then(|s| s.as_str()) {
        Some("default") => " (the default on hosts with >= 4 CPUs)",
        _ => " (the spec's `affinity`)",
    };
    Some(format!(
        "service on CPUs {}, load generator on {}{source}",
        cpus("service"),
        cpus("load")
    ))
}

/// plan.json's `controls: [{candidate, control}]`; empty in runs planned
/// without one (or before the key existed).
fn controls(plan: &serde_json::Value) -> Vec<(String, String)> {
    let name = |pair: &serde_json::Value, key: &str| {
        pair.get(key).and_then(|v| v.as_str()).map(str::to_string)
    };
    plan.get("controls")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .filter_map(|pair| Some((name(pair, "candidate")?, name(pair, "control")?)))
        .collect()
}

fn read_plan(files: &dyn RunFiles) -> Result<PlanExtract, RunReadError> {
    let Some(plan) = read_optional_json::<serde_json::Value>(files, PLAN_FILE)? else {
        return Ok(PlanExtract::default());
    };
    let field = |name: &str| {
        plan.pointer(&format!("/experiment/{name}"))
            .and_then(|v| v.as_str())
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let report_templates = plan
        .get("report_templates")
        .and_then(|v| v.as_array())
        .map(|list| {
            list.iter()
                .filter_map(|t| t.as_str())
                .map(PathBuf::from)
                .collect()
        })
        .unwrap_or_default();
    let restarts: Vec<&str> = plan
        .get("runtimes")
        .and_then(|v| v.as_array())
        .map(|list| {
            list.iter()
                // Runs planned before `lifecycle.restart` existed started each runtime once.
                .map(|r| r.get("restart").and_then(|v| v.as_str()).unwrap_or("run"))
                .collect()
        })
        .unwrap_or_default();
    let schedule = Schedule {
        sequential: plan.get("order").and_then(|v| v.as_str()) == Some("sequential"),
        one_start: !restarts.is_empty() && restarts.iter().all(|r| *r == "run"),
    };
    Ok(PlanExtract {
        schedule,
        title: field("title"),
        description: field("description"),
        report_templates,
        pinning: pinning(&plan),
        controls: controls(&plan),
    })
}

/// A table of the run that must be there (`what` says what writes it).
fn read_table<T: DeserializeOwned>(
    files: &dyn RunFiles,
    name: &str,
    what: &'static str,
) -> Result<Vec<T>, RunReadError> {
    read_rows(files, name)?.ok_or_else(|| RunReadError::Missing {
        path: files.dir().join(name),
        what,
    })
}

/// A table of the run, `None` when the run has no such file.
fn read_rows<T: DeserializeOwned>(
    files: &dyn RunFiles,
    name: &str,
) -> Result<Option<Vec<T>>, RunReadError> {
    match files.text(name)? {
        None => Ok(None),
        Some(text) => Ok(Some(read_csv_text(&files.dir().join(name), &text)?)),
    }
}
