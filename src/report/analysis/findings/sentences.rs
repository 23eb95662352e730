//! A pair's answers in words: a lead with its size and interval and where
//! it holds, a lead that changes with an axis, a tie with what would
//! decide it. Chosen by the rules here from the answers, never by a
//! template guessing.
use serde::Serialize;

use crate::report::analysis::format::pct;
use crate::stats::findings::{Answer, Family, Lead, MAX_REPEATS, Measure, SMALL_CHANGE, Scope};

/// An interval whose upper end is more than this many times its lower end
/// is too wide to say anything: it cannot rule out a difference of
/// sqrt(10) = 3.2x on at least one side, so printing it (a --quick run's
/// `2.38x [0.002, 2618.00]`) reads as a result where there is none. Such
/// an interval is not stated: the sentence says what would decide the
/// question instead (the repeats at this run's noise, longer windows).
pub const TOO_WIDE: f64 = 10.0;

/// Whether the interval [lo, hi] is too wide to state ([`TOO_WIDE`]).
pub fn too_wide(lo: f64, hi: f64) -> bool {
    !(lo > 0.0 && hi / lo <= TOO_WIDE)
}

/// What a finding states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// One runtime is better over every point (and where it holds).
    Lead,
    /// One runtime is better at some values of an axis, the other at others.
    Crossover,
    /// Better at some values of an axis only; over every point, open.
    LeadAt,
    /// The interval lies within [`SMALL_CHANGE`] either way.
    Within,
    /// The interval includes 1 (and is not within): with what would decide
    /// it, and without the interval when it is [`too_wide`] to say anything.
    Undecided,
    /// Three or more runtimes, no two of them told apart (or within).
    Tie,
    /// Every runtime of one group better than every one of another.
    GroupLead,
}

/// One sentence with the figures behind it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub kind: Kind,
    pub measure: Measure,
    /// The runtimes it is about: a pair in spec order (`ratio` is the
    /// second's over the first's, over every point both ran), or a group.
    pub runtimes: Vec<String>,
    /// A pair's ratio and interval; for a group, none, and the widest
    /// interval of its pairs.
    pub ratio: Option<f64>,
    pub lo: f64,
    pub hi: f64,
    /// Repeats per configuration that would decide an undecided pair (or
    /// the over-every-point part of a lead-at whose interval is
    /// [`too_wide`]) at this run's noise; `None` otherwise, or beyond 50.
    pub repeats_needed: Option<u32>,
    /// The leads it states over every point, as `[better, worse]` pairs
    /// (one for a lead, every pair across for a group lead; none otherwise):
    /// what a script compares between runs.
    pub better_than: Vec<[String; 2]>,
    pub text: String,
}

