//! Calibration of `runner compare` from outside its own model: runs drawn
//! from noise structures the rule does not assume (report::compare::simulate
//! names them) are judged by the library's rule, and the rates printed.
//! Run it with scripts/calibrate-compare.sh (release build).
//!
//!     calibrate-compare [--pairs N] [--power-pairs N] [--nights N] [--seed S] [--only NAME]
//!                       [--sections compare,nightly,corpus,history] [RUN_DIR...]
//!
//! `--only` keeps the structures whose name contains NAME (e.g. `host`);
//! `--sections` the parts to run (all four by default; `corpus` replays
//! results/noise-corpus). Without `--seed`
//! the seed is drawn afresh from the clock and printed, so a figure comes
//! from a seed nobody tuned on and can be replayed.
//!
//! Matrix: 3 runtimes x 28 configurations (84, the reference run's shape),
//! 5 repeats per side, 3% between-repeat noise (throughput and p99),
//! `--threshold 10% --latency-threshold 20%` (issue 27's setting). Per
//! structure, three ways to judge the newest run:
//! - `pair, floor = its run noise`: `compare A B` with the between-run floor
//!   set to the run-level noise the structure puts in (0 when it has none);
//! - `pair, default floor`: the same with compare's defaults (5% / 12%);
//! - `history of 5`: `compare --baseline history` against the 5 runs before
//!   it, with the run-level noise estimated from those runs.
//!
//! Printed: the false-alarm rate per run (an unchanged system exits 1), with
//! its 95% Wilson interval, the share that exits 3, and the power to find a
//! 10% and a 20% loss (throughput x0.9 / x0.8 and p99 over the same) in one
//! configuration, counted when that configuration is called a regression.
//! The bootstrap structure resamples the residuals of the committed runs
//! given as RUN_DIR (default: every run under results/).
//!
//! Then `runner nightly`'s page (app::nightly's confirmation, on drawn
//! histories of 5 runs, the night before and tonight): how often an
//! unchanged system pages (tonight's regression confirmed by the night
//! before on the same configuration and metric) against how often it would
//! have exited 1 on tonight alone, per structure; and how often a
//! persistent 20% loss in one configuration from the night before on is
//! paged tonight, its second night, naming only that configuration.
//!
//! Then `runner history` (report::history::judge_repeats on drawn runs):
//! how often a flat history of 100 series fails a night or confirms a false
//! regression, how often a 10% step with 5 runs before and 3 after is
//! confirmed, and how often a -1% per run drift over 20 runs is reported.
use std::path::PathBuf;
use std::sync::Arc;

use runner::report::compare::outcome;
use runner::report::compare::simulate::{Change, Residuals, Structure, World, rng, wilson};
use runner::report::history::{
    HistorySettings, SeriesReport, Verdict as HistoryVerdict, judge_repeats,
};
use runner::results::RunData;
use runner::stats::{
    ALPHA, DEFAULT_FLOOR, Floor, Rule, RunLevelNoise, RunRepeats, Verdict, judge_all, run_repeats,
};

const RULE: Rule = Rule {
    threshold: 0.10,
    latency_threshold: Some(0.20),
    alpha: ALPHA,
};
const HISTORY: usize = 5;

struct Args {
    pairs: usize,
    power_pairs: usize,
    nights: usize,
    seed: u64,
    /// Only the structures whose name contains this (all when empty).
    only: String,
    sections: Vec<String>,
    runs: Vec<PathBuf>,
}

fn args() -> Args {
    let mut out = Args {
        pairs: 2000,
        power_pairs: 500,
        nights: 500,
        seed: fresh_seed(),
        only: String::new(),
        sections: ["compare", "nightly", "corpus", "history"]
            .map(String::from)
            .to_vec(),
        runs: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    let number = |v: Option<String>, flag: &str| -> u64 {
        v.and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{flag} takes a number"))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--pairs" => out.pairs = number(it.next(), "--pairs") as usize,
            "--power-pairs" => out.power_pairs = number(it.next(), "--power-pairs") as usize,
            "--nights" => out.nights = number(it.next(), "--nights") as usize,
            "--seed" => out.seed = number(it.next(), "--seed"),
            "--only" => out.only = it.next().expect("--only takes part of a structure's name"),
            "--sections" => {
                let list = it.next().expect("--sections takes compare,nightly,history");
                out.sections = list.split(',').map(str::to_string).collect();
            }
            path => out.runs.push(PathBuf::from(path)),
        }
    }
    if out.runs.is_empty() {
        out.runs = committed_runs();
    }
    out
}

