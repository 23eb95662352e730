//! Calibration of `runner compare`: run pairs drawn from a hierarchical
//! noise model are judged by the library's own rule, and the rates are
//! printed. Run it with scripts/calibrate-compare.sh (release build).
//!
//!     calibrate-compare [REFERENCE_RUN] [--pairs N] [--seed S]
//!
//! Scenarios, each a matrix of 3 runtimes x 28 configurations (84, the
//! reference run's shape):
//! - `reference`: each runtime's throughput and p99 noise as estimated from
//!   the reference run (pooled between-repeat log SD), split between a
//!   repeat offset and per-second AR(1) noise as the run's own timelines
//!   say (their per-second SD and lag-1 autocorrelation), 2 repeats;
//! - `quiet`: 3% between repeats and 3% per second (the same
//!   autocorrelation and window), 5 and 10 repeats.
//!
//! For each: the false-alarm rate per run (an unchanged system exits 1),
//! how often it exits 3 (inconclusive) or 0, the detectable change, the
//! repeats needed for the threshold, and the power to find a 10% (and 25%)
//! throughput drop in one configuration.
use std::path::{Path, PathBuf};

use runner::report::compare::simulate::{Change, Model, Noise, rng};
use runner::report::compare::{Outcome, design, outcome};
use runner::results::RunData;
use runner::stats::{ALPHA, MAX_REPEATS, Metric, Rule, RunNoise, Verdict, judge_all, run_repeats};

const RULE: Rule = Rule {
    threshold: 0.05,
    latency_threshold: Some(0.10),
    alpha: ALPHA,
};

struct Args {
    reference: PathBuf,
    pairs: usize,
    seed: u64,
}

fn args() -> Args {
    let mut out = Args {
        reference: PathBuf::from("results/2026/20261130T100516Z"),
        pairs: 2000,
        seed: 20261201,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--pairs" => out.pairs = it.next().and_then(|v| v.parse().ok()).expect("--pairs N"),
            "--seed" => out.seed = it.next().and_then(|v| v.parse().ok()).expect("--seed S"),
            path => out.reference = PathBuf::from(path),
        }
    }
    out
}

/// What the reference run's per-second timelines say: the window, the
/// pooled per-second log SD within a repeat, and the lag-1 autocorrelation
/// (pooled, plus 1/T for the small-sample bias of a short series).
struct Seconds {
    window: usize,
    sd: f64,
    rho: f64,
}

fn seconds_of(run: &RunData) -> Seconds {
    let (mut sum_sq, mut df, mut lag, mut window) = (0.0, 0.0, 0.0, 0);
    for m in &run.measurements {
        let Ok(Some(rows)) = run.timeline(&m.cell_id) else {
            continue;
        };
        let logs: Vec<f64> = rows
            .iter()
            .filter(|r| r.ok > 0)
            .map(|r| (r.ok as f64).ln())
            .collect();
        if logs.len() < 3 {
            continue;
        }
        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
        let d: Vec<f64> = logs.iter().map(|x| x - mean).collect();
        sum_sq += d.iter().map(|x| x * x).sum::<f64>();
        lag += d.windows(2).map(|w| w[0] * w[1]).sum::<f64>();
        df += (d.len() - 1) as f64;
        window = window.max(d.len());
    }
    let rho = (lag / sum_sq + 1.0 / window.max(1) as f64).clamp(0.0, 0.9);
    Seconds {
        window: window.max(1),
        sd: (sum_sq / df.max(1.0)).sqrt(),
        rho,
    }
}

/// Each runtime's noise in the reference run.
fn reference_model(path: &Path) -> (Model, Seconds) {
    let run = RunData::load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let seconds = seconds_of(&run);
    let mut model = Model {
        runtimes: Vec::new(),
        configs_per_runtime: 28,
        repeats: 2,
        seconds: seconds.window,
        rho: seconds.rho,
    };
    // The share of a repeat's variance its per-second noise explains.
    let (total, share) = model.noise_of(0.0, seconds.sd);
    let within = total * total * (1.0 - share);
    let noise = RunNoise::of(&run_repeats(&run.measurements));
    model.runtimes = noise
        .runtimes()
        .map(|rt| {
            let var = |m| noise.get(rt, m).map_or(0.01, |p| p.var);
            let n = Noise {
                throughput: var(Metric::Throughput).sqrt(),
                p99: var(Metric::P99).sqrt(),
                between_share: (1.0 - within / var(Metric::Throughput)).clamp(0.0, 1.0),
            };
            (rt.to_string(), n)
        })
        .collect();
    (model, seconds)
}

fn quiet_model(repeats: usize, seconds: &Seconds) -> Model {
    let mut model = Model {
        runtimes: Vec::new(),
        configs_per_runtime: 28,
        repeats,
        seconds: seconds.window,
        rho: seconds.rho,
    };
    let (sd, share) = model.noise_of(0.03, 0.03);
    let noise = Noise {
        throughput: sd,
        p99: sd,
        between_share: share,
    };
    model.runtimes = (1..=3).map(|i| (format!("runtime-{i}"), noise)).collect();
    model
}

