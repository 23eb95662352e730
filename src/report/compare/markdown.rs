//! The Markdown rendering of a comparison: the outcome first, then what the
//! design could detect, then one row per matched configuration with the
//! ratio and interval of each metric.
use super::{CellChange, Comparison, DesignRow, Outcome};
use crate::report::analysis::format;
use crate::stats::{Better, Judged, Metric, Verdict};

fn opt(v: Option<f64>, f: fn(f64) -> String) -> String {
    v.map_or_else(|| format::MISSING.to_string(), f)
}

/// A regression is bold, so it stands out in a long table; a verdict that
/// could not tell says why on its line, from the design row of its runtime
/// and metric (docs/compare.md has the rule; the line says what would
/// settle the question): the run-level noise alone reaching the threshold
/// (more repeats cannot help, more runs of history can), or repeats too few
/// for their noise.
fn verdict(j: &Judged, design: Option<&DesignRow>, floor: bool) -> String {
    let v = j.verdict;
    if v.is_regression() {
        return format!("**{}**", v.label());
    }
    match (v, design) {
        (Verdict::Inconclusive, Some(d)) => {
            let size = match d.metric.better() {
                Better::Higher => format!("a {} loss", format::pct(d.threshold, 1, false)),
                Better::Lower => format!("a {} increase", format::pct(d.threshold, 1, false)),
            };
            let why = if d.limited_by_runs {
                format!(
                    "the run-level noise ({} per run{}) alone reaches it: more runs of history \
                     would settle it, more repeats would not",
                    opt(d.run_noise, |v| format::pct(v, 1, false)),
                    if floor { ", the stated floor" } else { "" }
                )
            } else {
                match d.repeats_needed {
                    Some(n) => format!("too few repeats for their noise (need >= {n} per side)"),
                    None => format!(
                        "too few repeats for their noise (more than {} per side)",
                        crate::stats::MAX_REPEATS
                    ),
                }
            };
            format!("inconclusive: the interval still reaches {size}; {why}")
        }
        (Verdict::Insufficient, _) if j.a_repeats == 0 || j.b_repeats == 0 => {
            "insufficient data: no usable repeat on a side".to_string()
        }
        (Verdict::Insufficient, _) => {
            "insufficient data: no noise estimate (one repeat on each side)".to_string()
        }
        _ => v.label().to_string(),
    }
}

/// `0.81 [0.77, 0.85]`: the ratio B/A and its 95% interval.
fn ratio(j: &Judged) -> String {
    j.effect.map_or_else(
        || format::MISSING.to_string(),
        |e| format!("{:.3} [{:.3}, {:.3}]", e.ratio, e.lo, e.hi),
    )
}

/// `A -> B, ratio [CI], p, verdict` cells of one judged metric.
fn metric_columns(
    j: &Judged,
    design: Option<&DesignRow>,
    floor: bool,
    value: fn(f64) -> String,
) -> [String; 5] {
    [
        opt(j.a_mean, value),
        opt(j.b_mean, value),
        ratio(j),
        opt(j.p_worse, |p| format!("{p:.4}")),
        verdict(j, design, floor),
    ]
}

fn row(c: &Comparison, cell: &CellChange) -> String {
    let design = |metric: Metric| {
        c.design
            .iter()
            .find(|d| d.runtime == cell.runtime && d.metric == metric)
    };
    let floor = c.run_level.history_runs < 3;
    let mut cols = vec![format!("`{}`", cell.config_id)];
    cols.extend(metric_columns(
        &cell.throughput,
        design(Metric::Throughput),
        floor,
        format::rps,
    ));
    cols.extend(metric_columns(
        &cell.p99,
        design(Metric::P99),
        floor,
        format::ms,
    ));
    cols.push(ratio(&cell.p50));
    cols.push(format!(
        "{}+{}",
        cell.throughput.a_repeats, cell.throughput.b_repeats
    ));
    format!("| {} |\n", cols.join(" | "))
}

fn headline(c: &Comparison) -> String {
    let counts = format!(
        "{} in throughput (threshold {}), {} in p99 latency (threshold {}); \
         {} throughput and {} p99 improvement(s)",
        c.throughput_regressions,
        format::pct(c.threshold, 1, false),
        c.latency_regressions,
        c.latency_threshold.map_or_else(
            || "off: not judged".to_string(),
            |t| format::pct(t, 1, false)
        ),
        c.improvements,
        c.latency_improvements,
    );
    match c.outcome {
        Outcome::Regression => format!(
            "**Verdict: REGRESSION: {} configuration(s) regressed** of {} matched: {counts}.",
            c.regressions,
            c.cells.len()
        ),
        Outcome::NoRegression => format!(
            "**Verdict: no regression** over {} matched configurations, each interval ruling \
             out a loss of the threshold's size: {counts}.",
            c.cells.len()
        ),
        Outcome::Inconclusive if c.cells.is_empty() => "**Verdict: INCONCLUSIVE: no \
             configuration was measured on both sides**, so nothing could be compared (a first \
             run has no history to be judged against; the configurations of each side alone are \
             listed below)."
            .to_string(),
        Outcome::Inconclusive => format!(
            "**Verdict: INCONCLUSIVE: no regression found, but {} of {} configurations \
             cannot be told** (their intervals still reach a loss of the threshold's size: \
             the repeats are too few or too noisy, or the run-level noise too large; see the \
             design table): {counts}.",
            c.inconclusive,
            c.cells.len()
        ),
    }
}

