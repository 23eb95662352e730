//! What a plan can detect, said before it runs: from the repeat-to-repeat
//! noise of the last comparable run of the experiment ([`crate::plan::analysis::last_run`]),
//! per runtime and judged metric, the smallest change a `runner compare` of
//! two runs of this plan would detect in one configuration, and the repeats
//! per side it would need to detect the threshold. "Cannot detect 5% with 2
//! repeats: need >= 9" is said before the hour is spent, not after.
//!
//! The rule is compare's (src/stats/judge.rs, docs/compare.md):
//! - one value per repeat; the variance of log repeat values is pooled over a
//!   runtime's configurations, and both sides of the future comparison are
//!   assumed to be as noisy as the last run;
//! - one-sided tests at Holm's strictest level, `ALPHA / tests` with
//!   `tests = 2 x configurations` (throughput and p99 of every configuration
//!   of the plan), and 80% power;
//! - degrees of freedom `configurations of the runtime x (repeats - 1)` per
//!   side, as [`repeats_needed`] counts them.
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::PathBuf;

use indexmap::IndexMap;
use serde::Serialize;

use crate::plan::Plan;
use crate::plan::analysis::last_run::{UnusedRuns, last_comparable_run};
use crate::results::RunData;
use crate::stats::effect::{PooledVariance, detectable_change, repeats_needed, se_with_repeats};
use crate::stats::{
    ALPHA, DEFAULT_FLOOR, DEFAULT_RULE, MAX_REPEATS, Metric, POWER, RunNoise, RunRepeats,
    run_repeats,
};

/// What `runner plan` can say about the design.
#[derive(Debug, Clone)]
pub enum Detectability {
    /// Estimated from the noise of the last comparable run.
    Estimated(Design),
    /// No complete run of this experiment on this host to take noise from;
    /// the runs that exist but were not used, by why.
    NoPreviousRun { repeats: u32, unused: UnusedRuns },
}

impl Detectability {
    pub fn design(&self) -> Option<&Design> {
        match self {
            Detectability::Estimated(design) => Some(design),
            Detectability::NoPreviousRun { .. } => None,
        }
    }
}

/// The figures, for `runner plan --format json` (`design`) and the table.
#[derive(Debug, Clone, Serialize)]
pub struct Design {
    pub last_run: LastRun,
    /// Repeats per configuration of this plan.
    pub repeats: u32,
    /// Family-wise error rate, tests in the family, and the one-sided level
    /// of each test (`alpha / tests`).
    pub alpha: f64,
    pub tests: usize,
    pub test_alpha: f64,
    pub power: f64,
    pub rows: Vec<DesignRow>,
}

/// The run the noise comes from.
#[derive(Debug, Clone, Serialize)]
pub struct LastRun {
    pub run_id: String,
    pub dir: PathBuf,
    /// Its spec.yaml's sha256 is not this plan's.
    pub spec_differs: bool,
}

/// One runtime and judged metric.
#[derive(Debug, Clone, Serialize)]
pub struct DesignRow {
    pub runtime: String,
    pub metric: Metric,
    /// Relative SD of one repeat in the last run; `None`: no configuration
    /// of the runtime had two usable repeats there.
    pub noise: Option<f64>,
    /// Smallest relative change detectable in one configuration with this
    /// plan's repeats; `None`: no noise, or a single repeat (compare then
    /// has no variance to judge with).
    pub detectable: Option<f64>,
    pub threshold: f64,
    /// Repeats per side to detect `threshold`; `None`: no noise, or more
    /// than [`MAX_REPEATS`].
    pub repeats_needed: Option<u32>,
}

/// What `plan` can detect, from the last comparable run in its results
/// directory on the host with `host_fingerprint`.
pub fn assess(plan: &Plan, host_fingerprint: &str) -> Detectability {
    match last_comparable_run(&plan.results_dir, host_fingerprint, plan.quick_factor) {
        Ok(run) => Detectability::Estimated(design_of(plan, &run)),
        Err(unused) => Detectability::NoPreviousRun {
            repeats: plan.repeats,
            unused,
        },
    }
}

fn design_of(plan: &Plan, run: &RunData) -> Design {
    let last_run = LastRun {
        run_id: run.status.run_id.clone(),
        dir: run.dir.clone(),
        spec_differs: run.status.spec_hash != plan.spec_hash,
    };
    figures(plan, &run_repeats(&run.measurements), last_run)
}

