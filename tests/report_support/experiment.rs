//! An experiment directory made from the committed fixture run
//! (tests/fixtures/runs/base), copied once per run with ~3% deterministic
//! noise between repeats and each configuration's throughput scaled by a
//! factor per run: histories with a step, a slow night or none.
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{copy_dir, fixtures};

/// An experiment directory in a temporary directory that lives as long as it.
pub struct Experiment {
    _tmp: tempfile::TempDir,
    pub dir: PathBuf,
}

impl Experiment {
    /// `runs` copies of the base run, one a day from 2026-12-01, each row's
    /// throughput times `factor(run index, config id)`.
    pub fn with(runs: usize, factor: impl Fn(usize, &str) -> f64) -> Self {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("go-java-go-2026");
        for i in 0..runs {
            let run = dir.join(run_id(i));
            copy_dir(&fixtures().join("base"), &run);
            set_status(&run, i, "complete");
            scale_measurements(&run, i, |config| factor(i, config));
        }
        Experiment { _tmp: tmp, dir }
    }

    pub fn run_dir(&self, i: usize) -> PathBuf {
        self.dir.join(run_id(i))
    }
}

pub fn run_id(i: usize) -> String {
    format!("202612{:02}T020000Z", i + 1)
}

pub fn set_status(run: &Path, i: usize, state: &str) {
    let path = run.join("status.json");
    let mut status: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    status["run_id"] = run_id(i).into();
    status["started_at"] = format!("2026-12-{:02}T02:00:00Z", i + 1).into();
    status["state"] = state.into();
    std::fs::write(&path, serde_json::to_string_pretty(&status).unwrap()).unwrap();
}

/// Multiplies every row's throughput by `factor(config) * (1 + 3% noise)`
/// and its p99 by its own `1 + 3% noise`.
pub fn scale_measurements(run: &Path, run_index: usize, factor: impl Fn(&str) -> f64) {
    let path = run.join("measurements.csv");
    let mut reader = csv::Reader::from_path(&path).unwrap();
    let headers = reader.headers().unwrap().clone();
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (config, rps, p99) = (
        column("config_id"),
        column("throughput_rps"),
        column("latency_p99_ms"),
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let mut writer = csv::Writer::from_path(&path).unwrap();
    writer.write_record(&headers).unwrap();
    for (r, row) in rows.iter().enumerate() {
        let key = (run_index * 1000 + r) as u64 * 2;
        let scaled = |col: usize, f: f64| {
            let v: f64 = row[col].parse().unwrap();
            format!("{:.3}", v * f)
        };
        let new_rps = scaled(rps, factor(&row[config]) * (1.0 + 0.03 * normal(key)));
        let new_p99 = scaled(p99, 1.0 + 0.03 * normal(key + 1));
        let fields: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, v)| match c {
                c if c == rps => new_rps.clone(),
                c if c == p99 => new_p99.clone(),
                _ => v.to_string(),
            })
            .collect();
        writer.write_record(&fields).unwrap();
    }
    writer.flush().unwrap();
}

/// A deterministic draw with mean 0 and standard deviation ~1 (a sum of
/// four uniforms from a SplitMix64 step of `key`).
pub fn normal(key: u64) -> f64 {
    let uniform = |k: u64| {
        let mut z = k
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(0x632b_e59b_d9b4_e019);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as f64 / u64::MAX as f64
    };
    let sum: f64 = (0..4).map(|j| uniform(key * 4 + j)).sum();
    (sum - 2.0) / (1.0f64 / 3.0).sqrt()
}
