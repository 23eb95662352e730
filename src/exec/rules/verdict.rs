//! Whether a measured cell can be trusted: `ok`, or `suspect` with every
//! reason, or `failed` (never silently kept, never silently dropped). The
//! gates on errors, host, latency floor and Little's law are in
//! [`crate::exec::rules::gates`].
use crate::exec::rules::facts::CellFacts;
use crate::exec::rules::gates::findings;
use crate::results::CellStatus;

/// Share of its CPU budget above which the generator may have limited the result.
pub const GENERATOR_CPU_LIMIT: f64 = 0.80;
/// Open loop: how far the achieved rate may be from the target.
pub const RATE_TOLERANCE: f64 = 0.05;

/// `(Ok, "")`, `(Suspect, reasons)` or `(Failed, reason)`.
pub fn verdict(f: &CellFacts) -> (CellStatus, String) {
    if f.successes == 0 {
        return (
            CellStatus::Failed,
            format!("no successful request ({} errors)", f.errors),
        );
    }
    let mut reasons = Vec::new();
    if let Some(why) = f.saturated {
        reasons.push(format!("generator saturated: {why}"));
    }
    // The generator's own diagnosis already covers its CPU use.
    if f.saturated.is_none() && f.gen_cpu_share > GENERATOR_CPU_LIMIT {
        reasons.push(format!(
            "generator used {:.0}% of its CPU budget (limit {:.0}%)",
            f.gen_cpu_share * 100.0,
            GENERATOR_CPU_LIMIT * 100.0
        ));
    }
    if let Some((target, achieved)) = f.rates
        && target > 0.0
        && ((achieved - target) / target).abs() > RATE_TOLERANCE
    {
        reasons.push(format!(
            "open-loop rate not held: {achieved:.0} req/s achieved for {target:.0} targeted"
        ));
    }
    if let Some(what) = f.evidence_missing {
        reasons.push(format!("training evidence not found: {what}"));
    }
    let mut status = if reasons.is_empty() {
        CellStatus::Ok
    } else {
        CellStatus::Suspect
    };
    for gate in findings(f) {
        if gate.status == CellStatus::Failed {
            status = CellStatus::Failed;
            // The reason it failed comes first.
            reasons.insert(0, gate.reason);
        } else {
            if status == CellStatus::Ok {
                status = CellStatus::Suspect;
            }
            reasons.push(gate.reason);
        }
    }
    (status, reasons.join("; "))
}

/// One line of a multi-line text (its lines joined by ` | `).
pub use crate::process::one_line;

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> CellFacts<'static> {
        CellFacts {
            successes: 100,
            gen_cpu_share: 0.3,
            ..Default::default()
        }
    }

    #[test]
    fn a_failing_gate_fails_the_cell_and_its_reason_comes_first() {
        let f = CellFacts {
            successes: 50,
            errors: 50,
            error_classes: "status 500: 50".into(),
            gen_cpu_share: 0.93,
            ..facts()
        };
        let (status, reason) = verdict(&f);
        assert_eq!(status, CellStatus::Failed);
        assert!(
            reason.starts_with("errors: 50 of 100 requests failed"),
            "{reason}"
        );
        assert!(reason.contains("93% of its CPU budget"), "{reason}");
    }

    #[test]
    fn a_suspect_gate_makes_an_ok_cell_suspect() {
        let f = CellFacts {
            gen_wait_share: 0.2,
            host_cpus_used: 1.9,
            host_cpus: 2,
            ..facts()
        };
        let (status, reason) = verdict(&f);
        assert_eq!(status, CellStatus::Suspect);
        assert!(
            reason.starts_with("the generator waited for CPU 20%"),
            "{reason}"
        );
    }

    #[test]
    fn healthy_cell_is_ok() {
        assert_eq!(verdict(&facts()), (CellStatus::Ok, String::new()));
    }

    #[test]
    fn busy_generator_and_missed_rate_are_suspect_with_both_reasons() {
        let f = CellFacts {
            gen_cpu_share: 0.93,
            rates: Some((1000.0, 900.0)),
            ..facts()
        };
        let (status, reason) = verdict(&f);
        assert_eq!(status, CellStatus::Suspect);
        assert!(reason.contains("93% of its CPU budget"), "{reason}");
        assert!(
            reason.contains("900 req/s achieved for 1000 targeted"),
            "{reason}"
        );
    }

    #[test]
    fn the_generators_own_diagnosis_is_not_repeated() {
        let f = CellFacts {
            saturated: Some("generator CPU at 86%"),
            gen_cpu_share: 0.86,
            ..facts()
        };
        assert_eq!(
            verdict(&f),
            (
                CellStatus::Suspect,
                "generator saturated: generator CPU at 86%".into()
            )
        );
    }

    #[test]
    fn rate_within_five_percent_is_fine() {
        let f = CellFacts {
            rates: Some((1000.0, 960.0)),
            ..facts()
        };
        assert_eq!(verdict(&f).0, CellStatus::Ok);
    }

    #[test]
    fn no_success_is_failed() {
        let f = CellFacts {
            successes: 0,
            errors: 12,
            ..facts()
        };
        assert_eq!(
            verdict(&f),
            (
                CellStatus::Failed,
                "no successful request (12 errors)".into()
            )
        );
    }

    #[test]
    fn one_line_joins_lines() {
        assert_eq!(one_line("a\n\n  b  \nc"), "a | b | c");
    }
}
