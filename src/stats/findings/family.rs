//! The family of questions a run's findings answer, and each answer's
//! simultaneous interval.
//!
//! A question is one pair of runtimes on one measure, over a set of points
//! of the axes: every point both ran, or the points at one value of one
//! axis (concurrency 64), which is how a lead that changes with an axis is
//! seen. Its effect is the mean over those points of the log ratio B/A of
//! the geometric means of the repeats: the spec's points are fixed
//! conditions, not a sample of conditions, so the interval is the repeats',
//! not the spread between points. It is the wider of two intervals, both
//! centred on the effect:
//!
//! - **borrowed**: each point's variance moderated toward the measure's
//!   prior over every runtime's points, as compare's rule does
//!   (`stats::moderated`), and never below the pool: narrow, and right when
//!   the points share a noise level;
//! - **own**: each point's sample variance alone, with its own degrees of
//!   freedom: wide with 2 or 3 repeats, and right when they do not.
//!
//! The wider holds whenever either is right. Borrowing alone stated a false
//! finding in 22% of equal runs with 2 repeats and 6% with 3 when noise
//! differed 20-fold between configurations (with 1 or 2 degrees of freedom
//! a point's own level cannot be known, and a noisy point borrowed the
//! quiet ones' confidence); with the wider interval, 0.5% and 1.8%, at the
//! price of stating fewer small differences (examples/calibrate-findings.rs,
//! docs/findings.md).
//!
//! Every question the findings could state is in the family, shown or not,
//! and every interval is a Bonferroni simultaneous interval at `1 - 0.05/m`
//! (m questions): the chance that *any* interval misses its true ratio is
//! at most 5%, whatever the dependence between them, so a report of 30
//! findings carries a false one in at most 5% of runs, not 1.5 on average.
//! A finding is stated only when its interval excludes 1, so a decision
//! and its interval never disagree. Bonferroni rather than Holm because
//! Holm adjusts p-values, not intervals, and a finding's interval is what a
//! reader quotes.
use indexmap::IndexMap;

use super::measures::{Measure, PointRepeats};
use super::{SMALL_CHANGE, axis_parts as parts};
use crate::stats::effect::{Effect, PooledVariance, VarianceTerm, log_mean, t_quantile};
use crate::stats::moderated::{Prior, sample_variance};
use crate::stats::{Ahead, POWER};

/// Family-wise error rate of a run's findings.
pub const FAMILY_ALPHA: f64 = 0.05;

/// Most repeats per configuration a "what would decide it" figure looks for.
pub const MAX_REPEATS: u32 = 50;

/// Which points of the axes a question is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every point both runtimes ran.
    All,
    /// The points where `axis` is `value`.
    Level { axis: String, value: String },
}

/// Which runtime of a pair a decided answer favours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lead {
    A,
    B,
    /// The interval includes 1.
    Open,
}

/// One question answered: the ratio B/A and its simultaneous interval.
#[derive(Debug, Clone)]
pub struct Answer {
    pub a: String,
    pub b: String,
    pub measure: Measure,
    pub scope: Scope,
    pub points: usize,
    pub effect: Effect,
    /// The variance of one repeat's log ratio summed over the points
    /// (`sum over points of (var_a + var_b)`), for the repeats a decision needs.
    per_repeat_var: f64,
    /// Repeats per configuration now (the most of any point: one that lost
    /// a repeat to a failure does not set the design).
    pub repeats: usize,
}

impl Answer {
    pub fn lead(&self) -> Lead {
        match self.measure.better().ahead(self.effect.lo, self.effect.hi) {
            Ahead::A => Lead::A,
            Ahead::B => Lead::B,
            Ahead::Neither => Lead::Open,
        }
    }

    /// Whether the interval lies within [`SMALL_CHANGE`] either way: the
    /// two are as good as equal on this figure.
    pub fn within(&self) -> bool {
        let edge = 1.0 + SMALL_CHANGE;
        self.effect.lo >= 1.0 / edge && self.effect.hi <= edge
    }

