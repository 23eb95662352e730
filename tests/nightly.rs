//! `runner nightly` end to end: the real binary, a tiny python service on
//! 127.0.0.1. A first night has no history (exit 4, verdict.json written),
//! a mistyped spec never exits 0, and a second unchanged night is judged.
//! Then the night's judgement on histories made from the committed fixture
//! run: one slow night is unconfirmed (exit 8, not a page), two in a row
//! page (exit 1) naming the configuration, a slow night followed by a
//! normal one pages nothing, and the night before must agree on the same
//! configuration.
mod common;
mod report_support;

use std::path::Path;

use assert_cmd::prelude::*;
use std::process::Output;

use common::*;
use report_support::experiment::{Experiment, run_id};
use runner::app::nightly::NightlyOutcome;

/// One runtime, one configuration, two tiny repeats.
const TINY: &str = r#"workload: { method: GET, path: "/work/16", expect: { status: 200 } }
axes: { concurrency: [1] }
load: { mode: closed, timeout: 2s }
repeats: 2
warmup: { service: 100ms, cell: 50ms }
measure: { duration: 200ms }
sample: { interval: 50ms }
faults: { max_restarts: 1 }
startup: { repeats: 0 }
gates: { generator_wait: off, littles_law: off }
"#;

fn nightly(spec: &Path) -> Output {
    runner().arg("nightly").arg(spec).output().unwrap()
}

fn verdict(run: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(run.join("verdict.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_mistyped_spec_is_never_zero_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let out = nightly(&tmp.path().join("experiments/2062.yaml"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{stderr}");
    assert!(stderr.contains("2062.yaml"), "{stderr}");
    assert!(stderr.contains("nightly: no run started"), "{stderr}");
}

#[test]
fn first_night_has_no_history_then_the_next_is_judged() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(
        tmp.path(),
        &[PyRuntime {
            name: "py-a",
            env: &[],
            extra: "",
        }],
        TINY,
    );
    let first = nightly(&spec);
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert_eq!(first.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("no history yet: 0 earlier comparable run(s)"),
        "{stderr}"
    );
    let run = newest_run(tmp.path());
    let v = verdict(&run);
    assert_eq!(v["format_version"], 1);
    assert_eq!(v["outcome"], "no-history-yet");
    assert_eq!(v["exit_code"], 4);
    let md = std::fs::read_to_string(run.join("verdict.md")).unwrap();
    assert!(
        md.starts_with("compared with 0 earlier runs: no history yet"),
        "{md}"
    );

    // Run ids are to the second: the second night must be a new directory.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let second = nightly(&spec);
    let stderr = String::from_utf8_lossy(&second.stderr);
    let code = second.status.code();
    assert!(
        matches!(code, Some(0 | 3 | 8)),
        "a judged outcome, never a page (the first night had no history to be \
         judged against, so nothing can confirm a regression): {stderr}"
    );
    let run2 = newest_run(tmp.path());
    assert_ne!(run, run2);
    let v = verdict(&run2);
    assert_eq!(v["format_version"], 1);
    assert_eq!(v["exit_code"].as_u64(), code.map(|c| c as u64));
    assert_eq!(v["earlier_runs"], 1);
    assert_eq!(v["baseline_runs"].as_array().unwrap().len(), 1);
    assert!(v["comparison"]["cells"].is_array(), "{v}");
}

/// Throughput x0.7 in `config` on the nights `slow` (run indices).
fn slow_nights(runs: usize, config: &'static str, slow: &'static [usize]) -> Experiment {
    Experiment::with(runs, move |i, c| {
        if c == config && slow.contains(&i) {
            0.7
        } else {
            1.0
        }
    })
}

const GO_8K: &str = "go-stdlib/payload=8192/concurrency=12";
const GO_SMALL: &str = "go-stdlib/payload=7/concurrency=1";