/// The design of `plan` given the repeats of the last run.
fn figures(plan: &Plan, last: &RunRepeats, last_run: LastRun) -> Design {
    let configurations = configurations(plan);
    let tests = 2 * configurations.values().map(BTreeSet::len).sum::<usize>();
    let test_alpha = ALPHA / tests.max(1) as f64;
    let noise = RunNoise::of(last);
    let mut rows = Vec::new();
    for (runtime, configs) in &configurations {
        for metric in DEFAULT_RULE.judged() {
            let threshold = DEFAULT_RULE.threshold_of(metric).expect("a judged metric");
            let pooled = noise.get(runtime, metric);
            let k = configs.len();
            rows.push(DesignRow {
                runtime: runtime.to_string(),
                metric,
                noise: pooled.map(|p| p.relative_sd()),
                detectable: pooled.and_then(|p| detectable(p, k, plan.repeats, test_alpha)),
                threshold,
                repeats_needed: pooled.and_then(|p| {
                    repeats_needed(p, p, k, threshold, test_alpha, POWER, MAX_REPEATS)
                }),
            });
        }
    }
    Design {
        last_run,
        repeats: plan.repeats,
        alpha: ALPHA,
        tests,
        test_alpha,
        power: POWER,
        rows,
    }
}

/// The smallest change detectable with `repeats` per side over `configs`
/// configurations of noise `p`; `None` with one repeat (no variance).
fn detectable(p: PooledVariance, configs: usize, repeats: u32, alpha: f64) -> Option<f64> {
    (repeats >= 2).then(|| {
        let df = (configs * (repeats as usize - 1) * 2) as f64;
        detectable_change(se_with_repeats(p, p, repeats), df, alpha, POWER)
    })
}

/// The configuration ids of each runtime with cells in the plan, in runtime order.
fn configurations(plan: &Plan) -> IndexMap<&str, BTreeSet<&str>> {
    let mut out: IndexMap<&str, BTreeSet<&str>> = plan
        .runtimes
        .iter()
        .map(|r| (r.name.as_str(), BTreeSet::new()))
        .collect();
    for cell in &plan.cells {
        if let Some(configs) = out.get_mut(cell.runtime.as_str()) {
            configs.insert(cell.config_id.as_str());
        }
    }
    out.retain(|_, configs| !configs.is_empty());
    out
}

/// The lines `runner plan` prints under its table.
pub fn text(detectability: &Detectability) -> String {
    let mut out = String::new();
    let design = match detectability {
        Detectability::Estimated(design) => design,
        Detectability::NoPreviousRun { repeats, unused } => {
            let _ = write!(out, "\nno previous run to estimate noise from");
            if !unused.is_empty() {
                let why: Vec<String> = unused.iter().map(|(why, n)| format!("{n} {why}")).collect();
                let _ = write!(out, " (runs left out: {})", why.join(", "));
            }
            let _ = writeln!(
                out,
                ": run once, then `runner plan` says what {} can detect",
                plural(*repeats)
            );
            return out;
        }
    };
    let run = &design.last_run;
    let _ = writeln!(
        out,
        "\nwhat a compare can detect, from the repeat noise of the last run {} on this host{}:",
        run.run_id,
        if run.spec_differs {
            " (its spec differs from this one)"
        } else {
            ""
        }
    );
    let mut runtime = None;
    for row in &design.rows {
        if runtime != Some(&row.runtime) {
            let _ = writeln!(out, "  {}", row.runtime);
            runtime = Some(&row.runtime);
        }
        let _ = writeln!(out, "    {}", row_text(row, design));
    }
    let _ = writeln!(
        out,
        "  (one-sided tests at alpha {} / {} tests = {:.2e} each, {:.0}% power, as `runner compare` judges)",
        design.alpha,
        design.tests,
        design.test_alpha,
        design.power * 100.0
    );
    let _ = writeln!(
        out,
        "  (repeat noise only: a compare of two runs also carries each run's own offset, {} throughput and {} p99 \
         until the experiment has 3 comparable runs to estimate it from, which no number of repeats removes; docs/compare.md)",
        percent(DEFAULT_FLOOR.throughput),
        percent(DEFAULT_FLOOR.p99)
    );
    out
}

