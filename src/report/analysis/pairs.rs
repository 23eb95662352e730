//! The run-level effect of one runtime over another: what a reader asks
//! first ("is Leyden faster than the JVM here?"), which cell-by-cell wins
//! answer badly. A lead of 5% in every cell of a noisy run is a tie in most
//! of them, yet it is consistent; this puts a number and an interval on it.
//!
//! For each unordered pair of runtimes (A before B in spec order) and each
//! of throughput and p99, over the cells (points of the axes) both ran:
//! - the **ratio B/A** is the geometric mean of the cells' ratios (each cell's
//!   ratio is of the geometric means of its repeats);
//! - its **95% interval** is a t interval over the cells' log ratios, with the
//!   cell as the unit (n - 1 degrees of freedom). The question is whether the
//!   lead is consistent across conditions, so the conditions are the sample;
//!   the repeat-to-repeat noise of each cell is already inside its ratio,
//!   and adds to the spread between cells. It needs no noise estimate, so
//!   it exists with one repeat per cell too;
//! - the **counts**: cells where A is ahead, B is ahead (the cell's own 95%
//!   interval of B/A, from the repeats as in the win rule, lies wholly on one
//!   side of 1), and ties (the interval includes 1, or there is no noise
//!   estimate).
use serde::Serialize;

use crate::report::analysis::wins::{LEVEL, RATIO_DECIMALS};
use crate::stats::effect::{Effect, PooledVariance, log_mean, t_quantile};
use crate::stats::spread::round_to;
use crate::stats::{Ahead, Better, ConfigRepeats, Metric, RunNoise, RunRepeats};

/// The pair effect's method, quoted in reports.
pub const PAIR_RULE: &str = "For each pair of runtimes, over the cells both ran: the ratio B/A is the \
geometric mean of the cells' ratios (each of the geometric means of the repeats), with a 95% t interval \
over the cells' log ratios (the cell is the unit: the question is whether a lead holds across \
conditions, and each cell's repeat noise is already inside its ratio). A cell counts for a runtime when \
the cell's own 95% interval, from the repeats, lies entirely on its side of 1 (higher throughput, lower \
p99); otherwise it is a tie. Descriptive: the intervals are 95%, not adjusted across pairs or cells.";

/// What a pair without any cell in common says.
const NO_COMMON_CELL: &str = "no cell measured by both";

/// One metric of one pair over the cells both runtimes ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairMetric {
    pub metric: Metric,
    /// Cells where both runtimes have a usable repeat.
    pub cells: usize,
    /// Geometric mean of the cell ratios B/A (to 4 decimals, as written;
    /// the sentence shows 3); none without a common cell.
    pub ratio: Option<f64>,
    /// Its 95% interval over the cells; none with fewer than 2 cells.
    pub ratio_lo: Option<f64>,
    pub ratio_hi: Option<f64>,
    /// Cells where A, resp. B, is better beyond the cell's 95% interval.
    pub a_ahead: usize,
    pub b_ahead: usize,
    pub ties: usize,
    /// `x1.067 [1.041, 1.094] over 28 cells (B ahead in 20, A in 1, 7 ties)`
    /// ("lower" instead of "ahead" for p99).
    pub sentence: String,
}

/// The effect of runtime `b` over runtime `a` (a before b in spec order).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairEffect {
    pub a: String,
    pub b: String,
    pub throughput: PairMetric,
    pub p99: PairMetric,
    /// `B vs A: throughput <its sentence>; p99 <its sentence>`.
    pub sentence: String,
}

/// One row of pairs.csv: one pair and metric.
#[derive(Debug, Serialize)]
pub struct PairRecord<'a> {
    a: &'a str,
    b: &'a str,
    metric: Metric,
    cells: usize,
    ratio: Option<f64>,
    ratio_lo: Option<f64>,
    ratio_hi: Option<f64>,
    a_ahead: usize,
    b_ahead: usize,
    ties: usize,
}