/// The finding of `a` vs `b` (spec order) on `measure`, if they share a point.
pub fn pair_finding(family: &Family, a: &str, b: &str, measure: Measure) -> Option<Finding> {
    let all = family.answer(a, b, measure, &Scope::All)?;
    let levels = family.levels(a, b, measure);
    let decided: Vec<&&Answer> = levels.iter().filter(|l| l.lead() != Lead::Open).collect();
    let leads_a = decided.iter().any(|l| l.lead() == Lead::A);
    let leads_b = decided.iter().any(|l| l.lead() == Lead::B);
    let mut repeats_needed = None;
    let (kind, text) = match (all.lead(), leads_a && leads_b) {
        (_, true) => (Kind::Crossover, crossover(measure, &decided)),
        (Lead::Open, false) if !decided.is_empty() => {
            let overall = if too_wide(all.effect.lo, all.effect.hi) {
                let target = (all.effect.ratio - 1.0).abs().max(SMALL_CHANGE);
                repeats_needed = all.repeats_for(target, family.tests());
                format!(
                    "over every point both ran this run cannot compare them: its interval is {}; {}",
                    WIDE_WORDS,
                    decide_words(target, repeats_needed, all.repeats)
                )
            } else {
                format!(
                    "over every point both ran they cannot be told apart ({})",
                    ratio_words(all)
                )
            };
            let at: Vec<String> = decided.iter().map(|l| versus_at(l)).collect();
            (Kind::LeadAt, format!("{}; {overall}.", at.join("; ")))
        }
        (Lead::Open, false) if all.within() => (
            Kind::Within,
            format!(
                "`{a}` and `{b}` are within {} of each other on {} ({}).",
                percent(SMALL_CHANGE),
                measure.label(),
                ratio_words(all)
            ),
        ),
        (Lead::Open, false) => {
            let target = (all.effect.ratio - 1.0).abs().max(SMALL_CHANGE);
            repeats_needed = all.repeats_for(target, family.tests());
            let decide = decide_words(target, repeats_needed, all.repeats);
            let text = if too_wide(all.effect.lo, all.effect.hi) {
                format!(
                    "This run cannot compare `{a}` and `{b}` on {}: its interval is {WIDE_WORDS}; \
                     {decide}.",
                    measure.label()
                )
            } else {
                format!(
                    "`{a}` and `{b}` cannot be told apart on {} here ({}); {decide}.",
                    measure.label(),
                    ratio_words(all)
                )
            };
            (Kind::Undecided, text)
        }
        (_, false) => (
            Kind::Lead,
            format!("{}{}.", versus(all), where_it_holds(&levels, all.lead())),
        ),
    };
    let better_than = match kind {
        Kind::Lead => {
            let (w, l, ..) = winner_first(all);
            vec![[w.to_string(), l.to_string()]]
        }
        _ => Vec::new(),
    };
    Some(Finding {
        kind,
        measure,
        better_than,
        runtimes: vec![a.to_string(), b.to_string()],
        ratio: Some(all.effect.ratio),
        lo: all.effect.lo,
        hi: all.effect.hi,
        repeats_needed,
        text,
    })
}

/// Three or more runtimes none of which is told apart from another
/// (`pairs`: their undecided or within findings, at least one).
pub fn tie_finding(members: &[String], measure: Measure, pairs: &[Finding]) -> Finding {
    let ratios = pairs.iter().filter_map(|f| f.ratio).map(|r| r.max(1.0 / r));
    let most = ratios.fold(1.0, f64::max);
    let (lo, hi) = widest(pairs.iter().map(|f| (f.lo, f.hi)));
    if pairs.iter().any(|f| too_wide(f.lo, f.hi)) {
        return open_group(
            members,
            measure,
            pairs,
            format!(
                "This run cannot compare {} on {}: the intervals of some of the pairs are \
                 {WIDE_WORDS}",
                names(members),
                measure.label()
            ),
        );
    }
    open_group(
        members,
        measure,
        pairs,
        format!(
            "{} cannot be told apart on {} here: the pairs differ {} (every \
             interval within [{}, {}])",
            names(members),
            measure.label(),
            tie_spread(most),
            number(lo),
            number(hi)
        ),
    )
}

/// The open pairs of a group in which some pairs are decided (stated on
/// their own): one sentence naming each open pair with its interval.
pub fn open_pairs_finding(members: &[String], measure: Measure, pairs: &[Finding]) -> Finding {
    let listed: Vec<String> = pairs
        .iter()
        .filter_map(|f| {
            let [a, b] = [f.runtimes.first()?, f.runtimes.get(1)?];
            if too_wide(f.lo, f.hi) {
                return Some(format!(
                    "`{b}`/`{a}` (its interval too wide to say anything)"
                ));
            }
            Some(ratio_text(b, a, f.ratio?, f.lo, f.hi))
        })
        .collect();
    open_group(
        members,
        measure,
        pairs,
        format!(
            "These pairs cannot be told apart on {} here: {}",
            measure.label(),
            listed.join(", ")
        ),
    )
}

