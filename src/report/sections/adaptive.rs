//! What a report says about a run's adaptive design: per configuration the
//! repeats it got, the interval half-width reached and why it stopped
//! (repeats.csv), and how long the automatic cell warmups ran
//! (measurements.csv `warmup_s`, `warmup_end`). Empty for a fixed design,
//! so the reports of fixed runs are unchanged.
use serde::Serialize;

use crate::results::read::run_data::RunData;
use crate::results::{RepeatsRow, RepeatsStop, WarmupEnd};

/// The template variable `adaptive` (docs/templates.md).
#[derive(Debug, Clone, Serialize, Default)]
pub struct AdaptiveView {
    /// repeats.csv rows, when any runtime has adaptive repeats; else empty.
    pub repeats: Vec<RepeatsRow>,
    /// Configurations that stopped at their target, and at their max.
    pub at_target: usize,
    pub at_max: usize,
    /// `until: decided`: configurations whose runtime's findings were
    /// settled (the others stopped at max); the design's looks.
    pub decided: usize,
    pub until_decided: bool,
    pub looks: usize,
    /// Automatic cell warmups, when the run had any.
    pub warmup: Option<AutoWarmupView>,
}

/// How long the `auto` cell warmups ran.
#[derive(Debug, Clone, Serialize)]
pub struct AutoWarmupView {
    pub cells: usize,
    /// Ended because throughput stopped trending / because `max` was reached.
    pub stable: usize,
    pub at_max: usize,
    pub min_s: f64,
    pub mean_s: f64,
    pub max_s: f64,
}

impl AdaptiveView {
    pub fn of(run: &RunData) -> Self {
        let until_decided = run.repeats.iter().any(|r| r.until.is_some());
        let adaptive = until_decided || run.repeats.iter().any(|r| r.target_ci.is_some());
        let repeats = if adaptive {
            run.repeats.clone()
        } else {
            Vec::new()
        };
        let count = |stop| repeats.iter().filter(|r| r.stop == stop).count();
        AdaptiveView {
            at_target: count(RepeatsStop::Target),
            at_max: count(RepeatsStop::Max),
            decided: count(RepeatsStop::Decided),
            until_decided,
            looks: crate::report::analysis::findings::looks_of(run),
            repeats,
            warmup: auto_warmup(run),
        }
    }
}

fn auto_warmup(run: &RunData) -> Option<AutoWarmupView> {
    let auto: Vec<(f64, WarmupEnd)> = run
        .measurements
        .iter()
        .filter(|m| matches!(m.warmup_end, WarmupEnd::Stable | WarmupEnd::Max))
        .map(|m| (m.warmup_s, m.warmup_end))
        .collect();
    if auto.is_empty() {
        return None;
    }
    let seconds = auto.iter().map(|(s, _)| *s);
    Some(AutoWarmupView {
        cells: auto.len(),
        stable: auto.iter().filter(|(_, e)| *e == WarmupEnd::Stable).count(),
        at_max: auto.iter().filter(|(_, e)| *e == WarmupEnd::Max).count(),
        min_s: seconds.clone().fold(f64::INFINITY, f64::min),
        mean_s: seconds.clone().sum::<f64>() / auto.len() as f64,
        max_s: seconds.fold(0.0, f64::max),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::MeasurementRow;

    fn run(repeats: Vec<RepeatsRow>, warmups: &[(f64, WarmupEnd)]) -> RunData {
        let mut data = RunData {
            dir: "run".into(),
            status: crate::results::RunStatus {
                state: crate::results::RunState::Complete,
                run_id: "run".into(),
                experiment: "x".into(),
                started_at: String::new(),
                updated_at: String::new(),
                cells_total: 0,
                cells_done: 0,
                quick_factor: None,
                spec_hash: String::new(),
                message: None,
                skipped_cells: Vec::new(),
            },
            environment: Default::default(),
            configurations: vec![],
            lifecycle: vec![],
            measurements: vec![],
            repeats,
            title: None,
            schedule: Default::default(),
            controls: Vec::new(),
            description: None,
            report_templates: vec![],
            pinning: None,
            derived_rates: None,
            trainings: vec![],
            profiled: vec![],
            profiles: vec![],
            nmt: vec![],
        };
        data.measurements = warmups
            .iter()
            .map(|&(warmup_s, warmup_end)| MeasurementRow {
                warmup_s,
                warmup_end,
                ..Default::default()
            })
            .collect();
        data
    }

    fn row(config_id: &str, target_ci: Option<f64>, stop: RepeatsStop) -> RepeatsRow {
        RepeatsRow {
            config_id: config_id.into(),
            runtime: "go".into(),
            repeats: 3,
            usable: 3,
            min: 3,
            max: 10,
            target_ci,
            throughput_rps: Some(100.0),
            half_width: Some(0.02),
            stop,
            until: None,
        }
    }

    #[test]
    fn a_fixed_design_shows_nothing_and_an_adaptive_one_counts_its_stops() {
        let fixed = run(
            vec![row("go/c=1", None, RepeatsStop::Fixed)],
            &[(2.0, WarmupEnd::Fixed)],
        );
        let view = AdaptiveView::of(&fixed);
        assert!(view.repeats.is_empty() && view.warmup.is_none(), "{view:?}");

        let adaptive = run(
            vec![
                row("go/c=1", Some(0.03), RepeatsStop::Target),
                row("go/c=2", Some(0.03), RepeatsStop::Max),
                row("go/c=3", Some(0.03), RepeatsStop::Max),
            ],
            &[
                (5.0, WarmupEnd::Stable),
                (30.0, WarmupEnd::Max),
                (7.0, WarmupEnd::Stable),
            ],
        );
        let view = AdaptiveView::of(&adaptive);
        assert_eq!((view.repeats.len(), view.at_target, view.at_max), (3, 1, 2));
        let w = view.warmup.expect("auto warmups");
        assert_eq!((w.cells, w.stable, w.at_max), (3, 2, 1));
        assert_eq!((w.min_s, w.max_s, w.mean_s), (5.0, 30.0, 14.0));
    }
}