impl PairEffect {
    /// The rows of pairs.csv: throughput, then p99.
    pub fn records(&self) -> [PairRecord<'_>; 2] {
        [&self.throughput, &self.p99].map(|m| PairRecord {
            a: &self.a,
            b: &self.b,
            metric: m.metric,
            cells: m.cells,
            ratio: m.ratio,
            ratio_lo: m.ratio_lo,
            ratio_hi: m.ratio_hi,
            a_ahead: m.a_ahead,
            b_ahead: m.b_ahead,
            ties: m.ties,
        })
    }
}

/// Every unordered pair of `runtimes`, in their order.
pub fn pairs(runtimes: &[String], repeats: &RunRepeats, noise: &RunNoise) -> Vec<PairEffect> {
    let mut out = Vec::new();
    for (i, a) in runtimes.iter().enumerate() {
        for b in &runtimes[i + 1..] {
            let cells = common_cells(repeats, a, b);
            let [throughput, p99] = [Metric::Throughput, Metric::P99]
                .map(|metric| pair_metric(metric, a, b, &cells, noise));
            out.push(PairEffect {
                sentence: pair_sentence(a, b, &throughput, &p99),
                a: a.clone(),
                b: b.clone(),
                throughput,
                p99,
            });
        }
    }
    out
}

/// The configurations of `a` and `b` at each point of the axes both ran, in run order.
fn common_cells<'r>(
    repeats: &'r RunRepeats,
    a: &str,
    b: &str,
) -> Vec<(&'r ConfigRepeats, &'r ConfigRepeats)> {
    repeats
        .values()
        .filter(|ca| ca.runtime == a)
        .filter_map(|ca| {
            let cb = repeats
                .values()
                .find(|cb| cb.runtime == b && cb.axes == ca.axes)?;
            Some((ca, cb))
        })
        .collect()
}

/// Which side a cell's own interval puts ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CellLead {
    A,
    B,
    Tie,
}

fn pair_metric(
    metric: Metric,
    a: &str,
    b: &str,
    cells: &[(&ConfigRepeats, &ConfigRepeats)],
    noise: &RunNoise,
) -> PairMetric {
    let values = cells.iter().map(|(ca, cb)| (ca.of(metric), cb.of(metric)));
    let noise = (noise.get(a, metric), noise.get(b, metric));
    let f = pair_figures(values, noise, metric.better());
    PairMetric {
        metric,
        cells: f.cells,
        ratio: f.ratio,
        ratio_lo: f.ratio_lo,
        ratio_hi: f.ratio_hi,
        a_ahead: f.a_ahead,
        b_ahead: f.b_ahead,
        ties: f.ties,
        sentence: f.sentence(a, b, metric.better(), NO_COMMON_CELL),
    }
}

/// One pair's figures on one measure: what [`PairMetric`] and the
/// efficiency pairs (`crate::report::analysis::efficiency`) are made of.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct PairFigures {
    pub cells: usize,
    pub ratio: Option<f64>,
    pub ratio_lo: Option<f64>,
    pub ratio_hi: Option<f64>,
    pub a_ahead: usize,
    pub b_ahead: usize,
    pub ties: usize,
}

/// The pair rule ([`PAIR_RULE`]) over the repeats of A and B at each point
/// both ran, given each runtime's pooled between-repeat noise.
pub(super) fn pair_figures<'v>(
    cells: impl IntoIterator<Item = (&'v [f64], &'v [f64])>,
    (na, nb): (Option<PooledVariance>, Option<PooledVariance>),
    better: Better,
) -> PairFigures {
    let mut log_ratios = Vec::new();
    let mut leads = Vec::new();
    for (va, vb) in cells {
        let (Some(la), Some(lb)) = (log_mean(va), log_mean(vb)) else {
            continue;
        };
        log_ratios.push(lb - la);
        let effect = match (na, nb) {
            (Some(pa), Some(pb)) => Effect::between(va, pa, vb, pb, LEVEL),
            _ => None,
        };
        leads.push(cell_lead(better, effect));
    }
    let count = |side: CellLead| leads.iter().filter(|l| **l == side).count();
    let (ratio, interval) = mean_with_interval(&log_ratios);
    let round = |v: f64| round_to(v, RATIO_DECIMALS);
    PairFigures {
        cells: log_ratios.len(),
        ratio: ratio.map(round),
        ratio_lo: interval.map(|(lo, _)| round(lo)),
        ratio_hi: interval.map(|(_, hi)| round(hi)),
        a_ahead: count(CellLead::A),
        b_ahead: count(CellLead::B),
        ties: count(CellLead::Tie),
    }
}

