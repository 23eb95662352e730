//! Calibration of the Findings rule from outside its own model: runs of
//! four runtimes are drawn from noise structures the rule does not assume
//! (it assumes each point's log repeats are normal with a variance moderated
//! toward its runtime's), the family answered by the library's rule
//! (`stats::findings::family_of`), and two rates and a power printed:
//!
//! - **false findings**: the share of runs where any stated lead (any
//!   question of the family whose interval excludes 1) points the wrong way
//!   or exists where the runtimes are equal; the rule promises <= 5%;
//! - **coverage**: the share of runs where *every* interval of the family
//!   holds its true ratio; the rule promises >= 95%.
//!
//! - **real differences stated**: in the `different` world, the share of
//!   the questions over every point whose true ratio is not 1 that the
//!   findings decide the right way (the power, what the bound costs).
//!
//!     cargo run --release --example calibrate-findings [-- --runs N --seed S]
//!
//! Shape: 4 runtimes x payload {small, large} x concurrency {1, 16, 64},
//! with 2 and with 3 repeats per configuration, and `repeats: { min: 3,
//! max: 8, until: decided }` (rounds stop per runtime by `findings::settle`,
//! the rule exec uses, and the intervals hold over the 6 looks), repeats
//! interleaved in rounds as `runner exec` runs them. `mean repeats` is per
//! configuration; `same leads` is the share of runs where the design states
//! the same leads over every point as the fixed design of `max` repeats on
//! the same draws (each at its own level). Two worlds per structure: `equal`
//! (every runtime the same: every finding is false) and `different` (one
//! runtime 0.3x the throughput, one 0.6x the CPU per request and 0.7x the
//! memory, one whose throughput lead flips with concurrency; true ratios
//! known). The `bootstrap` structure resamples the log residuals of the
//! committed runs under results/ (each repeat over its configuration's
//! geometric mean), per figure: real hosts' noise, not a formula.
use std::path::Path;

use rand::RngExt;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal, StudentT};
use runner::report::compare::simulate::{rng, wilson};
use runner::results::RunData;
use runner::results::model::MeasurementRow;
use runner::stats::findings::{self, Lead, Measure, Scope, family_of, settle};

const RUNTIMES: [&str; 4] = ["one", "two", "three", "four"];
const PAYLOADS: [&str; 2] = ["small", "large"];
const CONCURRENCY: [u32; 3] = [1, 16, 64];

/// How a repeat's log noise is drawn, per figure.
enum Structure {
    /// Each configuration its own SD, log-uniform in 1%..20%.
    ConfigNoise,
    /// Student t with 3 degrees of freedom, scaled to 6%.
    HeavyTails,
    /// 4% noise, and 6% of repeats hit: throughput x0.6, p99 x2.5, CPU x1.3.
    Outliers,
    /// 4% noise and a level that falls 3% per round, shared by every
    /// configuration of the round.
    RoundDrift,
    /// The committed runs' residuals, per figure.
    Bootstrap(Vec<Vec<f64>>),
}

impl Structure {
    fn name(&self) -> &'static str {
        match self {
            Structure::ConfigNoise => "config-noise (1-20% per configuration)",
            Structure::HeavyTails => "heavy tails (t3, 6%)",
            Structure::Outliers => "outlier repeats (6%)",
            Structure::RoundDrift => "drift within the run (-3%/round)",
            Structure::Bootstrap(_) => "bootstrap of committed residuals",
        }
    }
}

/// The true level of `runtime` at a point, per figure (throughput, p99,
/// CPU per request, memory), relative to a common base.
fn truth(different: bool, runtime: usize, concurrency: u32) -> [f64; 4] {
    if !different {
        return [1.0; 4];
    }
    match runtime {
        1 => [1.0, 1.0, 0.6, 0.7],
        2 => [0.3, 1.2, 1.0, 1.0],
        3 => {
            let flip = match concurrency {
                1 => 1.25,
                16 => 1.0,
                _ => 0.8,
            };
            [flip, 1.0 / flip, 1.0, 3.0]
        }
        _ => [1.0; 4],
    }
}