fn design_row(d: &DesignRow) -> String {
    let need = match (d.detectable, d.repeats_needed) {
        (Some(det), _) if det <= d.threshold => "enough".to_string(),
        (Some(_), _) if d.limited_by_runs => format!(
            "not by repeats: a run-level noise of {} per run hides it (estimated from 3+ runs of history, it may be smaller)",
            opt(d.run_noise, |v| format::pct(v, 1, false))
        ),
        (Some(_), Some(n)) => format!("need >= {n} per side"),
        (Some(_), None) => format!("more than {} per side", crate::stats::MAX_REPEATS),
        (None, _) => "no noise estimate (one repeat?)".to_string(),
    };
    let metric = match d.metric {
        Metric::Throughput => "throughput",
        Metric::P50 => "p50",
        Metric::P99 => "p99",
    };
    // The direction of "worse": a throughput loss (at most 100%), a
    // latency increase (any size).
    let worse = |v: f64| match d.metric.better() {
        Better::Higher => format!("-{}", format::pct(v, 1, false)),
        Better::Lower => format!("+{}", format::pct(v, 1, false)),
    };
    format!(
        "| {} | {metric} | {} | {} | {}+{} | {} | {} | {need} |\n",
        d.runtime,
        opt(d.a_noise, |v| format::pct(v, 1, false)),
        opt(d.b_noise, |v| format::pct(v, 1, false)),
        d.a_repeats,
        d.b_repeats,
        d.detectable
            .map_or_else(|| format::MISSING.to_string(), worse),
        worse(d.threshold),
    )
}

/// Where the run-level noise came from, in words.
fn run_level_sentence(c: &Comparison) -> String {
    let floor = &c.run_level.floor;
    if c.within_run {
        "none: both sides were measured in the same run, repeat beside repeat, so what moves \
         the host between runs moves both"
            .to_string()
    } else if c.run_level.history_runs >= 3 {
        format!(
            "estimated from {} comparable runs of the baseline's experiment (the floor, {} \
             throughput and {} p99, where a runtime has fewer than 3)",
            c.run_level.history_runs,
            format::pct(floor.throughput, 1, false),
            format::pct(floor.p99, 1, false)
        )
    } else {
        format!(
            "with fewer than 3 comparable runs to estimate it from, the stated floor of {} \
             (throughput) and {} (p99) per run (`--run-noise`, `--latency-run-noise`)",
            format::pct(floor.throughput, 1, false),
            format::pct(floor.p99, 1, false)
        )
    }
}

/// One line per configuration and metric with an outlier repeat on a side.
fn outlier_lines(c: &Comparison) -> String {
    let mut out = String::new();
    for cell in &c.cells {
        for (name, j) in [("throughput", &cell.throughput), ("p99", &cell.p99)] {
            for (side, repeats) in [("A", &j.a_outliers), ("B", &j.b_outliers)] {
                if !repeats.is_empty() {
                    let list: Vec<String> = repeats.iter().map(|r| format!("r{r}")).collect();
                    out.push_str(&format!(
                        "- `{}` {name}, {side}: {}\n",
                        cell.config_id,
                        list.join(", ")
                    ));
                }
            }
        }
    }
    out
}

pub fn markdown(c: &Comparison) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "# Comparison: {} -> {}\n\nA: `{}` (run {})  \nB: `{}` (run {})\n\n",
        c.a.run_id, c.b.run_id, c.a.dir, c.a.run_id, c.b.dir, c.b.run_id
    ));
    if !c.differences.is_empty() {
        out.push_str(
            "> **WARNING: these runs are not comparable** (compared anyway with --force):\n",
        );
        for d in &c.differences {
            out.push_str(&format!("> - {d}\n"));
        }
        out.push('\n');
    }
    out.push_str(&headline(c));
    out.push_str("\n\n");
    out.push_str(&format!(
        "Each repeat is one observation. A ratio is B/A of the geometric means of the repeats, \
         with a 95% t interval (not adjusted for the family) whose variance adds each \
         configuration's repeat noise (its own, moderated toward its runtime's) and the \
         run-level noise of each side: {}. Throughput and p99 of every configuration are one \
         family of {} tests, Holm-adjusted so that an unchanged system is flagged anywhere with \
         probability at most {}; a regression is significant after adjustment with an interval \
         that reaches the threshold. A test is `unchanged` only when its interval includes no \
         change and rules out a threshold-sized loss; `inconclusive` when the interval still \
         reaches one. p50 is shown, not judged (and throughput in open loop). See \
         docs/compare.md.\n\n",
        run_level_sentence(c),
        c.tests,
        c.alpha
    ));
    let outliers = outlier_lines(c);
    if !outliers.is_empty() {
        out.push_str("Outlier repeats (kept in every figure; 1-based, in run order):\n\n");
        out.push_str(&outliers);
        out.push('\n');
    }
    out.push_str("## What this design can detect\n\n");
    out.push_str(
        "| runtime | metric | A noise | B noise | repeats | detectable change | threshold | to detect the threshold |\n",
    );
    out.push_str("|---|---|---:|---:|---:|---:|---:|---|\n");
    for d in &c.design {
        out.push_str(&design_row(d));
    }
    out.push_str("\n## Configurations\n\n");
    out.push_str(
        "| configuration | A req/s | B req/s | ratio [95% CI] | p worse (Holm) | throughput verdict \
         | A p99 | B p99 | ratio [95% CI] | p worse (Holm) | p99 verdict | p50 ratio [95% CI] | repeats |\n",
    );
    out.push_str("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---:|---:|\n");
    for cell in &c.cells {
        out.push_str(&row(c, cell));
    }
    for (label, ids) in [("only in A", &c.only_in_a), ("only in B", &c.only_in_b)] {
        if !ids.is_empty() {
            out.push_str(&format!("\nConfigurations {label} (not compared): "));
            out.push_str(
                &ids.iter()
                    .map(|i| format!("`{i}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
            );
            out.push('\n');
        }
    }
    out
}