/// A seed nobody chose: the clock's nanoseconds.
fn fresh_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64 % 1_000_000_007)
}

/// Every run directory under results/<experiment>/.
fn committed_runs() -> Vec<PathBuf> {
    let mut runs = Vec::new();
    for experiment in std::fs::read_dir("results").into_iter().flatten().flatten() {
        for run in std::fs::read_dir(experiment.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if run.path().join("status.json").is_file() {
                runs.push(run.path());
            }
        }
    }
    runs.sort();
    runs
}

/// How the newest run is judged.
#[derive(Clone, Copy)]
enum Judge {
    PairAtStructureFloor,
    PairAtDefaultFloor,
    History,
}

/// What one judgement of the newest run says: whether it fails (exit 1),
/// whether anything could not be told (compare's exit 3, history's
/// inconclusive rows), and the configurations called a regression.
struct Judgement {
    fails: bool,
    cannot_tell: bool,
    regressions: Vec<String>,
}

fn judge(world: &World, judge: Judge, runs: &[RunRepeats]) -> Judgement {
    let newest = runs.last().expect("a run to judge");
    let floor = match judge {
        Judge::PairAtDefaultFloor => DEFAULT_FLOOR,
        Judge::PairAtStructureFloor => {
            let (t, p) = world.structure.run_noise(world);
            Floor {
                throughput: t,
                p99: p,
            }
        }
        // `compare --baseline history` gives the verdicts of history's
        // judgement of the newest run (tests/report_compare.rs holds it):
        // its baseline is the last stable regime less the unconfirmed
        // tail, its run-level noise estimated from that regime's runs.
        Judge::History => {
            let series = judge_repeats(runs, &settings(RULE.threshold, RULE.latency_threshold));
            return Judgement {
                fails: series.iter().any(|s| s.newest.verdict.fails()),
                cannot_tell: series
                    .iter()
                    .any(|s| s.newest.verdict == HistoryVerdict::Inconclusive),
                regressions: series
                    .iter()
                    .filter(|s| s.newest.verdict == HistoryVerdict::Regression)
                    .map(|s| s.config_id.clone())
                    .collect(),
            };
        }
    };
    let judged = judge_all(
        &runs[runs.len() - 2],
        newest,
        &RULE,
        &RunLevelNoise::floor(floor),
    );
    let exit = outcome(&judged).exit_code();
    Judgement {
        fails: exit == 1,
        cannot_tell: exit == 3,
        regressions: judged
            .iter()
            .filter(|c| c.metrics.iter().any(|m| m.verdict == Verdict::Regression))
            .map(|c| c.config_id.clone())
            .collect(),
    }
}

/// History's settings with these thresholds (the rest its defaults).
fn settings(threshold: f64, latency_threshold: Option<f64>) -> HistorySettings {
    HistorySettings {
        threshold,
        latency_threshold: latency_threshold.expect("p99 is judged"),
        ..HistorySettings::default()
    }
}

struct Rates {
    false_alarms: usize,
    inconclusive: usize,
    pairs: usize,
}

fn unchanged(world: &World, how: Judge, pairs: usize, seed: u64) -> Rates {
    let mut rng = rng(seed);
    let (mut false_alarms, mut inconclusive) = (0, 0);
    for _ in 0..pairs {
        let runs = world.draw_history(&mut rng, HISTORY + 1, None);
        let judgement = judge(world, how, &runs);
        false_alarms += usize::from(judgement.fails);
        inconclusive += usize::from(judgement.cannot_tell);
    }
    Rates {
        false_alarms,
        inconclusive,
        pairs,
    }
}

fn power(world: &World, how: Judge, loss: f64, pairs: usize, seed: u64) -> f64 {
    let mut rng = rng(seed);
    let change = Change {
        runtime: 1,
        config: 3,
        factor: 1.0 - loss,
    };
    let id = world.config_id(1, 3);
    let found = (0..pairs)
        .filter(|_| {
            let runs = world.draw_history(&mut rng, HISTORY + 1, Some(change));
            judge(world, how, &runs).regressions.contains(&id)
        })
        .count();
    found as f64 / pairs as f64
}