fn draw_run(
    structure: &Structure,
    different: bool,
    repeats: u32,
    rng: &mut StdRng,
) -> Vec<MeasurementRow> {
    let t3 = StudentT::new(3.0).expect("3 degrees of freedom");
    let configs = RUNTIMES.len() * PAYLOADS.len() * CONCURRENCY.len();
    let sds: Vec<f64> = (0..configs * 4)
        .map(|_| (0.01f64.ln() + rng.random::<f64>() * (20.0f64).ln()).exp())
        .collect();
    let mut rows = Vec::new();
    for round in 0..repeats {
        let mut c = 0;
        for (r, runtime) in RUNTIMES.iter().enumerate() {
            for payload in PAYLOADS {
                for conc in CONCURRENCY {
                    let level = truth(different, r, conc);
                    let hit = rng.random::<f64>() < 0.06;
                    let noise: Vec<f64> = (0..4)
                        .map(|m| {
                            let z: f64 = StandardNormal.sample(rng);
                            match structure {
                                Structure::ConfigNoise => z * sds[c * 4 + m],
                                Structure::HeavyTails => t3.sample(rng) * 0.06 / 3f64.sqrt(),
                                Structure::Outliers => {
                                    let shift = [0.6f64, 2.5, 1.3, 1.0][m];
                                    z * 0.04 + if hit { shift.ln() } else { 0.0 }
                                }
                                Structure::RoundDrift => z * 0.04 - 0.03 * round as f64,
                                Structure::Bootstrap(pools) => {
                                    pools[m][rng.random_range(0..pools[m].len())]
                                }
                            }
                        })
                        .collect();
                    let value = |m: usize, base: f64| base * level[m] * noise[m].exp();
                    let seconds = 10.0;
                    let rps = value(0, 10_000.0);
                    let ok = (rps * seconds) as u64;
                    rows.push(MeasurementRow {
                        cell_id: format!("{runtime}/p={payload}/c={conc}/r{}", round + 1),
                        config_id: format!("{runtime}/p={payload}/c={conc}"),
                        runtime: runtime.to_string(),
                        repeat: round + 1,
                        axes: format!("payload={payload},concurrency={conc}"),
                        duration_s: seconds,
                        ok,
                        throughput_rps: rps,
                        latency_p99_ms: value(1, 5.0),
                        service_cpu_s: Some(value(2, 0.1) * ok as f64 / 1000.0),
                        service_rss_max_bytes: Some(value(3, 20e6) as u64),
                        status: runner::results::model::CellStatus::Ok,
                        ..Default::default()
                    });
                    c += 1;
                }
            }
        }
    }
    rows
}

/// The true log ratio b/a of a question: the mean over its points.
fn true_log_ratio(different: bool, a: usize, b: usize, measure: Measure, scope: &Scope) -> f64 {
    let m = Measure::ALL
        .iter()
        .position(|x| *x == measure)
        .expect("a measure");
    let mut sum = 0.0;
    let mut n = 0.0;
    for payload in PAYLOADS {
        for conc in CONCURRENCY {
            let inside = match scope {
                Scope::All => true,
                Scope::Level { axis, value } => match axis.as_str() {
                    "payload" => value == payload,
                    _ => value == &conc.to_string(),
                },
            };
            if inside {
                sum += (truth(different, b, conc)[m] / truth(different, a, conc)[m]).ln();
                n += 1.0;
            }
        }
    }
    sum / n
}