fn row_text(row: &DesignRow, design: &Design) -> String {
    let metric = match row.metric {
        Metric::Throughput => "throughput",
        Metric::P50 => "p50",
        Metric::P99 => "p99",
    };
    let head = format!("{metric}:");
    let Some(noise) = row.noise else {
        return format!(
            "{head} no repeat noise: the last run has no configuration of it with 2 usable repeats"
        );
    };
    let with = match row.detectable {
        Some(change) => format!(
            "with {} a compare can detect a change of {} in one configuration",
            plural(design.repeats),
            percent(change)
        ),
        None => "with 1 repeat a compare has no repeat-to-repeat variance to judge with".into(),
    };
    let threshold = percent(row.threshold);
    let need = match row.repeats_needed {
        Some(n) if n <= design.repeats => format!("enough to detect {threshold} (>= {n} needed)"),
        Some(n) => format!("to detect {threshold} you need >= {n} repeats per side"),
        None => format!("to detect {threshold} you need more than {MAX_REPEATS} repeats per side"),
    };
    format!("{head} repeat noise {}; {with}; {need}", percent(noise))
}

/// `36%`, `8.5%`, `5%`, `0.4%`: two significant digits, at most one decimal.
fn percent(x: f64) -> String {
    let pct = x * 100.0;
    let text = if pct >= 10.0 {
        format!("{pct:.0}")
    } else {
        format!("{pct:.1}")
    };
    format!("{}%", text.strip_suffix(".0").unwrap_or(&text))
}