/// A night's page by `runner nightly`'s rule on a drawn history (the last
/// run is tonight): the tests tonight's judgement calls a regression (or
/// failed), and those the night before, judged on the runs before it,
/// agrees with. Each night is judged as nightly judges it, the newest run
/// against its baseline alone (`newest.alone`, `compare --baseline
/// history`'s verdict), not with history's second family, which pools the
/// newest three runs: consecutive nights' pooled tails share runs, so one
/// slow night two runs back made both nights "regress" (the first version
/// of this table counted that: slow nights paged 2.15% and 2.70%).
struct Night {
    tonight: Vec<(String, &'static str)>,
    paged: Vec<(String, &'static str)>,
    /// Some series of tonight's could not tell (nightly's exit 3 when nothing regressed).
    inconclusive: bool,
}

fn night(runs: &[RunRepeats], settings: &HistorySettings) -> Night {
    let fails = |series: Vec<SeriesReport>| -> Vec<(String, &'static str, Verdict)> {
        series
            .into_iter()
            .filter_map(|s| {
                let alone = s.newest.alone.filter(|v| v.is_regression())?;
                Some((s.config_id, s.metric.label(), alone))
            })
            .collect()
    };
    let series = judge_repeats(runs, settings);
    let inconclusive = series
        .iter()
        .any(|s| s.newest.alone.is_some_and(Verdict::cannot_tell));
    let tonight = fails(series);
    let before = if tonight.is_empty() {
        Vec::new()
    } else {
        fails(judge_repeats(&runs[..runs.len() - 1], settings))
    };
    let paged = tonight
        .iter()
        .filter(|(c, m, v)| {
            *v == Verdict::Failed || before.iter().any(|(bc, bm, _)| bc == c && bm == m)
        })
        .map(|(c, m, _)| (c.clone(), *m))
        .collect();
    Night {
        tonight: tonight.into_iter().map(|(c, m, _)| (c, m)).collect(),
        paged,
        inconclusive,
    }
}

/// `runner nightly`'s calibration: per structure, unchanged histories of
/// 5 + 2 runs (the night before and tonight) and changed ones, on the
/// matrix of the history calibration at nightly's thresholds (5% / 10%).
fn nightly_calibration(
    structures: &[(usize, Structure)],
    nights: usize,
    power_nights: usize,
    seed: u64,
) {
    let settings = settings(0.05, Some(0.10));
    println!(
        "\n# runner nightly: a page only for a confirmed change\n\n\
         100 series per night (2 runtimes x 25 configurations x throughput and p99), 5 repeats \
         per run, 3% base repeat noise, thresholds 5% / 10%, a history of 5 runs before the \
         night before and tonight; {nights} unchanged histories and {power_nights} changed \
         ones per structure, seed {seed}.\n"
    );
    println!(
        "| structure | tonight alone exits 1 [95%] | pages (confirmed) [95%] | \
         20% loss from the night before: paged tonight, only it |"
    );
    println!("|---|---|---|---|");
    for (s, structure) in structures {
        let world = World {
            structure: structure.clone(),
            runtimes: 2,
            configs_per_runtime: 25,
            repeats: 5,
            sigma: 0.03,
            p99_sigma: 0.03,
        };
        let mut rng = rng(seed + 1000 * *s as u64);
        let (mut alone, mut paged) = (0, 0);
        for _ in 0..nights {
            let n = night(&world.draw_history(&mut rng, HISTORY + 2, None), &settings);
            alone += usize::from(!n.tonight.is_empty());
            paged += usize::from(!n.paged.is_empty());
        }
        let change = Change {
            runtime: 1,
            config: 3,
            factor: 0.8,
        };
        let id = world.config_id(1, 3);
        let found = (0..power_nights)
            .filter(|_| {
                let runs =
                    world.draw_history_with(&mut rng, HISTORY + 2, Some((change, HISTORY)), 0.0);
                let n = night(&runs, &settings);
                !n.paged.is_empty() && n.paged.iter().all(|(c, _)| *c == id)
            })
            .count();
        println!(
            "| {} | {} | {} | {:.0}% |",
            structure.name(),
            wilson(alone, nights),
            wilson(paged, nights),
            100.0 * found as f64 / power_nights as f64
        );
    }
}

/// The real corpus replayed (results/noise-corpus: runs of one unchanged
/// spec on this host, spread over hours): every time-ordered choice of
/// 5 + 2 of its runs is a history, judged by the nightly rule. Real
/// run-to-run behaviour, which no structure above draws.
fn corpus_replay(dir: &std::path::Path) {
    let mut runs: Vec<(String, RunRepeats)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("status.json").is_file())
        .filter_map(|e| {
            let run = RunData::load(&e.path()).ok()?;
            Some((run.status.run_id.clone(), run_repeats(&run.measurements)))
        })
        .collect();
    runs.sort_by(|a, b| a.0.cmp(&b.0));
    let settings = settings(0.05, Some(0.10));
    let k = HISTORY + 2;
    let (mut histories, mut alone, mut paged, mut cannot_tell) = (0, 0, 0, 0);
    for chosen in combinations(runs.len(), k) {
        let history: Vec<RunRepeats> = chosen.iter().map(|&i| runs[i].1.clone()).collect();
        let n = night(&history, &settings);
        histories += 1;
        alone += usize::from(!n.tonight.is_empty());
        paged += usize::from(!n.paged.is_empty());
        cannot_tell += usize::from(n.tonight.is_empty() && n.inconclusive);
    }
    println!(
        "\n# runner nightly on the real corpus\n\n\
         {} runs of {} ({} to {}), every time-ordered choice of {k} as a history of 5, the \
         night before and tonight: {histories} histories, thresholds 5% / 10%.\n",
        runs.len(),
        dir.display(),
        runs.first().map_or("-", |r| r.0.as_str()),
        runs.last().map_or("-", |r| r.0.as_str()),
    );
    println!("| question | rate [95%] |\n|---|---|");
    println!("| tonight alone exits 1 | {} |", wilson(alone, histories));
    println!("| pages (confirmed) | {} |", wilson(paged, histories));
    println!(
        "| could not tell (exit 3) | {} |",
        wilson(cannot_tell, histories)
    );
}

/// Every increasing choice of `k` of `0..n`.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    if k == 0 {
        return vec![Vec::new()];
    }
    if n < k {
        return Vec::new();
    }
    let mut out = combinations(n - 1, k);
    for mut c in combinations(n - 1, k - 1) {
        c.push(n - 1);
        out.push(c);
    }
    out
}

