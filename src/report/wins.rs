//! Who won each point of the axes, with the tie rule: a leader within the
//! noise of another runtime has not won.
use serde::{Serialize, Serializer};

use super::stats::{Spread, round_to};
use super::summary::{CellSummary, by_axes};

/// With a single usable repeat the noise is unknown: below this relative
/// difference the leader is called a tie.
pub const SINGLE_REPEAT_TIE: f64 = 0.05;

/// The tie rule, quoted in reports so that readers know what "tie" means.
pub const TIE_RULE: &str = "A cell is won by the runtime with the highest median throughput over its repeats. \
It is a tie instead when the leader is within the noise of another runtime: their min-max ranges over \
repeats overlap, or their medians differ by less than the wider of the two ranges; with a single usable \
repeat on either side (noise unknown), when the medians differ by less than 5%.";

/// The outcome of one point of the axes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Win {
    /// Won outright by this runtime (the leader).
    Runtime(String),
    /// Nobody won: the leader and every runtime within its noise, in order
    /// of median throughput (the leader first).
    Tie(Vec<String>),
}

impl Win {
    /// Whether `runtime` won outright.
    pub fn won_by(&self, runtime: &str) -> bool {
        matches!(self, Win::Runtime(winner) if winner == runtime)
    }

    /// Whether `runtime` is one of the tied runtimes.
    pub fn tied(&self, runtime: &str) -> bool {
        matches!(self, Win::Tie(tied) if tied.iter().any(|t| t == runtime))
    }
}

/// Who won one point of the axes. Written (wins.csv, the templates' `wins`)
/// with the win as text: `winner` (the runtime, or `tie`) and `tied_with`
/// (the tied runtimes other than the leader, joined with `;`).
#[derive(Debug, Clone)]
pub struct WinRow {
    pub axes: String,
    pub payload: Option<i64>,
    pub concurrency: Option<i64>,
    pub win: Win,
    /// Highest median throughput, whether or not it won outright.
    pub leader: String,
    pub leader_rps: f64,
    pub runner_up: String,
    /// Leader over runner-up, in percent.
    pub margin_pct: Option<f64>,
    /// Which part of the tie rule decided.
    pub rule: String,
}

/// The columns of wins.csv, in order: the edge where a [`Win`] becomes text.
#[derive(Serialize)]
struct WinRecord<'a> {
    axes: &'a str,
    payload: Option<i64>,
    concurrency: Option<i64>,
    winner: &'a str,
    leader: &'a str,
    leader_rps: f64,
    tied_with: String,
    runner_up: &'a str,
    margin_pct: Option<f64>,
    rule: &'a str,
}

impl Serialize for WinRow {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (winner, tied_with) = match &self.win {
            Win::Runtime(runtime) => (runtime.as_str(), String::new()),
            Win::Tie(tied) => {
                let others: Vec<&str> = tied
                    .iter()
                    .map(String::as_str)
                    .filter(|t| *t != self.leader)
                    .collect();
                ("tie", others.join(";"))
            }
        };
        WinRecord {
            axes: &self.axes,
            payload: self.payload,
            concurrency: self.concurrency,
            winner,
            leader: &self.leader,
            leader_rps: self.leader_rps,
            tied_with,
            runner_up: &self.runner_up,
            margin_pct: self.margin_pct,
            rule: &self.rule,
        }
        .serialize(serializer)
    }
}

/// Outright wins and ties per runtime.
#[derive(Debug, Clone, Serialize)]
pub struct WinCount {
    pub runtime: String,
    pub wins: usize,
    pub ties: usize,
}

/// Whether `other` is within the noise of `leader`, and which part of the
/// rule said so. See [`TIE_RULE`].
pub fn within_noise(leader: &Spread, other: &Spread) -> Option<&'static str> {
    if leader.n < 2 || other.n < 2 {
        let rel = (leader.median - other.median) / other.median.max(f64::MIN_POSITIVE);
        return (rel < SINGLE_REPEAT_TIE)
            .then_some("single repeat, medians differ by less than 5%");
    }
    if leader.overlaps(other) {
        return Some("min-max ranges overlap");
    }
    let wider = (leader.max - leader.min).max(other.max - other.min);
    ((leader.median - other.median).abs() < wider)
        .then_some("medians differ by less than the wider range")
}

