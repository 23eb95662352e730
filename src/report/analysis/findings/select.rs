//! Which sentences a figure gets. The runtimes are ranked by the figure and
//! split into groups where a step between neighbours is decided: inside a
//! group no neighbour is told from the next. A group of three or more
//! whose pairs are all open is one sentence (a tie, with what would decide
//! it); otherwise its decided pairs are stated, and its open ones share one
//! sentence when there are three or more. Between two neighbouring
//! groups, one sentence when every runtime of the upper one beats every one
//! of the lower (the clear last place), else each pair across.
use super::MeasureFindings;
use super::sentences::{self, Finding, Kind};
use std::collections::HashMap;

use crate::stats::Better;
use crate::stats::effect::log_mean;
use crate::stats::findings::{Family, Measure, PointRepeats, Scope};

pub fn measure_findings(
    family: &Family,
    runtimes: &[String],
    points: &[PointRepeats],
    measure: Measure,
    crowded: &Option<String>,
) -> MeasureFindings {
    // Every pair's finding, once: the grouping, the groups and the steps
    // between them all read these.
    let mut by_pair: HashMap<(usize, usize), Finding> = HashMap::new();
    for (i, a) in runtimes.iter().enumerate() {
        for (j, b) in runtimes.iter().enumerate().skip(i + 1) {
            if let Some(f) = sentences::pair_finding(family, a, b, measure) {
                by_pair.insert((i, j), f);
            }
        }
    }
    // A pair as the family holds it: positions in spec order.
    let spec_order = |x: &str, y: &str| -> Option<(usize, usize)> {
        let ix = runtimes.iter().position(|r| r == x)?;
        let iy = runtimes.iter().position(|r| r == y)?;
        Some((ix.min(iy), ix.max(iy)))
    };
    let pair = |x: &str, y: &str| by_pair.get(&spec_order(x, y)?);
    // `better` leads `worse` over every point.
    let leads = |better: &str, worse: &str| {
        pair(better, worse)
            .is_some_and(|f| f.better_than == [[better.to_string(), worse.to_string()]])
    };
    let ranked = rank(runtimes, points, measure);
    let mut groups: Vec<Vec<String>> = Vec::new();
    for (i, rt) in ranked.iter().enumerate() {
        let decided_step = i > 0 && pair(&ranked[i - 1], rt).is_some_and(|f| f.kind == Kind::Lead);
        match groups.last_mut() {
            Some(g) if !decided_step => g.push(rt.clone()),
            _ => groups.push(vec![rt.clone()]),
        }
    }
    let mut findings = Vec::new();
    for (gi, group) in groups.iter().enumerate() {
        let inside: Vec<Finding> = (0..group.len())
            .flat_map(|i| (i + 1..group.len()).map(move |j| (i, j)))
            .filter_map(|(i, j)| pair(&group[i], &group[j]).cloned())
            .collect();
        let (open, decided): (Vec<Finding>, Vec<Finding>) = (inside.iter().cloned())
            .partition(|f| matches!(f.kind, Kind::Undecided | Kind::Within));
        if group.len() >= 3 && decided.is_empty() && !open.is_empty() {
            findings.push(sentences::tie_finding(group, measure, &open));
        } else if open.len() >= 3 {
            // Some pairs of a large group are decided: those are stated;
            // the open ones share one sentence instead of one each.
            findings.extend(decided);
            findings.push(sentences::open_pairs_finding(group, measure, &open));
        } else {
            findings.extend(inside);
        }
        let Some(lower) = groups.get(gi + 1) else {
            continue;
        };
        let across: Vec<(&String, &String)> = group
            .iter()
            .flat_map(|u| lower.iter().map(move |l| (u, l)))
            .collect();
        let answers: Vec<_> = across
            .iter()
            .filter_map(|(u, l)| {
                let (a, b) = spec_order(u, l)?;
                family.answer(&runtimes[a], &runtimes[b], measure, &Scope::All)
            })
            .collect();
        let upper_wins = answers.len() == across.len() && across.iter().all(|(u, l)| leads(u, l));
        if upper_wins && across.len() > 1 {
            findings.push(sentences::group_lead(group, lower, measure, &answers));
        } else {
            findings.extend(across.iter().filter_map(|(u, l)| pair(u, l).cloned()));
        }
    }
    let (step, direction) = match measure.better() {
        Better::Higher => (">", "highest first"),
        Better::Lower => ("<", "lowest first"),
    };
    let ordering = (ranked.len() >= 3 && groups.len() > 1).then(|| {
        let shown: Vec<String> = groups
            .iter()
            .map(|g| {
                g.iter()
                    .map(|rt| format!("`{rt}`"))
                    .collect::<Vec<_>>()
                    .join(" ≈ ")
            })
            .collect();
        format!(
            "{} ({direction}; ≈: not told apart)",
            shown.join(&format!(" {step} "))
        )
    });
    let caveat = crowded.as_ref().filter(|_| !measure.robust()).map(|why| {
        format!(
            "Read with care: {why}, and co-location distorts {} more than CPU per request or \
             memory.",
            measure.label()
        )
    });
    let missing = findings.is_empty().then(|| why_nothing(points, measure));
    MeasureFindings {
        measure,
        label: measure.heading(),
        ordering,
        caveat,
        missing,
        findings,
    }
}

