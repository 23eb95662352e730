//! Which axis points each runtime is planned for: `include` keeps points
//! matching a rule (when there are rules), `exclude` drops points matching
//! one, `--only` keeps the values it lists (see [`matrix`] for the matching).
use crate::plan::PlanErrors;
use crate::plan::steps::matrix::{self, OnlyFilter, Point};
use crate::spec::error::suggestion;
use crate::spec::model::Spec;
use crate::spec::values::AxisValue;
use crate::spec::{LoadedSpec, Problem, SpecErrors};

/// For each runtime of `runtimes` (in order), the indices of the `points`
/// it keeps.
pub fn kept_points(
    spec: &Spec,
    runtimes: &[&str],
    points: &[Point],
    only: &[OnlyFilter],
) -> Vec<Vec<usize>> {
    let any_rule = |rules: &[indexmap::IndexMap<String, AxisValue>], rt: &str, point: &Point| {
        rules
            .iter()
            .any(|r| matrix::rule_matches(r.iter().map(|(k, v)| (k, v.to_string())), rt, point))
    };
    runtimes
        .iter()
        .map(|&rt| {
            (0..points.len())
                .filter(|&p| {
                    let point = &points[p];
                    (spec.include.is_empty() || any_rule(&spec.include, rt, point))
                        && !any_rule(&spec.exclude, rt, point)
                        && matrix::only_keeps(only, rt, point)
                })
                .collect()
        })
        .collect()
}

/// The problem of a plan whose filters leave no cell.
pub fn nothing_kept(loaded: &LoadedSpec) -> Problem {
    Problem::new(
        &loaded.path.display().to_string(),
        "the plan has no cells: `include`, `exclude` and `--only` filter out every one",
    )
    .help("loosen the filters (`runner plan` without `--only` shows every cell)")
}

/// The `--only` filters as typed, each checked against the runtimes and
/// axes of `loaded`: every unknown key or value is a problem.
pub fn parse_only_filters(
    loaded: &LoadedSpec,
    only: &[String],
) -> Result<Vec<OnlyFilter>, PlanErrors> {
    let spec_path = loaded.path.display().to_string();
    let shown = spec_path.as_str();
    let mut problems = Vec::new();
    let mut filters = Vec::new();
    let mut keys: Vec<&str> = vec!["runtime"];
    keys.extend(loaded.spec.axes.keys().map(String::as_str));
    for text in only {
        let filter = match matrix::parse_only(text) {
            Ok(f) => f,
            Err(e) => {
                problems.push(
                    Problem::new(shown, format!("--only {e}"))
                        .help("e.g. `--only runtime=go-stdlib --only payload=128,2048`"),
                );
                continue;
            }
        };
        let known: Vec<String> = if filter.key == "runtime" {
            loaded.runtimes.keys().cloned().collect()
        } else if let Some(values) = loaded.spec.axes.get(&filter.key) {
            values.iter().map(ToString::to_string).collect()
        } else {
            problems.push(
                Problem::new(
                    shown,
                    format!(
                        "--only {text}: `{}` is neither `runtime` nor an axis",
                        filter.key
                    ),
                )
                .help(suggestion(&filter.key, &keys, "valid keys")),
            );
            continue;
        };
        for value in &filter.values {
            if !known.contains(value) {
                let names: Vec<&str> = known.iter().map(String::as_str).collect();
                problems.push(
                    Problem::new(
                        shown,
                        format!(
                            "--only {text}: `{value}` is not a value of `{}`",
                            filter.key
                        ),
                    )
                    .help(suggestion(value, &names, "values")),
                );
            }
        }
        filters.push(filter);
    }
    if problems.is_empty() {
        Ok(filters)
    } else {
        Err(SpecErrors { problems })
    }
}