fn cell_lead(better: Better, effect: Option<Effect>) -> CellLead {
    let Some(e) = effect else {
        return CellLead::Tie;
    };
    match better.ahead(e.lo, e.hi) {
        Ahead::A => CellLead::A,
        Ahead::B => CellLead::B,
        Ahead::Neither => CellLead::Tie,
    }
}

/// The geometric mean of the ratios whose logs are given, and its 95% t
/// interval (n - 1 df) when there are at least two.
fn mean_with_interval(logs: &[f64]) -> (Option<f64>, Option<(f64, f64)>) {
    let n = logs.len();
    if n == 0 {
        return (None, None);
    }
    let mean = logs.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return (Some(mean.exp()), None);
    }
    let var = logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let half = t_quantile(0.5 + LEVEL / 2.0, (n - 1) as f64) * (var / n as f64).sqrt();
    (
        Some(mean.exp()),
        Some(((mean - half).exp(), (mean + half).exp())),
    )
}

impl PairFigures {
    /// `x1.067 [1.041, 1.094] over 28 cells (b ahead in 20, a in 1, 7 ties)`
    /// ("lower" for a measure where lower is better); `none` without a
    /// common cell.
    pub(super) fn sentence(&self, a: &str, b: &str, better: Better, none: &str) -> String {
        let Some(ratio) = self.ratio else {
            return none.to_string();
        };
        let interval = match (self.ratio_lo, self.ratio_hi) {
            (Some(lo), Some(hi)) => format!(" [{lo:.3}, {hi:.3}]"),
            _ => String::new(),
        };
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let ahead = match better {
            Better::Higher => "ahead",
            Better::Lower => "lower",
        };
        format!(
            "x{ratio:.3}{interval} over {} ({b} {ahead} in {}, {a} in {}, {})",
            plural(self.cells, "cell"),
            self.b_ahead,
            self.a_ahead,
            plural(self.ties, "tie"),
        )
    }
}

