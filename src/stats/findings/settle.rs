//! `repeats: { until: decided }`: whether a runtime's findings are settled,
//! so that its configurations need no more rounds.
//!
//! A question is settled when its interval (at the level that holds over
//! every look the design may take) excludes 1 (decided), lies within 5%
//! either way (within), or could not be decided by `max` repeats at the
//! noise seen (out of reach: the difference is too small for this host).
//! A runtime is settled when every question over every point between it and
//! another runtime, on throughput, CPU per request and memory, is settled.
//! p99 holds no repeats: its noise would keep every runtime to `max`, and
//! its findings are stated with whatever the rounds gave.
//!
//! The stopping looks at the data, which is why the family's level is
//! divided among the looks too ([`super::Family::looks`]): Bonferroni over
//! every interval of every round holds whichever round each runtime stops
//! at. examples/calibrate-findings.rs (`sequential`) measures it.
use super::SMALL_CHANGE;
use super::family::{Answer, Family, Lead, Scope};
use super::measures::Measure;
use crate::stats::effect::t_quantile;

/// The figures whose findings hold repeats.
pub const DECIDED_ON: [Measure; 3] = [Measure::Throughput, Measure::CpuPerRequest, Measure::Memory];

/// Where one question stands at a look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    Decided,
    Within,
    OutOfReach,
    Open,
}

/// The standing of `answer` in `family`, for a design of at most `max` repeats.
pub fn standing(answer: &Answer, family: &Family, max: u32) -> Standing {
    if answer.lead() != Lead::Open {
        return Standing::Decided;
    }
    if answer.within() {
        return Standing::Within;
    }
    // The largest difference a plain 95% interval still allows: a pair is
    // out of reach only when even that could not be decided by `max`
    // repeats. On the difference seen alone, a noisy first look gave up on
    // pairs a fixed design of `max` decided; on the family's own interval
    // (at 1 - 0.05/(questions x looks)) nothing was ever out of reach
    // (scripts/decided-vs-fixed.sh, examples/calibrate-findings.rs).
    let e = &answer.effect;
    let far = e.ratio.ln().abs() + t_quantile(0.975, e.df) * e.se;
    let target = far.exp_m1().max(SMALL_CHANGE);
    match answer.repeats_for(target, family.tests()) {
        Some(n) if n <= max => Standing::Open,
        _ => Standing::OutOfReach,
    }
}

/// The runtimes with an open question against another on [`DECIDED_ON`].
pub fn open_runtimes(family: &Family, max: u32) -> Vec<String> {
    let mut open: Vec<String> = Vec::new();
    let questions = family
        .answers
        .iter()
        .filter(|q| q.scope == Scope::All && DECIDED_ON.contains(&q.measure));
    for q in questions {
        if standing(q, family, max) == Standing::Open {
            for rt in [&q.a, &q.b] {
                if !open.contains(rt) {
                    open.push(rt.clone());
                }
            }
        }
    }
    open
}