    /// The fewest repeats per configuration (up to [`MAX_REPEATS`]) with
    /// which a true difference of `change` (relative) would be decided at
    /// this family's level with 80% power, at this run's noise; `None`
    /// beyond that.
    pub fn repeats_for(&self, change: f64, family: usize) -> Option<u32> {
        let target = (1.0 + change.abs()).ln();
        let k = self.points.max(1) as f64;
        let df_per_repeat = self.effect.df / (self.repeats.max(2) - 1) as f64;
        (2..=MAX_REPEATS).find(|&n| {
            let se = (self.per_repeat_var / n as f64).sqrt() / k;
            let df = (df_per_repeat * (n - 1) as f64).max(1.0);
            let crit = t_quantile(1.0 - FAMILY_ALPHA / (2.0 * family as f64), df);
            (crit + t_quantile(POWER, df)) * se <= target
        })
    }
}

/// Every question of the run answered, at the family's simultaneous level.
#[derive(Debug, Clone)]
pub struct Family {
    pub answers: Vec<Answer>,
    /// How many times the data were looked at to decide whether to go on
    /// (`repeats: { until: decided }`: one look per round from `min` to
    /// `max`); 1 for a fixed design.
    pub looks: usize,
    /// The confidence level of every interval (`1 - 0.05 / (answers x looks)`).
    pub level: f64,
}

impl Family {
    /// The tests the level is divided among: every question at every look.
    pub fn tests(&self) -> usize {
        self.answers.len() * self.looks
    }

    /// The answer to `a` vs `b` on `measure` over `scope`, when asked.
    pub fn answer(&self, a: &str, b: &str, measure: Measure, scope: &Scope) -> Option<&Answer> {
        self.answers
            .iter()
            .find(|q| q.a == a && q.b == b && q.measure == measure && &q.scope == scope)
    }

    /// The answers of `a` vs `b` on `measure` per value of each axis.
    pub fn levels(&self, a: &str, b: &str, measure: Measure) -> Vec<&Answer> {
        self.answers
            .iter()
            .filter(|q| q.a == a && q.b == b && q.measure == measure && q.scope != Scope::All)
            .collect()
    }
}

/// One point both runtimes ran: its log ratio and the two sides' variance
/// terms, borrowed across points and its own.
#[derive(Clone, Copy)]
struct PointEffect<'r> {
    axes: &'r str,
    log_ratio: f64,
    borrowed: Noise,
    own: Noise,
    repeats: usize,
}

/// A point's two variance terms (one per side's mean) and the variance of
/// one repeat's log ratio, under one way of estimating its noise.
#[derive(Clone, Copy)]
struct Noise {
    terms: [VarianceTerm; 2],
    per_repeat_var: f64,
}

impl Noise {
    fn of(a: PooledVariance, na: usize, b: PooledVariance, nb: usize) -> Noise {
        Noise {
            terms: [VarianceTerm::of_mean(a, na), VarianceTerm::of_mean(b, nb)],
            per_repeat_var: a.var + b.var,
        }
    }
}

/// Answers every question on `runtimes` (pairs in their order) from the
/// run's points, at the level that holds over `looks` looks at the data
/// (Bonferroni over questions and looks: whatever round a sequential design
/// stops at, every interval it could have reported holds at once).
pub fn answer_all(runtimes: &[String], points: &[PointRepeats], looks: usize) -> Family {
    let priors = priors(points);
    let mut pending: Vec<(String, String, Measure, Scope, Vec<PointEffect>)> = Vec::new();
    for (i, a) in runtimes.iter().enumerate() {
        for b in &runtimes[i + 1..] {
            for measure in Measure::ALL {
                let effects = point_effects(points, &priors, a, b, measure);
                if effects.is_empty() {
                    continue;
                }
                for (scope, chosen) in scopes(effects) {
                    pending.push((a.clone(), b.clone(), measure, scope, chosen));
                }
            }
        }
    }
    let looks = looks.max(1);
    let level = 1.0 - FAMILY_ALPHA / (pending.len().max(1) * looks) as f64;
    let answers = pending
        .into_iter()
        .map(|(a, b, measure, scope, effects)| {
            let k = effects.len() as f64;
            let d = effects.iter().map(|e| e.log_ratio).sum::<f64>() / k;
            let interval = |noise: fn(&PointEffect) -> Noise| {
                let terms: Vec<VarianceTerm> = effects
                    .iter()
                    .flat_map(|e| noise(e).terms)
                    .map(|t| VarianceTerm {
                        var: t.var / (k * k),
                        df: t.df,
                    })
                    .collect();
                let per_repeat_var = effects.iter().map(|e| noise(e).per_repeat_var).sum();
                (Effect::of_log_difference(d, &terms, level), per_repeat_var)
            };
            // The wider of the two intervals (both centred on `d`, so the
            // wider holds the narrower): it covers whenever either way of
            // estimating the noise is right.
            let (borrowed, own) = (interval(|e| e.borrowed), interval(|e| e.own));
            let (effect, per_repeat_var) = if own.0.hi / own.0.lo > borrowed.0.hi / borrowed.0.lo {
                own
            } else {
                borrowed
            };
            Answer {
                a,
                b,
                measure,
                points: effects.len(),
                effect,
                per_repeat_var,
                repeats: effects.iter().map(|e| e.repeats).max().unwrap_or(0),
                scope,
            }
        })
        .collect();
    Family {
        answers,
        looks,
        level,
    }
}