/// `runner history`'s calibration: per night, 100 series (2 runtimes x
/// 25 configurations x throughput and p99), 5 repeats per run at 3% noise.
fn history_calibration(nights: usize, seed: u64) {
    let world = World {
        structure: Structure::Model,
        runtimes: 2,
        configs_per_runtime: 25,
        repeats: 5,
        sigma: 0.03,
        p99_sigma: 0.03,
    };
    let settings = settings(0.05, Some(0.10));
    let mut rng = rng(seed);
    let (mut false_nights, mut false_confirmed) = (0, 0);
    for _ in 0..nights {
        let runs = world.draw_history(&mut rng, 12, None);
        let series = judge_repeats(&runs, &settings);
        false_nights += usize::from(series.iter().any(|s| s.newest.verdict.fails()));
        false_confirmed += usize::from(
            series
                .iter()
                .any(|s| s.newest.confirmed && s.newest.verdict == HistoryVerdict::Regression),
        );
    }
    let step = Change {
        runtime: 0,
        config: 0,
        factor: 0.9,
    };
    let confirmed = (0..nights)
        .filter(|_| {
            let runs = world.draw_history_with(&mut rng, 8, Some((step, 5)), 0.0);
            let series = judge_repeats(&runs, &settings);
            series.iter().any(|s| {
                s.config_id == world.config_id(0, 0)
                    && s.newest.confirmed
                    && s.newest.verdict == HistoryVerdict::Regression
            })
        })
        .count();
    let drift = (0..nights)
        .filter(|_| {
            let runs = world.draw_history_with(&mut rng, 20, None, (0.99f64).ln());
            let series = judge_repeats(&runs, &settings);
            series
                .iter()
                .any(|s| s.config_id == world.config_id(0, 0) && s.drift.is_some_and(|d| d.worse))
        })
        .count();
    let false_drift = (0..nights)
        .filter(|_| {
            let runs = world.draw_history(&mut rng, 20, None);
            judge_repeats(&runs, &settings)
                .iter()
                .any(|s| s.drift.is_some())
        })
        .count();
    println!(
        "\n# runner history: calibration\n\n\
         100 series per night (2 runtimes x 25 configurations x throughput and p99), 5 repeats \
         per run, 3% repeat noise, thresholds 5% / 10%, {nights} nights per figure, seed {seed}.\n"
    );
    println!("| question | rate [95%] |\n|---|---|");
    println!(
        "| flat, 12 runs: a night fails (any regression) | {} |",
        wilson(false_nights, nights)
    );
    println!(
        "| flat, 12 runs: a night confirms a false regression | {} |",
        wilson(false_confirmed, nights)
    );
    println!(
        "| a 10% step, 5 runs before and 3 after: confirmed | {} |",
        wilson(confirmed, nights)
    );
    println!(
        "| a -1% per run drift over 20 runs: reported | {} |",
        wilson(drift, nights)
    );
    println!(
        "| flat, 20 runs: any drift reported | {} |",
        wilson(false_drift, nights)
    );
}