/// The committed runs' log residuals per figure (each repeat over its
/// configuration's geometric mean, configurations with 2+ repeats).
fn residual_pools() -> Vec<Vec<f64>> {
    let mut pools = vec![Vec::new(); 4];
    let Ok(experiments) = std::fs::read_dir(Path::new("results")) else {
        return pools;
    };
    for exp in experiments.flatten() {
        for run in std::fs::read_dir(exp.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let Ok(data) = RunData::load(&run.path()) else {
                continue;
            };
            let mut configs: Vec<&str> = data
                .measurements
                .iter()
                .map(|m| m.config_id.as_str())
                .collect();
            configs.sort();
            configs.dedup();
            for config in configs {
                let rows: Vec<&MeasurementRow> = data
                    .measurements
                    .iter()
                    .filter(|m| {
                        m.config_id == config
                            && m.status != runner::results::model::CellStatus::Failed
                    })
                    .collect();
                if rows.len() < 2 {
                    continue;
                }
                let figures = |m: &MeasurementRow| -> [Option<f64>; 4] {
                    [
                        Some(m.throughput_rps),
                        Some(m.latency_p99_ms),
                        m.service_cpu_s
                            .filter(|_| m.ok > 0)
                            .map(|c| c / m.ok as f64),
                        m.service_rss_max_bytes.map(|b| b as f64),
                    ]
                };
                for (k, pool) in pools.iter_mut().enumerate() {
                    let logs: Vec<f64> = rows
                        .iter()
                        .filter_map(|m| figures(m)[k])
                        .filter(|v| *v > 0.0 && v.is_finite())
                        .map(f64::ln)
                        .collect();
                    if logs.len() == rows.len() {
                        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
                        // Scaled by sqrt(n/(n-1)) so a residual has the repeat's variance.
                        let scale = (logs.len() as f64 / (logs.len() - 1) as f64).sqrt();
                        pool.extend(logs.iter().map(|l| (l - mean) * scale));
                    }
                }
            }
        }
    }
    pools
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut runs, mut seed) = (1000usize, 20261204u64);
    while let Some(arg) = args.next() {
        let value = args.next().and_then(|v| v.parse::<u64>().ok());
        match (arg.as_str(), value) {
            ("--runs", Some(v)) => runs = v as usize,
            ("--seed", Some(v)) => seed = v,
            _ => {
                eprintln!("usage: calibrate-findings [--runs N] [--seed S]");
                std::process::exit(2);
            }
        }
    }
    let pools = residual_pools();
    let sizes: Vec<usize> = pools.iter().map(Vec::len).collect();
    println!(
        "Findings calibration: {runs} runs per row, seed {seed}; 4 runtimes x 2 payloads x 3 \
         concurrencies; residual pools (throughput, p99, CPU, memory): {sizes:?}"
    );
    println!(
        "| structure | repeats | world | family | mean repeats | false findings (<= 5%) | coverage (>= 95%) | same leads as fixed max | real differences stated |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut structures = vec![
        Structure::ConfigNoise,
        Structure::HeavyTails,
        Structure::Outliers,
        Structure::RoundDrift,
    ];
    if sizes.iter().all(|s| *s > 0) {
        structures.push(Structure::Bootstrap(pools));
    }
    let names: Vec<String> = RUNTIMES.iter().map(|r| r.to_string()).collect();
    let mut rng = rng(seed);
    for structure in &structures {
        for design in [Design::Fixed(2), Design::Fixed(3), Design::Decided(3, 8)] {
            for different in [false, true] {
                let (mut false_runs, mut covered_runs, mut family) = (0, 0, 0);
                let (mut repeats_used, mut same) = (0.0, 0);
                let (mut real, mut stated) = (0, 0);
                for _ in 0..runs {
                    let drawn = draw_run(structure, different, design.max(), &mut rng);
                    let full = leads(&family_of(&names, &drawn, 1));
                    let (rows, looks) = design.run(&names, drawn);
                    repeats_used += rows.len() as f64
                        / (RUNTIMES.len() * PAYLOADS.len() * CONCURRENCY.len()) as f64;
                    let fam = family_of(&names, &rows, looks);
                    family = fam.answers.len();
                    let (wrong, covered, found) = judge(&fam, different);
                    real += found.0;
                    stated += found.1;
                    same += usize::from(leads(&fam) == full);
                    false_runs += usize::from(wrong);
                    covered_runs += usize::from(covered);
                }
                println!(
                    "| {} | {} | {} | {family} | {:.2} | {} | {} | {} | {} |",
                    structure.name(),
                    design.name(),
                    if different { "different" } else { "equal" },
                    repeats_used / runs as f64,
                    wilson(false_runs, runs),
                    wilson(covered_runs, runs),
                    match design {
                        Design::Decided(..) => wilson(same, runs),
                        Design::Fixed(_) => "-".to_string(),
                    },
                    if real > 0 {
                        format!("{:.0}%", 100.0 * stated as f64 / real as f64)
                    } else {
                        "-".to_string()
                    }
                );
            }
        }
    }
}