/// A group finding of open pairs: `head`, then what would decide them.
fn open_group(members: &[String], measure: Measure, pairs: &[Finding], head: String) -> Finding {
    let needed: Vec<Option<u32>> = (pairs.iter())
        .filter(|f| f.kind == Kind::Undecided)
        .map(|f| f.repeats_needed)
        .collect();
    let most = needed.iter().copied().max().flatten();
    let decide = if needed.is_empty() {
        String::new()
    } else if needed.contains(&None) {
        format!(
            "; deciding a 5% difference (or the one seen, if larger) in every pair would take \
             more than {MAX_REPEATS} repeats per configuration at this run's noise"
        )
    } else {
        format!(
            "; deciding a 5% difference (or the one seen, if larger) in every pair would take \
             about {} repeats per configuration at this run's noise",
            most.unwrap_or(0)
        )
    };
    let (lo, hi) = widest(pairs.iter().map(|f| (f.lo, f.hi)));
    Finding {
        kind: Kind::Tie,
        measure,
        runtimes: members.to_vec(),
        ratio: None,
        lo,
        hi,
        repeats_needed: if needed.contains(&None) { None } else { most },
        better_than: Vec::new(),
        text: format!("{head}{decide}."),
    }
}

/// The lowest and highest of these intervals' bounds.
fn widest(bounds: impl Iterator<Item = (f64, f64)>) -> (f64, f64) {
    bounds.fold((f64::INFINITY, 0.0), |(lo, hi), (l, h)| {
        (lo.min(l), hi.max(h))
    })
}

/// `` `a`, `b` and `c` ``.
fn names(runtimes: &[String]) -> String {
    listing(
        &runtimes
            .iter()
            .map(|m| format!("`{m}`"))
            .collect::<Vec<_>>(),
    )
}

/// Every runtime of `upper` better than every one of `lower`, from their
/// pairs' findings (all leads of an `upper` runtime).
pub fn group_lead(
    upper: &[String],
    lower: &[String],
    measure: Measure,
    pairs: &[&Answer],
) -> Finding {
    let each = if upper.len() > 1 { " each" } else { "" };
    let verb = if upper.len() > 1 { "have" } else { "has" };
    let figures: Vec<String> = pairs.iter().map(|a| ratio_of_winner(a)).collect();
    let (lo, hi) = widest(pairs.iter().map(|a| (a.effect.lo, a.effect.hi)));
    Finding {
        kind: Kind::GroupLead,
        measure,
        runtimes: upper.iter().chain(lower).cloned().collect(),
        ratio: None,
        lo,
        hi,
        repeats_needed: None,
        better_than: upper
            .iter()
            .flat_map(|u| lower.iter().map(move |l| [u.clone(), l.clone()]))
            .collect(),
        text: format!(
            "{}{each} {verb} {} than {}: {}.",
            names(upper),
            measure.comparative(),
            names(lower),
            figures.join(", ")
        ),
    }
}

/// `` `w`/`l` 3.30x [2.90, 3.75] ``, the better one first.
fn ratio_of_winner(answer: &Answer) -> String {
    let (w, l, r, lo, hi) = winner_first(answer);
    ratio_text(w, l, r, lo, hi)
}

/// `` `num`/`den` 1.04x [0.91, 1.19] ``: one ratio with its interval.
fn ratio_text(num: &str, den: &str, ratio: f64, lo: f64, hi: f64) -> String {
    format!(
        "`{num}`/`{den}` {} [{}, {}]",
        times(ratio),
        number(lo),
        number(hi)
    )
}

/// The better runtime, the other, and the ratio better/other with its interval.
fn winner_first(answer: &Answer) -> (&str, &str, f64, f64, f64) {
    let e = &answer.effect;
    match answer.lead() {
        Lead::A => (&answer.a, &answer.b, 1.0 / e.ratio, 1.0 / e.hi, 1.0 / e.lo),
        _ => (&answer.b, &answer.a, e.ratio, e.lo, e.hi),
    }
}