fn main() {
    let args = args();
    let mut residuals = Residuals::default();
    for dir in &args.runs {
        match RunData::load(dir) {
            Ok(run) => residuals.add_run(&run_repeats(&run.measurements)),
            Err(e) => eprintln!("calibrate-compare: {} left out: {e}", dir.display()),
        }
    }
    let structures = [
        Structure::Model,
        Structure::ConfigNoise,
        Structure::Outliers,
        Structure::HeavyTails,
        Structure::RunOffsets,
        Structure::HostShift,
        Structure::Drift,
        Structure::Bootstrap(Arc::new(residuals.clone())),
        Structure::NightlyNoise,
        Structure::SlowNights,
    ];
    // Each keeps its place in the list, which its seeds derive from, so
    // `--only` and a structure added at the end change no other figure.
    let structures: Vec<(usize, Structure)> = structures
        .into_iter()
        .enumerate()
        .filter(|(_, s)| s.name().contains(&args.only))
        .collect();
    let section = |name: &str| args.sections.iter().any(|s| s == name);
    println!(
        "seed {} (replay with --seed {}); bootstrap: noise levels of {} real configurations with \
         3+ repeats, {} residual shapes from those with 5+, from {} runs.",
        args.seed,
        args.seed,
        residuals.levels.len(),
        residuals.shapes.len(),
        args.runs.len()
    );
    if section("compare") {
        compare_calibration(&structures, &args);
    }
    if section("nightly") {
        nightly_calibration(&structures, args.pairs, args.power_pairs, args.seed + 3);
    }
    if section("corpus") {
        corpus_replay(std::path::Path::new("results/noise-corpus"));
    }
    if section("history") {
        history_calibration(args.nights, args.seed + 7);
    }
}

/// `runner compare`'s table: per structure, three ways to judge.
fn compare_calibration(structures: &[(usize, Structure)], args: &Args) {
    println!(
        "# runner compare: calibration on noise it does not assume\n\n\
         3 runtimes x 28 configurations, 5 repeats per side, 3% repeat noise, \
         --threshold 10% --latency-threshold 20%, alpha {ALPHA}; {} unchanged pairs \
         (or histories of {HISTORY}+1 runs) per cell, {} for each power figure, seed {}.\n",
        args.pairs, args.power_pairs, args.seed,
    );
    println!(
        "| structure | judged as | false alarms per run [95%] | exit 3 | power, 10% loss | power, 20% loss |"
    );
    println!("|---|---|---|---|---|---|");
    for (s, structure) in structures {
        let world = World::reference(structure.clone());
        for (j, (how, label)) in [
            (Judge::PairAtStructureFloor, "pair, floor = its run noise"),
            (Judge::PairAtDefaultFloor, "pair, default floor 5%/12%"),
            (Judge::History, "history of 5"),
        ]
        .into_iter()
        .enumerate()
        {
            let seed = args.seed + 100 * *s as u64 + 10 * j as u64;
            let null = unchanged(&world, how, args.pairs, seed);
            let p10 = power(&world, how, 0.10, args.power_pairs, seed + 1);
            let p20 = power(&world, how, 0.20, args.power_pairs, seed + 2);
            println!(
                "| {} | {label} | {} | {:.1}% | {:.0}% | {:.0}% |",
                world.structure.name(),
                wilson(null.false_alarms, null.pairs),
                100.0 * null.inconclusive as f64 / null.pairs as f64,
                100.0 * p10,
                100.0 * p20
            );
        }
    }
}
