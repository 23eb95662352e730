//! `runner history` on experiments made from the committed fixture run
//! (tests/fixtures/runs/base), copied once per run with ~3% deterministic
//! noise between repeats and, for the step cases, 20% less throughput in one
//! configuration from a given run on: the step is found at that run and
//! nowhere else, the exit code says whether the newest run opens a worse
//! regime, other hosts' runs are breaks, partial runs are left out.
mod common;
mod report_support;

use assert_cmd::prelude::*;
use common::{assert_golden, runner};
use report_support::experiment::*;
use report_support::*;
use serde_json::Value;

/// The configuration whose throughput steps down by 20%.
const STEPPED: &str = "go-stdlib/payload=8192/concurrency=12";

/// `runs` copies of the base run, one a day from 2026-12-01, with STEPPED's
/// throughput x0.8 from run index `step_from` on.
fn stepped(runs: usize, step_from: Option<usize>) -> Experiment {
    Experiment::with(runs, |i, config| {
        if config == STEPPED && step_from.is_some_and(|k| i >= k) {
            0.8
        } else {
            1.0
        }
    })
}

impl Experiment {
    fn history(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        runner().arg("history").arg(&self.dir).args(args).assert()
    }

    /// `--format json`, asserting the exit code.
    fn json(&self, code: i32) -> Value {
        let out = self.history(&["--format", "json"]).code(code);
        serde_json::from_slice(&out.get_output().stdout).expect("JSON on stdout")
    }
}

fn series<'a>(json: &'a Value, config: &str, metric: &str) -> &'a Value {
    json["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["config_id"] == config && s["metric"] == metric)
        .unwrap_or_else(|| panic!("no series {config} {metric}"))
}

/// (config, metric, index of the first run of the new regime) of every change point.
fn change_points(json: &Value) -> Vec<(String, String, u64)> {
    let mut out = Vec::new();
    for s in json["series"].as_array().unwrap() {
        for c in s["change_points"].as_array().unwrap() {
            let point = &s["points"][c["index"].as_u64().unwrap() as usize];
            out.push((
                s["config_id"].as_str().unwrap().to_string(),
                s["metric"].as_str().unwrap().to_string(),
                point["run"].as_u64().unwrap(),
            ));
        }
    }
    out
}