#[derive(Default)]
struct Tally {
    exit: [usize; 4],
    /// The changed configuration flagged: in throughput, in any judged metric.
    found: usize,
    found_any: usize,
    flagged_elsewhere: usize,
    detectable: Vec<f64>,
    needed: Vec<Option<u32>>,
}

fn run(model: &Model, pairs: usize, seed: u64, change: Option<Change>) -> Tally {
    let mut rng = rng(seed);
    let mut t = Tally::default();
    let target = change.map(|c| model.config_id(c.runtime, c.config));
    for i in 0..pairs {
        let a = model.draw(&mut rng, None);
        let b = model.draw(&mut rng, change);
        let judged = judge_all(&a, &b, &RULE);
        t.exit[outcome(&judged).exit_code() as usize] += 1;
        for c in &judged {
            let regressed = c.metrics.iter().any(|m| m.verdict.is_regression());
            if Some(&c.config_id) == target.as_ref() {
                t.found += usize::from(
                    c.metrics[Metric::Throughput as usize].verdict == Verdict::Regression,
                );
                t.found_any += usize::from(regressed);
            } else if regressed {
                t.flagged_elsewhere += 1;
            }
        }
        if i == 0 {
            for row in design(&a, &b, &RULE, &judged) {
                if row.metric == Metric::Throughput {
                    t.detectable.extend(row.detectable);
                    t.needed.push(row.repeats_needed);
                }
            }
        }
    }
    t
}

fn pct(n: usize, of: usize) -> String {
    format!("{:.2}%", 100.0 * n as f64 / of as f64)
}

fn describe(name: &str, model: &Model, pairs: usize, seed: u64) {
    println!("\n## {name}: {} repeats per side", model.repeats);
    for (rt, n) in &model.runtimes {
        println!(
            "  {rt}: repeat SD throughput {:.1}%, p99 {:.1}% ({:.0}% of the variance between repeats)",
            n.throughput.exp_m1() * 100.0,
            n.p99.exp_m1() * 100.0,
            n.between_share * 100.0
        );
    }
    let null = run(model, pairs, seed, None);
    println!(
        "  unchanged system, {pairs} pairs: false alarm (exit 1) {}, inconclusive (exit 3) {}, no regression (exit 0) {}",
        pct(null.exit[Outcome::Regression.exit_code() as usize], pairs),
        pct(null.exit[Outcome::Inconclusive.exit_code() as usize], pairs),
        pct(null.exit[Outcome::NoRegression.exit_code() as usize], pairs),
    );
    let det: Vec<String> = null
        .detectable
        .iter()
        .map(|d| format!("{:.1}%", d * 100.0))
        .collect();
    let need: Vec<String> = null
        .needed
        .iter()
        .map(|n| n.map_or(format!(">{MAX_REPEATS}"), |n| n.to_string()))
        .collect();
    println!(
        "  detectable throughput change per runtime (80% power, Holm over {} tests): {}; repeats per side to detect {:.0}%: {}",
        model.runtimes.len() * model.configs_per_runtime * 2,
        det.join(", "),
        RULE.threshold * 100.0,
        need.join(", ")
    );
    for factor in [0.9, 0.75] {
        let change = Change {
            runtime: 1,
            config: 7,
            factor,
        };
        let hit = run(model, pairs / 4, seed + 1, Some(change));
        println!(
            "  power: a {:.0}% throughput drop in one configuration (its p99 up as much) is flagged in throughput in {} of {} pairs, in throughput or p99 in {}; other configurations flagged in {} of them",
            (1.0 - factor) * 100.0,
            pct(hit.found, pairs / 4),
            pairs / 4,
            pct(hit.found_any, pairs / 4),
            hit.flagged_elsewhere
        );
    }
}

fn main() {
    let args = args();
    println!(
        "# runner compare calibration (seed {}, rule: Holm at alpha {} over throughput and p99, thresholds {:.0}% / {:.0}%)",
        args.seed,
        RULE.alpha,
        RULE.threshold * 100.0,
        RULE.latency_threshold.unwrap_or_default() * 100.0
    );
    let (reference, seconds) = reference_model(&args.reference);
    println!(
        "reference run {}: {} s windows, per-second SD {:.1}%, lag-1 autocorrelation {:.2} (bias-corrected)",
        args.reference.display(),
        seconds.window,
        seconds.sd.exp_m1() * 100.0,
        seconds.rho
    );
    describe("reference run's noise", &reference, args.pairs, args.seed);
    describe(
        "quiet host",
        &quiet_model(5, &seconds),
        args.pairs,
        args.seed + 10,
    );
    describe(
        "quiet host",
        &quiet_model(10, &seconds),
        args.pairs,
        args.seed + 20,
    );
}