/// `` `w` has 1.40x the throughput of `l` [1.21, 1.62] ``, the better one first.
fn versus(answer: &Answer) -> String {
    let (w, l, r, lo, hi) = winner_first(answer);
    format!(
        "`{w}` has {} the {} of `{l}` [{}, {}]",
        times(r),
        answer.measure.label(),
        number(lo),
        number(hi)
    )
}

/// `` `b`/`a` 1.04x [0.91, 1.19] ``.
fn ratio_words(answer: &Answer) -> String {
    let e = &answer.effect;
    ratio_text(&answer.b, &answer.a, e.ratio, e.lo, e.hi)
}

/// Where a lead over every point also holds per axis value:
/// `, at every payload; at concurrency 12 and 96, not at 1`.
fn where_it_holds(levels: &[&Answer], lead: Lead) -> String {
    let mut axes: Vec<&str> = Vec::new();
    for l in levels {
        if let Scope::Level { axis, .. } = &l.scope
            && !axes.contains(&axis.as_str())
        {
            axes.push(axis);
        }
    }
    let mut every: Vec<String> = Vec::new();
    let mut nowhere: Vec<String> = Vec::new();
    let mut parts: Vec<String> = Vec::new();
    for axis in &axes {
        let values = |held: bool| -> Vec<String> {
            levels
                .iter()
                .filter(|l| (l.lead() == lead) == held)
                .filter_map(|l| match &l.scope {
                    Scope::Level { axis: a, value } if a == axis => Some(value.clone()),
                    _ => None,
                })
                .collect()
        };
        let (held, open) = (values(true), values(false));
        if open.is_empty() {
            every.push(axis.to_string());
        } else if held.is_empty() {
            nowhere.push(axis.to_string());
        } else {
            parts.push(format!(
                "at {axis} {}, not at {}",
                listing(&held),
                listing(&open)
            ));
        }
    }
    if !every.is_empty() {
        parts.insert(0, format!("at every {}", listing(&every)));
    }
    if !nowhere.is_empty() {
        parts.push(format!(
            "over the points together: no single {} shows it on its own",
            listing(&nowhere).replace(" and ", " or ")
        ));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(", {}", parts.join("; "))
    }
}

/// The leader changes: who is better where.
fn crossover(measure: Measure, decided: &[&&Answer]) -> String {
    let parts: Vec<String> = decided.iter().map(|l| versus_at(l)).collect();
    format!(
        "The leader on {} changes with the conditions: {}.",
        measure.label(),
        parts.join("; ")
    )
}

/// [`versus`] where it was decided: `` `w` has 1.30x ... at concurrency 1 ``.
fn versus_at(answer: &Answer) -> String {
    let place = match &answer.scope {
        Scope::All => "every point".to_string(),
        Scope::Level { axis, value } => format!("{axis} {value}"),
    };
    format!("{} at {place}", versus(answer))
}

/// Why a [`too_wide`] interval is not stated.
const WIDE_WORDS: &str = "too wide to say anything (upper end more than 10x the lower: \
                          docs/findings.md)";

/// What would decide an open pair, at this run's noise.
fn decide_words(target: f64, needed: Option<u32>, now: usize) -> String {
    let size = if target > SMALL_CHANGE {
        format!(
            "a true difference of {} (the size seen here)",
            percent(target)
        )
    } else {
        format!("a difference of {}", percent(target))
    };
    match needed {
        Some(n) => format!(
            "deciding {size} would take about {n} repeats per configuration at this run's noise \
             ({now} now)"
        ),
        None => format!(
            "deciding {size} would take more than {} repeats per configuration at this run's \
             noise: this host cannot tell it",
            MAX_REPEATS
        ),
    }
}

/// `1.40x`; three decimals below 0.1 so a small ratio keeps its figure.
fn times(r: f64) -> String {
    format!("{}x", number(r))
}

