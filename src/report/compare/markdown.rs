//! The Markdown rendering of a comparison: the verdict first, then one row
//! per matched configuration with both metrics.
use super::super::format;
use super::judge::{Judged, Verdict};
use super::{CellChange, Comparison};

fn opt(v: Option<f64>, f: fn(f64) -> String) -> String {
    v.map_or_else(|| format::MISSING.to_string(), f)
}

/// A regression is bold, so it stands out in a long table.
fn verdict(v: Verdict) -> String {
    if v.is_regression() {
        format!("**{}**", v.label())
    } else {
        v.label().to_string()
    }
}

/// `A -> B (change, p) verdict` cells of one metric.
fn metric_columns(j: &Judged, value: fn(f64) -> String) -> [String; 5] {
    [
        opt(j.a_median, value),
        opt(j.b_median, value),
        opt(j.change, |v| format::pct(v, 1, true)),
        opt(j.p_value, |p| format!("{p:.4}")),
        verdict(j.verdict),
    ]
}

fn row(cell: &CellChange) -> String {
    let mut cols = vec![format!("`{}`", cell.config_id)];
    cols.extend(metric_columns(&cell.throughput, format::rps));
    cols.extend(metric_columns(&cell.p99, format::ms));
    cols.push(format!(
        "{}+{} per {}",
        cell.a_samples,
        cell.b_samples,
        cell.sample_kind.as_str()
    ));
    format!("| {} |\n", cols.join(" | "))
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
    out.push_str(&format!(
        "**Verdict: {} significant regression(s)** over {} matched configurations: \
         {} in throughput (threshold {}), {} in p99 latency (threshold {}); \
         {} throughput and {} p99 improvement(s).\n\n",
        c.regressions,
        c.cells.len(),
        c.throughput_regressions,
        format::pct(c.threshold, 1, false),
        c.latency_regressions,
        format::pct(c.latency_threshold, 1, false),
        c.improvements,
        c.latency_improvements,
    ));
    out.push_str(&format!(
        "A change is significant when a two-sided Mann-Whitney U test over the per-second samples \
         (successful requests, p99) gives p < {} and the min-max ranges of the repeats do not \
         overlap; it is flagged when it is also at least the threshold in the worse direction \
         (less throughput, more latency).\n\n",
        c.alpha
    ));
    out.push_str(
        "| configuration | A req/s | B req/s | change | p | throughput verdict \
         | A p99 | B p99 | change | p | p99 verdict | samples |\n",
    );
    out.push_str("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---:|\n");
    for cell in &c.cells {
        out.push_str(&row(cell));
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