fn tests(list: &[runner::app::nightly::Test]) -> Vec<(String, &'static str)> {
    list.iter()
        .map(|t| (t.config_id.clone(), t.metric))
        .collect()
}

/// Night 6 of `experiment` judged as nightly judges it, its outcome
/// asserted, with the confirmation a regression carries.
fn night_six(
    experiment: &Experiment,
    outcome: NightlyOutcome,
) -> (
    runner::app::nightly::Verdict,
    runner::app::nightly::Confirmation,
) {
    let verdict = runner::app::nightly::judge(&experiment.run_dir(6));
    assert_eq!(verdict.outcome, outcome, "{}", verdict.message);
    assert_eq!(verdict.exit_code, outcome.exit_code());
    let confirmation = verdict.confirmation.clone().expect("tonight regressed");
    (verdict, confirmation)
}

#[test]
fn one_slow_night_is_unconfirmed_and_does_not_page() {
    let experiment = slow_nights(7, GO_8K, &[6]);
    let (verdict, confirmation) = night_six(&experiment, NightlyOutcome::Unconfirmed);
    assert_eq!(verdict.exit_code, 8);
    assert_eq!(
        confirmation.previous_run.as_deref(),
        Some(run_id(5).as_str())
    );
    assert_eq!(
        tests(&confirmation.unconfirmed),
        [(GO_8K.to_string(), "throughput")]
    );
    assert!(confirmation.confirmed.is_empty());
    assert!(
        verdict.message.contains("not confirmed"),
        "{}",
        verdict.message
    );
    assert!(verdict.message.contains(GO_8K), "{}", verdict.message);
}

#[test]
fn two_slow_nights_in_a_row_page_naming_the_configuration() {
    let experiment = slow_nights(7, GO_8K, &[5, 6]);
    let (verdict, confirmation) = night_six(&experiment, NightlyOutcome::Regression);
    assert_eq!(
        tests(&confirmation.confirmed),
        [(GO_8K.to_string(), "throughput")]
    );
    assert!(
        verdict.message.contains("confirmed by the night before"),
        "{}",
        verdict.message
    );
    let md = verdict.markdown();
    assert!(
        md.starts_with("compared with 5 earlier runs: slower (confirmed)"),
        "{md}"
    );
    assert!(
        md.contains(&format!("- paged, the night before ({}) agrees", run_id(5))),
        "{md}"
    );

    // The report of a judged run opens with its verdict and what moved.
    verdict.write(&experiment.run_dir(6)).unwrap();
    runner()
        .arg("report")
        .arg(experiment.run_dir(6))
        .assert()
        .success();
    let report = std::fs::read_to_string(experiment.run_dir(6).join("report.md")).unwrap();
    assert!(
        report.contains("**compared with 5 earlier runs: slower (confirmed)**"),
        "{report}"
    );
    assert!(
        report.contains(&format!("- {GO_8K} throughput 0.7")),
        "{report}"
    );
    let html = std::fs::read_to_string(experiment.run_dir(6).join("report.html")).unwrap();
    assert!(html.contains("class=\"warn verdict\""), "the page marks it");
}

#[test]
fn a_slow_night_followed_by_a_normal_one_pages_nothing() {
    let experiment = slow_nights(7, GO_8K, &[5]);
    let verdict = runner::app::nightly::judge(&experiment.run_dir(6));
    assert!(
        !matches!(
            verdict.outcome,
            NightlyOutcome::Regression | NightlyOutcome::Unconfirmed
        ),
        "{}",
        verdict.message
    );
}

#[test]
fn the_night_before_must_agree_on_the_same_configuration() {
    let experiment = Experiment::with(7, |i, c| match (i, c) {
        (5, GO_SMALL) | (6, GO_8K) => 0.7,
        _ => 1.0,
    });
    let (_, confirmation) = night_six(&experiment, NightlyOutcome::Unconfirmed);
    assert_eq!(
        tests(&confirmation.unconfirmed),
        [(GO_8K.to_string(), "throughput")]
    );
}