/// `b vs a: throughput <sentence>; p99 <sentence>`.
fn pair_sentence(a: &str, b: &str, throughput: &PairMetric, p99: &PairMetric) -> String {
    if throughput.cells == 0 {
        return format!("{b} vs {a}: {NO_COMMON_CELL}");
    }
    format!(
        "{b} vs {a}: throughput {}; p99 {}",
        throughput.sentence, p99.sentence
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::analysis::cells::tests::row;
    use crate::results::CellStatus::Ok;
    use crate::results::MeasurementRow;
    use crate::stats::run_repeats;

    /// Two repeats of `go` and `java` at `axes`, with p99 = 1000 / req/s.
    fn cell(axes: &str, go: [f64; 2], java: [f64; 2]) -> Vec<MeasurementRow> {
        let mut rows = Vec::new();
        for (rt, rps) in [("go", go), ("java", java)] {
            for (i, v) in rps.iter().enumerate() {
                let mut r = row(rt, axes, i as u32 + 1, *v, Ok);
                r.latency_p99_ms = 1000.0 / v;
                rows.push(r);
            }
        }
        rows
    }

    #[test]
    fn the_pair_effect_worked_by_hand_on_three_cells() {
        // Cell ratios java/go: 1.10 (clear), 1.02 (inside the noise), 0.90 (clear the other way).
        // Each side repeats at +-1% around its level: ln-variance pooled over
        // the three cells = ln(1.01/0.99)^2 / 2 = 2.0002e-4 per runtime, df 3.
        let mut rows = cell("c=1", [99.0, 101.0], [108.9, 111.1]);
        rows.extend(cell("c=2", [99.0, 101.0], [100.98, 103.02]));
        rows.extend(cell("c=3", [99.0, 101.0], [89.1, 90.9]));
        let repeats = run_repeats(&rows);
        let noise = RunNoise::of(&repeats);
        let p = pairs(&["go".into(), "java".into()], &repeats, &noise);
        assert_eq!(p.len(), 1);
        let t = &p[0].throughput;
        assert_eq!(
            (p[0].a.as_str(), p[0].b.as_str(), t.cells),
            ("go", "java", 3)
        );
        // Log ratios ln 1.10, ln 1.02, ln 0.90 = 0.09531, 0.01980, -0.10536:
        // mean 0.0032508 (ratio 1.003256), SD 0.101354, se 0.058517,
        // t(0.975, 2) = 4.302653: half-width 0.251777 -> [0.77995, 1.29050],
        // written to 4 decimals.
        assert_eq!(
            (t.ratio, t.ratio_lo, t.ratio_hi),
            (Some(1.0033), Some(0.7799), Some(1.2905)),
            "{t:?}"
        );
        // Per cell: se = sqrt(2 * 2.0002e-4 / 2) = 0.014143 on 6 df, t = 2.4469,
        // half-width 0.034607: c=2's ln 1.02 = 0.0198 is inside it.
        assert_eq!((t.b_ahead, t.a_ahead, t.ties), (1, 1, 1));
        assert_eq!(
            t.sentence,
            "x1.003 [0.780, 1.290] over 3 cells (java ahead in 1, go in 1, 1 tie)"
        );
        // p99 is the mirror image (lower is better): the same cells each way.
        let q = &p[0].p99;
        // 1 / 1.003256 = 0.996755; 1 / 1.29050 = 0.77490; 1 / 0.77995 = 1.28213.
        assert_eq!(
            (q.ratio, q.ratio_lo, q.ratio_hi),
            (Some(0.9968), Some(0.7749), Some(1.2821)),
            "{q:?}"
        );
        assert_eq!((q.b_ahead, q.a_ahead, q.ties), (1, 1, 1));
        assert!(
            q.sentence
                .starts_with("x0.997 [0.775, 1.282] over 3 cells (java lower in 1")
        );
        assert!(
            p[0].sentence
                .starts_with("java vs go: throughput x1.003 [0.780, 1.290] over 3 cells")
                && p[0]
                    .sentence
                    .contains("; p99 x0.997 [0.775, 1.282] over 3 cells (java lower"),
            "{}",
            p[0].sentence
        );
    }

    #[test]
    fn one_repeat_still_gives_a_run_level_interval_but_no_cell_verdicts() {
        let rows: Vec<MeasurementRow> = [(100.0, 110.0), (200.0, 216.0), (50.0, 56.0)]
            .iter()
            .enumerate()
            .flat_map(|(i, (go, java))| {
                let axes = format!("c={i}");
                [
                    row("go", &axes, 1, *go, Ok),
                    row("java", &axes, 1, *java, Ok),
                ]
            })
            .collect();
        let repeats = run_repeats(&rows);
        let p = pairs(
            &["go".into(), "java".into()],
            &repeats,
            &RunNoise::of(&repeats),
        );
        let t = &p[0].throughput;
        assert!(t.ratio_lo.unwrap() > 1.0, "a consistent 8-12% lead: {t:?}");
        assert_eq!((t.b_ahead, t.a_ahead, t.ties), (0, 0, 3));
    }

    #[test]
    fn cells_only_one_runtime_ran_are_left_out_and_no_common_cell_says_so() {
        let mut rows = cell("c=1", [100.0, 101.0], [110.0, 111.0]);
        rows.push(row("go", "c=2", 1, 100.0, Ok));
        rows.push(row("rust", "c=3", 1, 100.0, Ok));
        let repeats = run_repeats(&rows);
        let runtimes = ["go".into(), "java".into(), "rust".into()];
        let p = pairs(&runtimes, &repeats, &RunNoise::of(&repeats));
        let names: Vec<(&str, &str)> = p.iter().map(|e| (e.a.as_str(), e.b.as_str())).collect();
        assert_eq!(names, [("go", "java"), ("go", "rust"), ("java", "rust")]);
        assert_eq!(p[0].throughput.cells, 1);
        assert_eq!(p[0].throughput.ratio_lo, None, "one cell: no interval");
        assert!(p[0].throughput.sentence.contains("over 1 cell ("));
        assert_eq!(p[1].throughput.cells, 0);
        assert_eq!(p[1].sentence, "rust vs go: no cell measured by both");
    }
}