/// The prior of the points' variances on each measure, fitted over every
/// runtime's points (`stats::moderated`), under each runtime's key; none
/// where no point has two repeats. One prior per measure, not per runtime
/// as compare has: a runtime of a findings run has a handful of points, and
/// a prior fitted on six 1-df variances pooled completely whenever they
/// happened to agree (per runtime, 34% of equal 3-repeat runs with noise
/// of 1-20% by configuration stated a false finding; over all, 6%:
/// examples/calibrate-findings.rs).
fn priors<'r>(points: &[PointRepeats<'r>]) -> IndexMap<(&'r str, Measure), Prior> {
    let mut samples: IndexMap<(&str, Measure), Vec<(f64, f64)>> = IndexMap::new();
    for p in points {
        for measure in Measure::ALL {
            if let Some(s) = sample_variance(p.of(measure)) {
                samples.entry((p.runtime, measure)).or_default().push(s);
            }
        }
    }
    let mut all: IndexMap<Measure, Vec<(f64, f64)>> = IndexMap::new();
    for ((_, m), s) in &samples {
        all.entry(*m).or_default().extend(s.iter().copied());
    }
    let global: IndexMap<Measure, Prior> = all
        .into_iter()
        .filter_map(|(m, s)| Some((m, Prior::fit_samples(s)?)))
        .collect();
    samples
        .into_keys()
        .filter_map(|key| Some((key, *global.get(&key.1)?)))
        .collect()
}

/// The points `a` and `b` both ran with a noise estimate on both sides;
/// none for throughput in open loop.
fn point_effects<'r>(
    points: &'r [PointRepeats<'r>],
    priors: &IndexMap<(&str, Measure), Prior>,
    a: &str,
    b: &str,
    measure: Measure,
) -> Vec<PointEffect<'r>> {
    let (Some(prior_a), Some(prior_b)) = (priors.get(&(a, measure)), priors.get(&(b, measure)))
    else {
        return Vec::new();
    };
    points
        .iter()
        .filter(|pa| pa.runtime == a)
        .filter_map(|pa| {
            let pb = points
                .iter()
                .find(|pb| pb.runtime == b && pb.axes == pa.axes)?;
            if measure == Measure::Throughput && (pa.open_loop || pb.open_loop) {
                return None;
            }
            // Matched rounds: with `until: decided` one side may have
            // stopped rounds before the other, and a level that drifts over
            // the run would then tell them apart (28% of equal runs with a
            // -3%/round drift stated a false finding). Over the rounds both
            // ran, interleaving cancels the drift again.
            let last = pa.last_round(measure).min(pb.last_round(measure));
            let (va, vb) = (pa.until(measure, last), pb.until(measure, last));
            let (va, vb) = (va.as_slice(), vb.as_slice());
            let log_ratio = log_mean(vb)? - log_mean(va)?;
            let (ma, mb) = (floored(prior_a, va), floored(prior_b, vb));
            // A side with one usable repeat (the others failed) has no own
            // estimate and keeps the borrowed one; the report's conditions
            // name a configuration with fewer than 3 repeats.
            let own = |values: &[f64], moderated: PooledVariance| {
                sample_variance(values)
                    .map(|(var, df)| PooledVariance { var, df })
                    .unwrap_or(moderated)
            };
            Some(PointEffect {
                axes: pa.axes,
                log_ratio,
                borrowed: Noise::of(ma, va.len(), mb, vb.len()),
                own: Noise::of(own(va, ma), va.len(), own(vb, mb), vb.len()),
                repeats: va.len().min(vb.len()),
            })
        })
        .collect()
}