fn number(r: f64) -> String {
    if r < 0.1 {
        format!("{r:.3}")
    } else {
        format!("{r:.2}")
    }
}

/// How far apart a tie's pairs are at most, from the largest ratio (>= 1):
/// `by at most 4%`; `by at most 4.99x` from 2x on ("at most 399%" reads as
/// a typo, a factor is what a reader compares); `by less than 1%` where a
/// percentage would round to "at most 0%".
fn tie_spread(most: f64) -> String {
    if most >= 2.0 {
        format!("by at most {}x", number(most))
    } else if most - 1.0 < 0.005 {
        "by less than 1%".to_string()
    } else {
        format!("by at most {}", percent(most - 1.0))
    }
}

fn percent(fraction: f64) -> String {
    pct(fraction, 0, false)
}

/// `1`, `1 and 12`, `1, 12 and 96`.
pub fn listing(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(a: &str, b: &str, needed: Option<u32>) -> Finding {
        Finding {
            kind: Kind::Undecided,
            measure: Measure::Throughput,
            runtimes: vec![a.into(), b.into()],
            ratio: Some(0.97),
            lo: 0.81,
            hi: 1.17,
            repeats_needed: needed,
            better_than: Vec::new(),
            text: String::new(),
        }
    }

    #[test]
    fn a_tie_s_spread_reads_as_a_percentage_a_factor_or_less_than_one_percent() {
        assert_eq!(tie_spread(1.04), "by at most 4%");
        assert_eq!(tie_spread(4.99), "by at most 4.99x");
        assert_eq!(tie_spread(1.004), "by less than 1%");
    }

    #[test]
    fn one_pair_out_of_reach_makes_the_group_out_of_reach() {
        let members: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let pairs = [
            open("a", "b", Some(24)),
            open("a", "c", None),
            open("b", "c", Some(9)),
        ];
        let tie = tie_finding(&members, Measure::Throughput, &pairs);
        assert!(tie.text.contains("(every interval within [0.81, 1.17])"));
        assert!(tie.text.contains("more than 50 repeats"), "{}", tie.text);
        assert_eq!(tie.repeats_needed, None);
        let reachable = [open("a", "b", Some(24)), open("b", "c", Some(9))];
        let listed = open_pairs_finding(&members, Measure::Throughput, &reachable);
        assert!(listed.text.starts_with("These pairs cannot be told apart on throughput here: `b`/`a` 0.97x [0.81, 1.17], `c`/`b`"), "{}", listed.text);
        assert!(listed.text.contains("about 24 repeats"), "{}", listed.text);
        assert_eq!(listed.repeats_needed, Some(24));
    }

    #[test]
    fn an_interval_too_wide_to_say_anything_is_not_stated() {
        assert!(!too_wide(0.54, 2.32));
        assert!(!too_wide(0.5, 5.0));
        assert!(too_wide(0.068, 12.04));
        assert!(too_wide(0.002, 2618.0));
        assert!(too_wide(0.0, 1.5));
        let members: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let wide = Finding {
            lo: 0.002,
            hi: 2618.0,
            ..open("a", "c", Some(15))
        };
        let pairs = [
            open("a", "b", Some(24)),
            wide.clone(),
            open("b", "c", Some(9)),
        ];
        let tie = tie_finding(&members, Measure::Throughput, &pairs);
        assert!(
            tie.text.starts_with("This run cannot compare `a`, `b` and `c` on throughput: the intervals of some of the pairs are too wide"),
            "{}",
            tie.text
        );
        assert!(!tie.text.contains("2618"), "{}", tie.text);
        assert!(tie.text.contains("about 24 repeats"), "{}", tie.text);
        let listed = open_pairs_finding(&members, Measure::Throughput, &[wide]);
        assert!(
            listed
                .text
                .contains("`c`/`a` (its interval too wide to say anything)"),
            "{}",
            listed.text
        );
        assert!(!listed.text.contains("2618"), "{}", listed.text);
    }
}