/// Every series' newest verdict that fails the job or improves (not
/// `unchanged`, `inconclusive` or `below-threshold`).
fn notable_verdicts(json: &Value) -> Vec<(String, String, String)> {
    json["series"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| {
            !["unchanged", "inconclusive", "below-threshold"]
                .contains(&s["newest"]["verdict"].as_str().unwrap())
        })
        .map(|s| {
            (
                s["config_id"].as_str().unwrap().to_string(),
                s["metric"].as_str().unwrap().to_string(),
                s["newest"]["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_step_is_found_at_its_run_only_in_its_configuration_and_an_old_step_exits_0() {
    let experiment = stepped(10, Some(5));
    let json = experiment.json(0);
    assert_eq!(json["runs"].as_array().unwrap().len(), 10);
    assert_eq!(json["series"].as_array().unwrap().len(), 36);
    assert_eq!(
        change_points(&json),
        [(STEPPED.to_string(), "throughput".to_string(), 5)]
    );
    let stepped = series(&json, STEPPED, "throughput");
    let change = stepped["change_points"][0]["change"].as_f64().unwrap();
    assert!((-0.24..-0.16).contains(&change), "change {change}");
    assert_eq!(stepped["change_points"][0]["run_id"], run_id(5));
    // The newest run is judged against the new regime (runs 6-8), not the old one.
    assert_eq!(
        stepped["newest"]["baseline"],
        serde_json::json!([run_id(5), run_id(6), run_id(7)])
    );
    assert_eq!(notable_verdicts(&json), []);
    assert_eq!(json["exit_code"], 0);
}

#[test]
fn history_md_of_a_step_matches_the_golden_file() {
    let experiment = stepped(10, Some(5));
    let out = experiment.history(&[]).code(0);
    let written = std::fs::read_to_string(experiment.dir.join("history.md")).unwrap();
    assert_eq!(String::from_utf8_lossy(&out.get_output().stdout), written);
    assert_golden("tests/fixtures/runs/golden/history-step.md", &written);
}

/// Three nights: the newest is judged against run 1 alone ("1–1 (1)"), and
/// the page says on each line why run 2, a good night, is left out.
#[test]
fn a_baseline_that_leaves_out_a_run_says_why_on_the_page() {
    let experiment = stepped(3, None);
    experiment.history(&[]).code(0);
    let written = std::fs::read_to_string(experiment.dir.join("history.md")).unwrap();
    assert_golden("tests/fixtures/runs/golden/history-left-out.md", &written);
    let line = format!("| `{STEPPED}` | throughput |");
    let row = written.lines().find(|l| l.starts_with(&line)).unwrap();
    assert!(
        row.contains("| 1–1 (1); run 2 left out: may open a new regime |"),
        "{row}"
    );
    assert!(written.contains("A run \"left out\" of a baseline is one of the newest 2"));
}

/// The x values of an SVG's elements: `<circle cx=...>` of the points
/// (radius 4) and the `points` of the regime segments (orange, width 3).
fn chart_xs(svg: &str) -> (Vec<f64>, Vec<f64>) {
    let attr = |tag: &str, name: &str| -> Option<String> {
        let start = tag.find(&format!("{name}=\""))? + name.len() + 2;
        Some(tag[start..start + tag[start..].find('"')?].to_string())
    };
    let tags = |prefix: &str| -> Vec<String> {
        svg.split('<')
            .filter(|t| t.starts_with(prefix))
            .map(|t| t.split('>').next().unwrap().to_string())
            .collect()
    };
    let points = tags("circle ")
        .iter()
        .filter(|t| attr(t, "r").as_deref() == Some("4"))
        .map(|t| attr(t, "cx").unwrap().parse().unwrap())
        .collect();
    let regime = tags("polyline ")
        .iter()
        .filter(|t| attr(t, "stroke").as_deref() == Some("#E69F00"))
        .flat_map(|t| {
            attr(t, "points")
                .unwrap()
                .split_whitespace()
                .map(|xy| xy.split(',').next().unwrap().parse::<f64>().unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    (points, regime)
}

/// A step at the newest of 8 nightly runs: every chart runs over the runs'
/// dates, its regime line stops at the baseline (runs 1-6) instead of
/// running through the regressed run, and run 7, left out of the baseline,
/// is named on the chart.
#[test]
fn history_charts_run_over_dates_and_draw_a_regime_only_through_its_runs() {
    let experiment = stepped(8, Some(7));
    let out = tempfile::tempdir().unwrap();
    experiment
        .history(&["--out", out.path().to_str().unwrap()])
        .code(1);
    let html = std::fs::read_to_string(out.path().join("history.html")).unwrap();
    let svgs: Vec<&str> = html
        .split(r#"<svg width="600" height="300""#)
        .skip(1)
        .map(|s| &s[..s.find("</svg>").unwrap()])
        .collect();
    assert_eq!(svgs.len(), 36);
    for svg in svgs {
        assert!(
            svg.contains(">\n12-01\n<") && svg.contains("run started (UTC)"),
            "{svg}"
        );
        assert!(!svg.contains("run (1 = oldest)"));
        assert!(
            svg.contains("run 7 (hollow) left out of the baseline"),
            "{svg}"
        );
        let (points, regime) = chart_xs(svg);
        assert_eq!(points.len(), 8);
        let newest = points.iter().copied().fold(f64::MIN, f64::max);
        let seventh = points[6];
        let regime_end = regime.iter().copied().fold(f64::MIN, f64::max);
        assert!(
            !regime.is_empty() && regime_end < seventh,
            "{regime:?} vs {points:?}"
        );
        assert!(regime_end < newest);
    }
}

#[test]
fn a_step_at_the_newest_run_fails_the_job_unconfirmed() {
    let experiment = stepped(8, Some(7));
    let json = experiment.json(1);
    // One point after the step: no change point can be confirmed yet.
    assert_eq!(change_points(&json), []);
    assert_eq!(
        notable_verdicts(&json),
        [(STEPPED.into(), "throughput".into(), "regression".into())]
    );
    let newest = &series(&json, STEPPED, "throughput")["newest"];
    assert_eq!(newest["confirmed"], false);
    assert_eq!(newest["baseline"].as_array().unwrap().len(), 6, "{newest}");
    let ratio = newest["effect"]["ratio"].as_f64().unwrap();
    assert!((0.76..0.84).contains(&ratio), "{newest}");
    assert_eq!(json["regressions"], 1);
}

#[test]
fn a_step_confirmed_by_the_newest_run_fails_the_job_confirmed() {
    let experiment = stepped(10, Some(7));
    let json = experiment.json(1);
    assert_eq!(
        change_points(&json),
        [(STEPPED.to_string(), "throughput".to_string(), 7)]
    );
    let newest = &series(&json, STEPPED, "throughput")["newest"];
    assert_eq!(
        (&newest["verdict"], &newest["confirmed"]),
        (&"regression".into(), &true.into())
    );
    // Judged against the regime before the step.
    assert_eq!(
        newest["baseline_runs"],
        serde_json::json!([0, 1, 2, 3, 4, 5, 6])
    );
    let html = std::fs::read_to_string(experiment.dir.join("history.html")).unwrap();
    assert!(html.contains("REGRESSION</span> (confirmed: the newest 3 runs, from run 8)"));
    // The confirmation: the newest 3 runs pooled against the 7 before.
    let confirmation = newest["confirmation"]["ratio"].as_f64().unwrap();
    assert!((0.76..0.84).contains(&confirmation), "{newest}");
    assert_eq!(newest["confirmed_from"], 7);
}

#[test]
fn no_step_no_change_point_and_exit_0() {
    let experiment = stepped(8, None);
    let json = experiment.json(0);
    assert_eq!(change_points(&json), []);
    assert_eq!(notable_verdicts(&json), []);
    assert_eq!(
        (&json["regressions"], &json["change_points"]),
        (&0.into(), &0.into())
    );
}

#[test]
fn another_hosts_run_is_a_break_and_a_partial_run_is_left_out() {
    let experiment = stepped(8, None);
    std::fs::copy(
        fixtures().join("otherhost/environment.json"),
        experiment.run_dir(3).join("environment.json"),
    )
    .unwrap();
    set_status(&experiment.run_dir(5), 5, "interrupted");
    let json = experiment.json(0);
    let runs: Vec<&str> = json["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run_id"].as_str().unwrap())
        .collect();
    assert_eq!(runs.len(), 6);
    assert!(!runs.contains(&run_id(3).as_str()) && !runs.contains(&run_id(5).as_str()));
    let breaks = json["breaks"].as_array().unwrap();
    assert_eq!(breaks.len(), 1);
    assert_eq!(breaks[0]["run"]["run_id"], run_id(3));
    let differences = breaks[0]["differences"].to_string();
    assert!(differences.contains("host fingerprint"), "{differences}");
    assert!(differences.contains("toolchain go"), "{differences}");
    assert_eq!(
        json["left_out"],
        serde_json::json!([{"run": run_id(5), "reason": {"why": "not-complete", "state": "interrupted"}}])
    );
    for s in json["series"].as_array().unwrap() {
        let ids: Vec<&Value> = s["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| &p["run_id"])
            .collect();
        assert!(
            ids.len() <= 6 && !ids.contains(&&Value::from(run_id(3))),
            "{ids:?}"
        );
    }
    let md = std::fs::read_to_string(experiment.dir.join("history.md")).unwrap();
    assert!(
        md.contains("## Breaks") && md.contains("not complete (interrupted)"),
        "{md}"
    );
}

#[test]
fn the_html_is_self_contained_with_a_chart_per_configuration_and_metric() {
    let experiment = stepped(8, Some(7));
    let out = tempfile::tempdir().unwrap();
    experiment
        .history(&["--out", out.path().to_str().unwrap()])
        .code(1);
    assert!(
        !experiment.dir.join("history.html").exists(),
        "--out writes elsewhere"
    );
    let html = std::fs::read_to_string(out.path().join("history.html")).unwrap();
    assert_eq!(html.matches(r#"<svg width="600" height="300""#).count(), 36);
    for external in ["<script", "<link", "src=\"http", "href=\"http"] {
        assert!(!html.contains(external), "{external}");
    }
    assert!(out.path().join("history.md").is_file());
}

#[test]
fn the_same_history_gives_the_same_answer() {
    let experiment = stepped(9, Some(4));
    let first = experiment.history(&["--format", "json"]).code(0);
    let second = experiment.history(&["--format", "json"]).code(0);
    assert_eq!(first.get_output().stdout, second.get_output().stdout);
}

#[test]
fn the_last_stable_regime_leaves_out_the_unconfirmed_tail() {
    use runner::report::history::{HistorySettings, Metric, last_stable_regime};
    let experiment = stepped(10, Some(5));
    let stable = last_stable_regime(&experiment.dir, &HistorySettings::default()).unwrap();
    assert_eq!(stable.newest.run_id, run_id(9));
    let ids = |config: &str, metric: Metric| -> Vec<String> {
        let regime = stable
            .regimes
            .iter()
            .find(|r| r.config_id == config && r.metric == metric)
            .unwrap();
        regime.runs.iter().map(|r| r.run_id.clone()).collect()
    };
    assert_eq!(ids(STEPPED, Metric::Throughput), [5, 6, 7].map(run_id));
    assert_eq!(
        ids(STEPPED, Metric::P99),
        (0..8).map(run_id).collect::<Vec<_>>()
    );
}

#[test]
fn unusable_input_exits_2_and_says_what_to_pass() {
    let empty = tempfile::tempdir().unwrap();
    runner()
        .arg("history")
        .arg(empty.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no complete run"));
    runner()
        .args(["history", "/nonexistent/results/x"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "cannot list the experiment directory",
        ));
    let experiment = stepped(2, None);
    runner()
        .arg("history")
        .arg(experiment.run_dir(0))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is a run directory"));
    set_status(&experiment.run_dir(0), 0, "running");
    set_status(&experiment.run_dir(1), 1, "failed");
    experiment
        .history(&[])
        .code(2)
        .stderr(predicates::str::contains("not complete (failed)"));
}

#[test]
fn an_unreadable_run_is_left_out_with_a_warning() {
    let experiment = stepped(6, None);
    std::fs::remove_file(experiment.run_dir(2).join("measurements.csv")).unwrap();
    let out = experiment.history(&["--format", "json"]).code(0);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr.contains(&format!("warning: run {} left out: unreadable", run_id(2))),
        "{stderr}"
    );
    let json: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["runs"].as_array().unwrap().len(), 5);
    assert_eq!(json["left_out"][0]["reason"]["why"], "unreadable");
}

/// `--junit` and the step summary: one test case per series, the stepped
/// configuration's throughput the one failure, the summary appended after
/// what was there with the verdict, the moved series and the reports' paths.
#[test]
fn junit_and_step_summary_carry_the_newest_runs_verdict() {
    let experiment = stepped(8, Some(7));
    let tmp = tempfile::tempdir().unwrap();
    let (junit, summary) = (
        tmp.path().join("history.xml"),
        tmp.path().join("summary.md"),
    );
    std::fs::write(&summary, "earlier\n").unwrap();
    runner()
        .arg("history")
        .arg(&experiment.dir)
        .arg("--junit")
        .arg(&junit)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .assert()
        .code(1);
    let xml = std::fs::read_to_string(&junit).unwrap();
    let json = experiment.json(1);
    let series = json["series"].as_array().unwrap().len();
    assert_eq!(xml.matches("<testcase ").count(), series);
    assert_eq!(xml.matches("<failure ").count(), 1, "{xml}");
    let failed = format!("<testcase name=\"{STEPPED} throughput\"");
    let at = xml.find(&failed).expect("the stepped series' test case");
    assert!(
        xml[at..].starts_with(&failed)
            && xml[at..].contains("<failure message=\"throughput newest/baseline 0.8")
    );
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(
        text.starts_with("earlier\n\n# History: go-java-go-2026"),
        "{text}"
    );
    assert!(
        text.contains("**Verdict: REGRESSION: 1 series regressed**"),
        "{text}"
    );
    assert!(
        text.contains(&format!("| `{STEPPED}` | throughput |")),
        "{text}"
    );
    assert!(text.contains("history.md`"), "{text}");
}