/// A point's moderated variance, never below its runtime's pool: with two
/// or three repeats a point whose repeats happened to agree would
/// otherwise look sure of itself (compare's rule does the same with the
/// two sides of a configuration: `stats::judge`).
fn floored(prior: &Prior, values: &[f64]) -> PooledVariance {
    let own = prior.moderate(values);
    if own.var >= prior.pooled.var {
        own
    } else {
        prior.pooled
    }
}

/// The scopes of one pair and measure: every point, then each value of
/// each axis that takes two or more values among them.
fn scopes(effects: Vec<PointEffect<'_>>) -> Vec<(Scope, Vec<PointEffect<'_>>)> {
    let mut axes: IndexMap<&str, Vec<&str>> = IndexMap::new();
    for e in &effects {
        for (axis, value) in parts(e.axes) {
            let values = axes.entry(axis).or_default();
            if !values.contains(&value) {
                values.push(value);
            }
        }
    }
    let mut out = Vec::new();
    for (axis, values) in axes.iter().filter(|(_, v)| v.len() >= 2) {
        for value in values {
            let chosen: Vec<PointEffect> = effects
                .iter()
                .filter(|e| parts(e.axes).contains(&(axis, value)))
                .copied()
                .collect();
            out.push((
                Scope::Level {
                    axis: axis.to_string(),
                    value: value.to_string(),
                },
                chosen,
            ));
        }
    }
    out.insert(0, (Scope::All, effects));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point<'r>(runtime: &'r str, axes: &'r str, rps: &[f64]) -> PointRepeats<'r> {
        let mut values: [Vec<f64>; 4] = Default::default();
        values[Measure::Throughput as usize] = rps.to_vec();
        let mut rounds: [Vec<u32>; 4] = Default::default();
        rounds[Measure::Throughput as usize] = (1..=rps.len() as u32).collect();
        PointRepeats {
            runtime,
            axes,
            values,
            rounds,
            open_loop: false,
        }
    }

    fn runtimes() -> Vec<String> {
        vec!["a".to_string(), "b".to_string()]
    }

    #[test]
    fn every_scope_is_a_question_and_every_interval_is_at_the_family_level() {
        let points = [
            point("a", "c=1", &[100.0, 102.0, 98.0]),
            point("a", "c=8", &[200.0, 204.0, 196.0]),
            point("b", "c=1", &[150.0, 153.0, 147.0]),
            point("b", "c=8", &[300.0, 306.0, 294.0]),
        ];
        let family = answer_all(&runtimes(), &points, 1);
        // Throughput only: every point, c=1, c=8.
        assert_eq!(family.answers.len(), 3);
        assert!((family.level - (1.0 - 0.05 / 3.0)).abs() < 1e-12);
        let all = family
            .answer("a", "b", Measure::Throughput, &Scope::All)
            .unwrap();
        assert!((all.effect.ratio - 1.5).abs() < 1e-9);
        assert_eq!(all.lead(), Lead::B);
        assert_eq!(family.levels("a", "b", Measure::Throughput).len(), 2);
    }

    #[test]
    fn a_point_whose_repeats_agree_by_chance_keeps_the_pool_s_noise() {
        let points = [
            point("a", "c=1", &[100.0, 100.0]),
            point("a", "c=8", &[100.0, 130.0]),
            point("b", "c=1", &[104.0, 104.0]),
            point("b", "c=8", &[100.0, 130.0]),
        ];
        let family = answer_all(&runtimes(), &points, 1);
        let c1 = family
            .answers
            .iter()
            .find(|q| {
                q.scope
                    == Scope::Level {
                        axis: "c".into(),
                        value: "1".into(),
                    }
            })
            .unwrap();
        // Identical repeats would make 4% look certain; the pool keeps it open.
        assert_eq!(c1.lead(), Lead::Open);
        assert!(c1.effect.lo < 1.0 && c1.effect.hi > 1.08);
    }

    #[test]
    fn the_repeats_a_decision_needs_fall_as_the_difference_grows() {
        let points = [
            point("a", "c=1", &[100.0, 110.0, 95.0]),
            point("b", "c=1", &[103.0, 99.0, 108.0]),
        ];
        let family = answer_all(&runtimes(), &points, 1);
        let all = &family.answers[0];
        let small = all.repeats_for(0.05, 1).unwrap();
        let large = all.repeats_for(0.20, 1).unwrap();
        assert!(large < small, "{large} < {small}");
        assert_eq!(all.repeats_for(0.001, 1), None, "beyond 50 repeats");
    }
}
