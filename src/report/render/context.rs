//! The template context: every variable documented in docs/templates.md.
use minijinja::{Value, context};
use serde::Serialize;

use crate::report::analysis::pairs::PAIR_RULE;
use crate::report::analysis::summary::Summary;
use crate::report::analysis::wins::TIE_RULE;
use crate::report::charts::draw::Chart;
use crate::results::model::{ConfigurationRow, ConfigurationStatus, Environment, RunStatus};
use crate::results::read::run_data::RunData;
use crate::results::read::training_view::TrainingView;

#[derive(Serialize)]
struct Experiment<'a> {
    name: &'a str,
    title: &'a str,
    description: &'a str,
}

#[derive(Serialize)]
struct EnvironmentView<'a> {
    #[serde(flatten)]
    environment: &'a Environment,
    fingerprint: String,
}

#[derive(Serialize)]
struct Data<'a> {
    generated_at: &'a str,
    runner_version: &'static str,
    experiment: Experiment<'a>,
    run: &'a RunStatus,
    run_dir: String,
    environment: EnvironmentView<'a>,
    configurations: &'a [ConfigurationRow],
    /// Each configuration's `version:` output, in the same order ("—" for
    /// none); the Configuration table shows the column only when some
    /// runtime has one (`any_runtime_version`).
    config_versions: Vec<&'a str>,
    any_runtime_version: bool,
    /// training/<runtime>.json of every trained runtime.
    trainings: &'a [TrainingView],
    skipped: Vec<&'a ConfigurationRow>,
    /// Cells the plan skipped (their JDK), from status.json.
    skipped_cells: &'a [crate::results::SkippedCell],
    tie_rule: &'static str,
    pair_rule: &'static str,
    /// What the run's schedule confounds (sequential order, one start), if anything.
    schedule_caveat: Option<&'static str>,
    /// Some point has axes beyond payload and concurrency (a scenario, `log`,
    /// `jdk`...): the wins and pivot tables then name them in a column.
    axes_beyond_load: bool,
    /// Some point has axes beyond payload, concurrency and scenario: the
    /// peak table names them in an `axes` column.
    peak_axes: bool,
    /// Payload is an axis of the run: the tables give it a column (an
    /// endpoint axis is not a payload, and a column of "—" says nothing).
    payload_axis: bool,
    /// More than one runtime was measured: the sections that compare
    /// runtimes (wins, winner per cell) are shown; with one there is
    /// nothing to compare.
    compares_runtimes: bool,
    /// Runtimes with measurements, in configuration order, and the payloads.
    runtimes: &'a [String],
    payloads: &'a [Option<i64>],
    /// The points of the axes other than concurrency (one chart panel each).
    panels: &'a [String],
}

/// The generation time, RFC 3339 UTC (the one volatile part of a report).
pub fn generated_now() -> String {
    time::OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

/// The context: the run, its runtimes and payloads, the charts and every
/// section of the registry under its name.
pub fn build(
    run: &RunData,
    summary: &Summary,
    charts: &[Chart],
    sections: &[(&'static str, Value)],
    generated_at: &str,
) -> Value {
    let data = Data {
        generated_at,
        runner_version: env!("CARGO_PKG_VERSION"),
        experiment: Experiment {
            name: &run.status.experiment,
            title: run.title.as_deref().unwrap_or(&run.status.experiment),
            description: run.description.as_deref().unwrap_or(""),
        },
        run: &run.status,
        run_dir: run.dir.display().to_string(),
        environment: EnvironmentView {
            environment: &run.environment,
            fingerprint: run.environment.host.fingerprint(),
        },
        configurations: &run.configurations,
        config_versions: run
            .configurations
            .iter()
            .map(|c| {
                run.environment
                    .versions
                    .get(&format!("runtime {}", c.runtime))
                    .map_or("—", String::as_str)
            })
            .collect(),
        any_runtime_version: run
            .environment
            .versions
            .keys()
            .any(|k| k.starts_with("runtime ")),
        trainings: &run.trainings,
        skipped: run
            .configurations
            .iter()
            .filter(|c| c.status != ConfigurationStatus::Ran)
            .collect(),
        skipped_cells: &run.status.skipped_cells,
        tie_rule: TIE_RULE,
        pair_rule: PAIR_RULE,
        schedule_caveat: run.schedule.caveat(),
        axes_beyond_load: summary
            .cells
            .iter()
            .any(|c| !crate::report::analysis::format::beyond_load(&c.axes).is_empty()),
        peak_axes: summary.peaks.iter().any(|p| !p.axes.is_empty()),
        payload_axis: summary.payloads.iter().any(Option::is_some),
        compares_runtimes: summary.runtimes.len() > 1,
        runtimes: &summary.runtimes,
        payloads: &summary.payloads,
        panels: &summary.panels,
    };
    // SVG from plotters is trusted markup (it escapes its own text), so it is
    // marked safe; everything else goes through auto-escaping.
    let charts: Vec<Value> = charts
        .iter()
        .map(|c| {
            context! {
                name => c.name,
                file => c.file.clone(),
                title => c.title.clone(),
                svg => Value::from_safe_string(c.svg.clone()),
            }
        })
        .collect();
    let sections = Value::from(
        sections
            .iter()
            .map(|(name, value)| (name.to_string(), value.clone()))
            .collect::<std::collections::BTreeMap<String, Value>>(),
    );
    minijinja::value::merge_maps([
        context! { charts => charts },
        sections,
        Value::from(minijinja::value::Serde(&data)),
    ])
}
