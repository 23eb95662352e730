//! The one answer `runner nightly` gives a scheduler: every way a night can
//! end is a variant with its own exit code, and only a judged "no
//! regression" is 0, so a cron line cannot mistake "nothing was judged"
//! for "nothing got worse" (the fail-open gap of the old
//! scripts/compare-last.sh).
use serde::Serialize;

/// How a night ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NightlyOutcome {
    /// Judged: no regression, and every interval rules one out.
    NoRegression,
    /// Judged: at least one configuration regressed, and the night before
    /// agreed (or every repeat failed): a confirmed change, the one page.
    Regression,
    /// Judged: something regressed tonight that the night before did not
    /// show: not paged; the next night confirms or clears it.
    Unconfirmed,
    /// Every earlier run differs from tonight's (host, toolchain, spec).
    NotComparable,
    /// Judged, but some interval still reaches a threshold-sized change.
    Inconclusive,
    /// Fewer comparable earlier runs than the rule needs.
    NoHistoryYet,
    /// The run started but failed or is incomplete (exec's exit 1).
    RunFailed,
    /// Nothing started: spec or preflight problem (exec's exit 2).
    NotStarted,
    /// The run is complete but the history could not be read or the
    /// verdict not written.
    CouldNotJudge,
    /// The run was interrupted (exec's 130).
    Interrupted,
}

impl NightlyOutcome {
    /// 0/1/2/3 as `runner compare`; the codes above 3 are nightly's own,
    /// so that no exec code is mistaken for a compare verdict; 130 stays
    /// the shell's "interrupted".
    pub fn exit_code(self) -> u8 {
        match self {
            NightlyOutcome::NoRegression => 0,
            NightlyOutcome::Regression => 1,
            NightlyOutcome::NotComparable => 2,
            NightlyOutcome::Inconclusive => 3,
            NightlyOutcome::NoHistoryYet => 4,
            NightlyOutcome::RunFailed => 5,
            NightlyOutcome::NotStarted => 6,
            NightlyOutcome::CouldNotJudge => 7,
            NightlyOutcome::Unconfirmed => 8,
            NightlyOutcome::Interrupted => 130,
        }
    }

    /// A run exec did not finish cleanly: which outcome it is (`None`:
    /// exec's 0, the run is complete and is to be judged).
    pub fn of_exec(code: u8) -> Option<Self> {
        match code {
            0 => None,
            2 => Some(NightlyOutcome::NotStarted),
            130 => Some(NightlyOutcome::Interrupted),
            _ => Some(NightlyOutcome::RunFailed),
        }
    }

    /// A judged comparison's outcome.
    pub fn of_compare(outcome: crate::report::compare::Outcome) -> Self {
        use crate::report::compare::Outcome;
        match outcome {
            Outcome::NoRegression => NightlyOutcome::NoRegression,
            Outcome::Regression => NightlyOutcome::Regression,
            Outcome::Inconclusive => NightlyOutcome::Inconclusive,
        }
    }

    /// verdict.md's first word(s) for it.
    pub fn short(self, improvements: usize) -> &'static str {
        match self {
            NightlyOutcome::NoRegression if improvements > 0 => "faster",
            NightlyOutcome::NoRegression => "unchanged",
            NightlyOutcome::Regression => "slower (confirmed)",
            NightlyOutcome::Unconfirmed => "slower tonight, not confirmed",
            NightlyOutcome::Inconclusive => "could not tell",
            NightlyOutcome::NoHistoryYet => "no history yet",
            NightlyOutcome::NotComparable => "not comparable",
            NightlyOutcome::RunFailed | NightlyOutcome::Interrupted => "run incomplete",
            NightlyOutcome::NotStarted => "no run",
            NightlyOutcome::CouldNotJudge => "could not judge",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::compare::Outcome;

    const ALL: [NightlyOutcome; 10] = [
        NightlyOutcome::NoRegression,
        NightlyOutcome::Regression,
        NightlyOutcome::Unconfirmed,
        NightlyOutcome::NotComparable,
        NightlyOutcome::Inconclusive,
        NightlyOutcome::NoHistoryYet,
        NightlyOutcome::RunFailed,
        NightlyOutcome::NotStarted,
        NightlyOutcome::CouldNotJudge,
        NightlyOutcome::Interrupted,
    ];

    #[test]
    fn only_a_judged_no_regression_exits_zero() {
        for o in ALL {
            assert_eq!(
                o.exit_code() == 0,
                o == NightlyOutcome::NoRegression,
                "{o:?}"
            );
        }
    }

    #[test]
    fn every_outcome_has_its_own_code() {
        let codes: std::collections::BTreeSet<u8> = ALL.iter().map(|o| o.exit_code()).collect();
        assert_eq!(codes.len(), ALL.len());
    }

    #[test]
    fn compare_verdicts_keep_compare_codes() {
        for o in [
            Outcome::NoRegression,
            Outcome::Regression,
            Outcome::Inconclusive,
        ] {
            assert_eq!(NightlyOutcome::of_compare(o).exit_code(), o.exit_code());
        }
    }

    #[test]
    fn exec_codes_never_read_as_verdicts() {
        assert_eq!(NightlyOutcome::of_exec(0), None);
        assert_eq!(NightlyOutcome::of_exec(1), Some(NightlyOutcome::RunFailed));
        assert_eq!(NightlyOutcome::of_exec(2), Some(NightlyOutcome::NotStarted));
        assert_eq!(
            NightlyOutcome::of_exec(130),
            Some(NightlyOutcome::Interrupted)
        );
    }
}
