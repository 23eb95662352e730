//! Replays the adaptive-repeats stop rule on the repeats a run recorded:
//! for each target, at which repeat every configuration would have stopped,
//! with the rule exec applies (each configuration's own interval) and with
//! the alternative it does not use (the runtime's between-repeat variance
//! pooled over its configurations, as compare pools it). Run by
//! scripts/adaptive-vs-fixed.sh on the adaptive run, whose configurations
//! mostly ran to `max`, so their first k repeats are what a design that
//! stopped at k would have measured (the host's conditions and the order of
//! the cells aside).
//!
//!     adaptive-replay RUN_DIR [--min 3] [--max 10]
use std::collections::BTreeMap;
use std::path::PathBuf;

use indexmap::IndexMap;
use runner::results::{CellStatus, MEASUREMENTS_FILE, MeasurementRow, read_csv};
use runner::stats::effect::{MeanInterval, PooledVariance, t_quantile};

const LEVEL: f64 = 0.95;
const TARGETS: [f64; 5] = [0.03, 0.05, 0.10, 0.15, 0.20];

/// One configuration's usable throughputs, in repeat order.
struct Config {
    runtime: String,
    values: Vec<f64>,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut run, mut min, mut max) = (None::<PathBuf>, 3usize, 10usize);
    while let Some(arg) = args.next() {
        let mut number = |what: &str| -> usize {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{what} needs a whole number"))
        };
        match arg.as_str() {
            "--min" => min = number("--min"),
            "--max" => max = number("--max"),
            _ => run = Some(arg.into()),
        }
    }
    let run = run.expect("usage: adaptive-replay RUN_DIR [--min 3] [--max 10]");
    let path = run.join(MEASUREMENTS_FILE);
    let rows: Vec<MeasurementRow> = read_csv(&path)
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("{}: no measurements", path.display()));
    let mut by_repeat: IndexMap<String, (String, BTreeMap<u32, Option<f64>>)> = IndexMap::new();
    for row in &rows {
        let usable = (row.status != CellStatus::Failed && row.throughput_rps > 0.0)
            .then_some(row.throughput_rps);
        by_repeat
            .entry(row.config_id.clone())
            .or_insert_with(|| (row.runtime.clone(), BTreeMap::new()))
            .1
            .insert(row.repeat, usable);
    }
    let configs: Vec<Config> = by_repeat
        .into_values()
        .map(|(runtime, repeats)| Config {
            runtime,
            values: repeats.into_values().flatten().collect(),
        })
        .collect();
    let shortest = configs.iter().map(|c| c.values.len()).min().unwrap_or(0);
    println!(
        "replay of {} ({} configurations, {shortest} to {} usable repeats each; rule: min {min}, max {max})\n",
        run.display(),
        configs.len(),
        configs.iter().map(|c| c.values.len()).max().unwrap_or(0)
    );
    println!(
        "| target | interval | cells | at target | median repeats | median half-width at stop |"
    );
    println!("|---|---|---:|---:|---:|---:|");
    for target in TARGETS {
        for pooled in [false, true] {
            let stops = replay(&configs, min, max, target, pooled);
            let cells: usize = stops.iter().map(|s| s.0).sum();
            let reached = stops.iter().filter(|s| s.2).count();
            let mut repeats: Vec<usize> = stops.iter().map(|s| s.0).collect();
            let mut widths: Vec<f64> = stops.iter().filter_map(|s| s.1).collect();
            println!(
                "| +-{:.0}% | {} | {cells} | {reached} of {} | {} | +-{:.1}% |",
                target * 100.0,
                if pooled {
                    "pooled per runtime"
                } else {
                    "own (exec's rule)"
                },
                stops.len(),
                median_usize(&mut repeats),
                median(&mut widths) * 100.0
            );
        }
    }
}

/// Per configuration: the repeats it gets, its half-width at the stop (on
/// the interval the rule used) and whether it reached the target.
fn replay(
    configs: &[Config],
    min: usize,
    max: usize,
    target: f64,
    pooled: bool,
) -> Vec<(usize, Option<f64>, bool)> {
    let mut taken: Vec<usize> = vec![0; configs.len()];
    let mut stopped: Vec<Option<(Option<f64>, bool)>> = vec![None; configs.len()];
    // Interleaved rounds: repeat k of every configuration still running.
    for round in 1..=max {
        for (i, c) in configs.iter().enumerate() {
            if stopped[i].is_none() && round <= c.values.len() {
                taken[i] = round;
            }
        }
        let widths: Vec<Option<f64>> = (0..configs.len())
            .map(|i| {
                if pooled {
                    pooled_half_width(configs, &taken, i)
                } else {
                    MeanInterval::of(&configs[i].values[..taken[i]], LEVEL).map(|m| m.half_width)
                }
            })
            .collect();
        for i in 0..configs.len() {
            if stopped[i].is_some() {
                continue;
            }
            let n = taken[i];
            let narrow = widths[i].is_some_and(|h| h <= target);
            if n >= min && narrow {
                stopped[i] = Some((widths[i], true));
            } else if n >= max.min(configs[i].values.len()) {
                stopped[i] = Some((widths[i], false));
            }
        }
    }
    (0..configs.len())
        .map(|i| {
            let (width, reached) = stopped[i].unwrap_or((None, false));
            (taken[i], width, reached)
        })
        .collect()
}

/// The half-width of configuration `i` with the variance of its runtime
/// pooled over all of its configurations' repeats so far.
fn pooled_half_width(configs: &[Config], taken: &[usize], i: usize) -> Option<f64> {
    let runtime = &configs[i].runtime;
    let groups: Vec<&[f64]> = configs
        .iter()
        .zip(taken)
        .filter(|(c, _)| &c.runtime == runtime)
        .map(|(c, &n)| &c.values[..n])
        .collect();
    let pool = PooledVariance::of(groups)?;
    let n = taken[i] as f64;
    Some((t_quantile(0.5 + LEVEL / 2.0, pool.df) * (pool.var / n).sqrt()).exp_m1())
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn median_usize(v: &mut [usize]) -> usize {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}