/// `1 repeat`, `2 repeats`.
fn plural(repeats: u32) -> String {
    if repeats == 1 {
        "1 repeat".into()
    } else {
        format!("{repeats} repeats")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{CellStatus, MeasurementRow};

    /// Runtimes `a` and `b` over `concurrency: [1, 2]` with `repeats`.
    fn plan(repeats: u32) -> Plan {
        let text = format!(
            "experiment: {{ name: d }}\n\
             runtimes: {{ a: {{ start: ./a }}, b: {{ start: ./b }} }}\n\
             workload: {{ path: / }}\n\
             axes: {{ concurrency: [1, 2] }}\n\
             repeats: {repeats}\n\
             measure: {{ duration: 1s }}\n"
        );
        let loaded = crate::spec::from_text(text, std::path::Path::new("/tmp/d.yaml"))
            .unwrap_or_else(|e| panic!("{e}"));
        crate::plan::build(&loaded, &Default::default()).unwrap_or_else(|e| panic!("{e}"))
    }

    /// `a`'s two configurations in the last run: repeats 100 and 110, 200 and
    /// 220 (throughput and p99 alike); `b` measured once per configuration.
    fn last_run() -> RunRepeats {
        let row = |runtime: &str, c: u32, repeat: u32, value: f64| MeasurementRow {
            cell_id: format!("{runtime}/concurrency={c}/r{repeat}"),
            config_id: format!("{runtime}/concurrency={c}"),
            runtime: runtime.into(),
            repeat,
            throughput_rps: value,
            latency_p50_ms: value,
            latency_p99_ms: value,
            status: CellStatus::Ok,
            ..Default::default()
        };
        run_repeats(&[
            row("a", 1, 1, 100.0),
            row("a", 1, 2, 110.0),
            row("a", 2, 1, 200.0),
            row("a", 2, 2, 220.0),
            row("b", 1, 1, 100.0),
            row("b", 2, 1, 100.0),
        ])
    }

    fn last() -> LastRun {
        LastRun {
            run_id: "r0".into(),
            dir: "/results/d/r0".into(),
            spec_differs: false,
        }
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn the_figures_worked_by_hand() {
        let design = figures(&plan(2), &last_run(), last());
        // 2 runtimes x 2 configurations x (throughput, p99).
        assert_eq!(design.tests, 8);
        assert!(close(design.test_alpha, 0.01 / 8.0, 1e-15));
        let a = &design.rows[0];
        assert_eq!((a.runtime.as_str(), a.metric), ("a", Metric::Throughput));
        // Each configuration: logs differ by ln 1.1 = 0.09531, variance
        // 0.09531^2 / 2 = 0.004542 (df 1); pooled over both: the same, df 2.
        let var = 1.1f64.ln().powi(2) / 2.0;
        assert!(close(a.noise.unwrap(), var.sqrt().exp_m1(), 1e-12));
        // 2 repeats per side: se = sqrt(2 var / 2) = 0.06739, df = 2 x 1 x 2 = 4;
        // t(1 - 0.00125, 4) = 6.758 and t(0.8, 4) = 0.941 (the t density with
        // 4 df, 0.375 (1 + t^2/4)^-2.5, integrated by hand in Python):
        // exp((6.758 + 0.941) x 0.06739) - 1 = 0.680.
        assert!(close(a.detectable.unwrap(), 0.680, 0.001), "{a:?}");
        assert_eq!(a.threshold, 0.05);
        assert_eq!(design.rows[1].metric, Metric::P99);
        assert_eq!(design.rows[1].threshold, 0.10);
        let b = &design.rows[2];
        assert_eq!(b.runtime, "b");
        assert!(
            b.noise.is_none() && b.detectable.is_none() && b.repeats_needed.is_none(),
            "one repeat per configuration: no noise to go by: {b:?}"
        );
    }

    #[test]
    fn more_repeats_detect_less_and_the_needed_count_is_where_the_threshold_is_reached() {
        // p99 (threshold 10%): a's 7% noise needs a number of repeats within reach.
        let p99 = |design: &Design| design.rows[1].clone();
        let two = figures(&plan(2), &last_run(), last());
        let needed = p99(&two).repeats_needed.expect("reachable within 50");
        let at_needed = figures(&plan(needed), &last_run(), last());
        let one_less = figures(&plan(needed - 1), &last_run(), last());
        assert!(p99(&at_needed).detectable.unwrap() <= 0.10, "{at_needed:?}");
        assert!(p99(&one_less).detectable.unwrap() > 0.10, "{one_less:?}");
        assert!(p99(&two).detectable > p99(&at_needed).detectable);
        let text = text(&Detectability::Estimated(at_needed));
        assert!(
            text.contains(&format!("enough to detect 10% (>= {needed} needed)")),
            "{text}"
        );
    }

    #[test]
    fn the_text_says_what_two_repeats_detect_and_what_one_cannot() {
        let text_of = |repeats| {
            let design = figures(&plan(repeats), &last_run(), last());
            text(&Detectability::Estimated(design))
        };
        let two = text_of(2);
        let a = "last run r0 on this host:\n  a\n    \
            throughput: repeat noise 7%; with 2 repeats a compare can detect a change of 68% in one configuration; \
            to detect 5% you need more than 50 repeats per side\n    \
            p99: repeat noise 7%; with 2 repeats a compare can detect a change of 68% in one configuration; \
            to detect 10% you need >= 17 repeats per side\n";
        assert!(two.contains(a), "{two}");
        let b = "  b\n    throughput: no repeat noise: the last run has no configuration of it with 2 usable repeats\n";
        assert!(two.contains(b), "{two}");
        let rule = "alpha 0.01 / 8 tests = 1.25e-3 each, 80% power";
        assert!(two.contains(rule), "{two}");
        let one = text_of(1);
        let p99 = "p99: repeat noise 7%; with 1 repeat a compare has no repeat-to-repeat variance to judge with; \
            to detect 10% you need >= 17 repeats per side";
        assert!(one.contains(p99), "{one}");
    }

    #[test]
    fn without_a_previous_run_it_says_how_to_get_one() {
        let none = Detectability::NoPreviousRun {
            repeats: 2,
            unused: UnusedRuns::new(),
        };
        assert_eq!(
            text(&none),
            "\nno previous run to estimate noise from: run once, then `runner plan` says what 2 repeats can detect\n"
        );
        assert!(none.design().is_none());
        let some_left_out = Detectability::NoPreviousRun {
            repeats: 1,
            unused: UnusedRuns::from([
                (super::super::last_run::Unused::NotComplete, 2),
                (super::super::last_run::Unused::OtherHost, 1),
            ]),
        };
        assert!(
            text(&some_left_out).contains(
                "(runs left out: 2 not complete, 1 from another host): run once, then `runner plan` says what 1 repeat can detect"
            ),
            "{}",
            text(&some_left_out)
        );
    }

    #[test]
    fn percentages_keep_two_significant_digits() {
        assert_eq!(percent(0.3636), "36%");
        assert_eq!(percent(0.05), "5%");
        assert_eq!(percent(0.0849), "8.5%");
        assert_eq!(percent(0.064), "6.4%");
        assert_eq!(percent(1.92), "192%");
    }
}