/// One row per point of the axes where anything usable was measured.
pub fn wins(cells: &[CellSummary]) -> Vec<WinRow> {
    let mut out = Vec::new();
    for (axes, group) in by_axes(cells) {
        let mut ranked: Vec<(&CellSummary, Spread)> = group
            .iter()
            .filter_map(|c| c.spread().map(|s| (*c, s)))
            .collect();
        if ranked.is_empty() {
            continue;
        }
        ranked.sort_by(|a, b| b.1.median.total_cmp(&a.1.median));
        let (leader, lead) = ranked[0];
        let mut tied = Vec::new();
        let mut reasons = Vec::new();
        for (c, s) in &ranked[1..] {
            if let Some(reason) = within_noise(&lead, s) {
                tied.push(c.runtime.clone());
                reasons.push(format!("{}: {reason}", c.runtime));
            }
        }
        let runner_up = ranked.get(1);
        let margin_pct =
            runner_up.map(|(_, s)| round_to((lead.median / s.median - 1.0) * 100.0, 2));
        let rule = match (tied.is_empty(), runner_up) {
            (true, Some((c, _))) => format!(
                "clear lead over {}: ranges disjoint, gap wider than the noise",
                c.runtime
            ),
            (true, None) => "only runtime measured".to_string(),
            (false, _) => reasons.join("; "),
        };
        let win = if tied.is_empty() {
            Win::Runtime(leader.runtime.clone())
        } else {
            tied.insert(0, leader.runtime.clone());
            Win::Tie(tied)
        };
        out.push(WinRow {
            axes: axes.to_string(),
            payload: leader.payload,
            concurrency: leader.concurrency,
            win,
            leader: leader.runtime.clone(),
            leader_rps: lead.median,
            runner_up: runner_up
                .map(|(c, _)| c.runtime.clone())
                .unwrap_or_default(),
            margin_pct,
            rule,
        });
    }
    out
}

/// Outright wins and ties of each runtime, in the order given.
pub fn win_counts(runtimes: &[String], wins: &[WinRow]) -> Vec<WinCount> {
    runtimes
        .iter()
        .map(|rt| WinCount {
            runtime: rt.clone(),
            wins: wins.iter().filter(|w| w.win.won_by(rt)).count(),
            ties: wins.iter().filter(|w| w.win.tied(rt)).count(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::summary::summarize_cells;
    use crate::report::summary::tests::row;
    use crate::results::CellStatus::{Ok, Suspect};

    #[test]
    fn overlapping_repeats_are_a_tie_and_clear_gaps_a_win() {
        let cells = summarize_cells(&[
            row("go", "c=1", 1, 100.0, Ok),
            row("go", "c=1", 2, 104.0, Ok),
            row("java", "c=1", 1, 103.0, Ok),
            row("java", "c=1", 2, 106.0, Suspect),
            row("go", "c=2", 1, 200.0, Ok),
            row("go", "c=2", 2, 202.0, Ok),
            row("java", "c=2", 1, 150.0, Ok),
            row("java", "c=2", 2, 151.0, Ok),
        ]);
        let w = wins(&cells);
        assert_eq!(w[0].win, Win::Tie(vec!["java".into(), "go".into()]));
        assert_eq!(w[0].leader, "java");
        assert_eq!(w[1].win, Win::Runtime("go".into()));
        assert_eq!(w[1].margin_pct, Some(33.55)); // 201 / 150.5
        let counts = win_counts(&["go".into(), "java".into()], &w);
        let counted: Vec<(&str, usize, usize)> = counts
            .iter()
            .map(|c| (c.runtime.as_str(), c.wins, c.ties))
            .collect();
        assert_eq!(counted, [("go", 1, 1), ("java", 0, 1)]);
    }

    #[test]
    fn a_win_is_written_as_the_runtime_or_tie_with_the_others() {
        let cells = summarize_cells(&[
            row("go", "c=1", 1, 100.0, Ok),
            row("java", "c=1", 1, 101.0, Ok),
            row("rust", "c=1", 1, 102.0, Ok),
            row("go", "c=2", 1, 200.0, Ok),
        ]);
        let mut csv = csv::Writer::from_writer(Vec::new());
        for w in wins(&cells) {
            csv.serialize(&w).unwrap();
        }
        let text = String::from_utf8(csv.into_inner().unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "axes,payload,concurrency,winner,leader,leader_rps,tied_with,runner_up,margin_pct,rule"
        );
        assert!(
            lines[1].starts_with("c=1,,,tie,rust,102.0,java;go,java,"),
            "{}",
            lines[1]
        );
        assert_eq!(lines[2], "c=2,,,go,go,200.0,,,,only runtime measured");
    }

    #[test]
    fn disjoint_but_close_medians_are_a_tie() {
        let a = Spread::of(&[100.0, 120.0]).unwrap();
        let b = Spread::of(&[95.0, 99.0]).unwrap();
        assert_eq!(
            within_noise(&a, &b),
            Some("medians differ by less than the wider range")
        );
        let one = Spread::of(&[100.0]).unwrap();
        let close = Spread::of(&[97.0]).unwrap();
        let far = Spread::of(&[90.0]).unwrap();
        assert!(within_noise(&one, &close).is_some());
        assert!(within_noise(&one, &far).is_none());
    }
}
