//! `load: { mode: search, slo: { p99: 50ms, errors: 0.1% }, from: 1000, to: 100000 }`:
//! the spec side of the maximum sustainable rate search (see
//! [`crate::exec::measure::search`] for the rule and [`crate::plan::contract::search`] for the defaults).
use schemars::JsonSchema;
use serde::Deserialize;

use crate::spec::keys::adaptive::Percent;
use crate::spec::values::HumanDuration;

/// What a search step must hold to count: the open loop's p99 (measured from
/// each request's intended send time) at most `p99`, and errors at most `errors`
/// of the requests sent.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with p99 and errors (e.g. { p99: 50ms, errors: 0.1% })"
)]
pub struct SloSpec {
    /// Highest p99 latency a step may show, e.g. `50ms`.
    pub p99: HumanDuration,
    /// Highest share of errors a step may show, e.g. `0.1%`.
    pub errors: Percent,
}

/// How each search step is measured and how the search narrows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with warmup, duration, factor, precision, max_steps"
)]
pub struct SearchStepSpec {
    /// Load at the step's rate before its measured window (default `1s`).
    pub warmup: Option<HumanDuration>,
    /// The step's measured window (default `3s`).
    pub duration: Option<HumanDuration>,
    /// Each step-up multiplies the rate by this (default 2, above 1).
    pub factor: Option<f64>,
    /// Bisection stops when the first failed rate is within this of the last
    /// held one (default `5%`).
    pub precision: Option<Percent>,
    /// At most this many steps in all (default 20).
    pub max_steps: Option<u32>,
}

use crate::spec::model::{LoadModeSpec, LoadSpec};
use crate::spec::validate::Finding;

fn finding(field: &str, message: String, help: &str) -> Finding {
    Finding {
        field: field.to_string(),
        message,
        help: help.to_string(),
    }
}

/// The checks of the search fields: present and consistent in search mode,
/// absent in the other modes (where they would silently do nothing).
pub fn check_search(load: &LoadSpec) -> Vec<Finding> {
    let mut out = Vec::new();
    if load.mode != LoadModeSpec::Search {
        for (field, set) in [
            ("load.slo", load.slo.is_some()),
            ("load.from", load.from.is_some()),
            ("load.to", load.to.is_some()),
            ("load.step", load.step.is_some()),
        ] {
            if set {
                out.push(finding(
                    field,
                    format!("`{}` is only used in search mode", &field[5..]),
                    "remove it, or set `mode: search`",
                ));
            }
        }
        return out;
    }
    if load.rate.is_some() {
        out.push(finding(
            "load.rate",
            "search mode finds the rate itself: `rate` is not used".into(),
            "remove `rate`; give the range as `from: 1000` and `to: 100000`",
        ));
    }
    if load.slo.is_none() {
        out.push(finding(
            "load",
            "search mode needs an `slo`: what a step must hold".into(),
            "add `slo: { p99: 50ms, errors: 0.1% }`",
        ));
    }
    let range_help = "give the rates to search between, e.g. `from: 1000` and `to: 100000` (requests per second)";
    match (load.from, load.to) {
        (None, _) => out.push(finding(
            "load",
            "search mode needs `from`".into(),
            range_help,
        )),
        (_, None) => out.push(finding("load", "search mode needs `to`".into(), range_help)),
        (Some(from), _) if !(from.is_finite() && from > 0.0) => out.push(finding(
            "load.from",
            format!("`from: {from}` is not a rate above 0"),
            range_help,
        )),
        (Some(from), Some(to)) if !(to.is_finite() && to > from) => out.push(finding(
            "load.to",
            format!("`to: {to}` is not above `from: {from}`"),
            range_help,
        )),
        _ => {}
    }
    if let Some(step) = &load.step {
        if step.factor.is_some_and(|f| !(f.is_finite() && f > 1.0)) {
            out.push(finding(
                "load.step.factor",
                format!(
                    "step factor {} does not raise the rate",
                    step.factor.unwrap_or(0.0)
                ),
                "use a factor above 1, e.g. `factor: 2`",
            ));
        }
        if step.max_steps.is_some_and(|n| n < 2) {
            out.push(finding(
                "load.step.max_steps",
                "a search needs at least 2 steps".into(),
                "e.g. `max_steps: 20`",
            ));
        }
        if step.duration.is_some_and(|d| d.0.is_zero()) {
            out.push(finding(
                "load.step.duration",
                "a step's measured window is zero".into(),
                "e.g. `duration: 3s`",
            ));
        }
    }
    out
}