/// How many repeats a drawn run keeps.
#[derive(Clone, Copy)]
enum Design {
    /// Every configuration this many times.
    Fixed(u32),
    /// `repeats: { min, max, until: decided }`: rounds from `min`, each
    /// runtime stopping at the look where its findings are settled
    /// (`findings::settle`, the rule exec uses).
    Decided(u32, u32),
}

impl Design {
    fn max(self) -> u32 {
        match self {
            Design::Fixed(n) => n,
            Design::Decided(_, max) => max,
        }
    }

    fn name(self) -> String {
        match self {
            Design::Fixed(n) => format!("{n}"),
            Design::Decided(min, max) => format!("{min}..{max} until decided"),
        }
    }

    /// The rows the design keeps of `drawn` (every round up to `max`), and
    /// the looks its intervals must hold over.
    fn run(self, names: &[String], drawn: Vec<MeasurementRow>) -> (Vec<MeasurementRow>, usize) {
        let Design::Decided(min, max) = self else {
            return (drawn, 1);
        };
        let looks = findings::looks(min, max);
        let mut stopped: Vec<(String, u32)> = Vec::new();
        let kept = |stopped: &[(String, u32)], round: u32| -> Vec<MeasurementRow> {
            drawn
                .iter()
                .filter(|m| {
                    let last =
                        (stopped.iter().find(|(rt, _)| *rt == m.runtime)).map_or(round, |s| s.1);
                    m.repeat <= last
                })
                .cloned()
                .collect()
        };
        for round in min..max {
            let family = family_of(names, &kept(&stopped, round), looks);
            let open = settle::open_runtimes(&family, max);
            for rt in names {
                if !open.contains(rt) && !stopped.iter().any(|(s, _)| s == rt) {
                    stopped.push((rt.clone(), round));
                }
            }
            if stopped.len() == names.len() {
                break;
            }
        }
        (kept(&stopped, max), looks)
    }
}

/// The family's decided leads over every point (pair, figure, direction):
/// what the findings state.
fn leads(family: &findings::Family) -> Vec<(String, String, Measure, Lead)> {
    family
        .answers
        .iter()
        .filter(|q| q.scope == Scope::All && q.lead() != Lead::Open)
        .map(|q| (q.a.clone(), q.b.clone(), q.measure, q.lead()))
        .collect()
}

/// Whether any stated lead is false, whether every interval holds its
/// truth, and of the questions over every point whose truth is a
/// difference, how many there are and how many are stated (the power).
fn judge(family: &findings::Family, different: bool) -> (bool, bool, (usize, usize)) {
    let (mut wrong, mut covered, mut real) = (false, true, (0, 0));
    for q in &family.answers {
        let a = RUNTIMES.iter().position(|r| *r == q.a).expect("a runtime");
        let b = RUNTIMES.iter().position(|r| *r == q.b).expect("a runtime");
        let t = true_log_ratio(different, a, b, q.measure, &q.scope);
        let (lo, hi) = (q.effect.lo.ln(), q.effect.hi.ln());
        covered &= lo <= t + 1e-12 && t - 1e-12 <= hi;
        let false_lead = (lo > 0.0 && t <= 1e-12) || (hi < 0.0 && t >= -1e-12);
        wrong |= q.lead() != Lead::Open && false_lead;
        if q.scope == Scope::All && t.abs() > 1e-12 {
            real.0 += 1;
            real.1 += usize::from(q.lead() != Lead::Open && !false_lead);
        }
    }
    (wrong, covered, real)
}