/// Why no finding is stated on `measure`: said as it is, since "one usable
/// repeat" on a run of three repeats at fixed open-loop rates would be false.
fn why_nothing(points: &[PointRepeats], measure: Measure) -> String {
    let with_values: Vec<&PointRepeats> = points
        .iter()
        .filter(|p| !p.of(measure).is_empty())
        .collect();
    if measure == Measure::Throughput && points.iter().all(|p| p.open_loop) {
        return "not compared: every cell offered a fixed rate (an open loop), so the rate, not \
                the service, set the throughput; latency and CPU per request compare them"
            .to_string();
    }
    if with_values.iter().all(|p| p.of(measure).len() < 2) {
        return "nothing can be stated: one usable repeat per configuration gives no noise \
                estimate (run with `repeats: 2` or more)"
            .to_string();
    }
    "nothing can be stated: no two runtimes share a point of the axes with two or more \
     usable repeats each"
        .to_string()
}

/// The runtimes with a value of `measure`, better first: by the mean log
/// value over the points every one of them ran (over each one's own
/// points when they share none).
fn rank(runtimes: &[String], points: &[PointRepeats], measure: Measure) -> Vec<String> {
    let with: Vec<&String> = (runtimes.iter())
        .filter(|rt| {
            points
                .iter()
                .any(|p| p.runtime == rt.as_str() && !p.of(measure).is_empty())
        })
        .collect();
    let shared = |axes: &str| {
        with.iter().all(|rt| {
            (points.iter())
                .any(|p| p.runtime == rt.as_str() && p.axes == axes && !p.of(measure).is_empty())
        })
    };
    let score = |rt: &str, only_shared: bool| -> Option<f64> {
        let logs: Vec<f64> = (points.iter())
            .filter(|p| p.runtime == rt && (!only_shared || shared(p.axes)))
            .filter_map(|p| log_mean(p.of(measure)))
            .collect();
        (!logs.is_empty()).then(|| logs.iter().sum::<f64>() / logs.len() as f64)
    };
    let any_shared = points.iter().any(|p| shared(p.axes));
    let mut scored: Vec<(String, f64)> = with
        .iter()
        .filter_map(|rt| Some(((*rt).clone(), score(rt, any_shared)?)))
        .collect();
    scored.sort_by(|x, y| match measure.better() {
        Better::Higher => y.1.total_cmp(&x.1),
        Better::Lower => x.1.total_cmp(&y.1),
    });
    scored.into_iter().map(|(rt, _)| rt).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point<'r>(runtime: &'r str, rps: &[f64], open_loop: bool) -> PointRepeats<'r> {
        let mut values: [Vec<f64>; 4] = Default::default();
        values[Measure::Throughput as usize] = rps.to_vec();
        PointRepeats {
            runtime,
            axes: "rate=2000",
            values,
            rounds: Default::default(),
            open_loop,
        }
    }

    #[test]
    fn no_finding_is_explained_by_its_cause() {
        // Three repeats at a fixed rate: the rate set the throughput.
        let open = [
            point("a", &[2000.0; 3], true),
            point("b", &[2000.0; 3], true),
        ];
        assert!(
            why_nothing(&open, Measure::Throughput)
                .starts_with("not compared: every cell offered a fixed rate")
        );
        // One repeat each: no noise estimate.
        let single = [point("a", &[900.0], false), point("b", &[800.0], false)];
        assert!(why_nothing(&single, Measure::Throughput).contains("one usable repeat"));
        // Repeats enough, and still nothing stated (the runtimes share no point).
        let apart = [
            point("a", &[900.0, 910.0], false),
            point("b", &[800.0, 790.0], false),
        ];
        let why = why_nothing(&apart, Measure::Throughput);
        assert!(why.contains("no two runtimes share a point"), "{why}");
    }
}
