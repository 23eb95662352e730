//! The Findings section on fixture runs built for its rules
//! (tests/fixtures/findings/generate.py): a clear last place with a
//! three-way tie, a three-way tie everywhere, a crossover with concurrency,
//! a crowded host. Golden files hold the exact sentences
//! (UPDATE_GOLDEN=1 regenerates them); findings.json and the HTML report
//! carry the same findings, first.
mod common;
mod report_support;

use std::path::{Path, PathBuf};

use assert_cmd::prelude::*;
use common::{assert_golden, runner};
use report_support::copy_run;

const FIXTURES: &str = "tests/fixtures/findings";

fn rendered(name: &str) -> (tempfile::TempDir, PathBuf) {
    let (tmp, run) = copy_run(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(FIXTURES)
            .join(name),
    );
    runner().arg("report").arg(&run).assert().success();
    (tmp, run)
}

fn read(run: &Path, file: &str) -> String {
    std::fs::read_to_string(run.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// report.md from `## Findings` to the next section.
fn findings_section(report: &str) -> String {
    let start = report.find("## Findings").expect("a Findings section");
    let end = report[start + 3..]
        .find("\n## ")
        .map_or(report.len(), |i| start + 3 + i + 1);
    report[start..end].to_string()
}

/// The kinds of findings.json, per figure, in order.
fn kinds(run: &Path) -> Vec<(String, Vec<String>)> {
    let json: serde_json::Value = serde_json::from_str(&read(run, "findings.json")).unwrap();
    assert_eq!(json["format_version"], 1, "findings.json's version");
    json["measures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let kinds = m["findings"].as_array().unwrap();
            (
                m["measure"].as_str().unwrap().to_string(),
                kinds
                    .iter()
                    .map(|f| f["kind"].as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

fn golden(name: &str) -> String {
    format!("{FIXTURES}/golden/{name}.md")
}

#[test]
fn a_clear_last_place_is_one_sentence_and_the_three_others_are_a_tie() {
    let (_tmp, run) = rendered("clear-last");
    assert_golden(
        golden("clear-last"),
        &findings_section(&read(&run, "report.md")),
    );
    let kinds = kinds(&run);
    assert_eq!(kinds[0].0, "throughput");
    assert_eq!(kinds[0].1, ["tie", "group-lead"]);
    assert_eq!(kinds[1], ("p99".to_string(), vec!["tie".to_string()]));
    assert_eq!(
        kinds[2].1,
        ["group-lead", "tie"],
        "h2o spends the least CPU"
    );
}

#[test]
fn three_equal_runtimes_are_one_tie_per_figure_with_the_repeats_it_would_take() {
    let (_tmp, run) = rendered("three-way-tie");
    let section = findings_section(&read(&run, "report.md"));
    assert_golden(golden("three-way-tie"), &section);
    assert!(kinds(&run).iter().all(|(_, k)| k == &["tie"]));
    assert_eq!(section.matches("would take about").count(), 4);
}

#[test]
fn a_lead_that_changes_with_concurrency_is_a_crossover() {
    let (_tmp, run) = rendered("crossover");
    assert_golden(
        golden("crossover"),
        &findings_section(&read(&run, "report.md")),
    );
    assert_eq!(kinds(&run)[0].1, ["crossover"]);
}

#[test]
fn on_a_crowded_host_cpu_and_memory_lead_and_throughput_is_qualified() {
    let (_tmp, run) = rendered("crowded");
    let section = findings_section(&read(&run, "report.md"));
    assert_golden(golden("crowded"), &section);
    let order: Vec<String> = kinds(&run).into_iter().map(|(m, _)| m).collect();
    assert_eq!(order, ["cpu-per-request", "memory", "p99", "throughput"]);
    assert!(section.contains("A crowded host"));
}

/// Two repeats at 60% noise: every interval is more than tenfold wide, so
/// none is printed as if it said something; each figure says what would
/// decide it instead.
#[test]
fn an_interval_too_wide_to_say_anything_is_not_stated() {
    let (_tmp, run) = rendered("too-wide");
    let section = findings_section(&read(&run, "report.md"));
    assert_golden(golden("too-wide"), &section);
    let json: serde_json::Value = serde_json::from_str(&read(&run, "findings.json")).unwrap();
    for m in json["measures"].as_array().unwrap() {
        for f in m["findings"].as_array().unwrap() {
            let (lo, hi) = (f["lo"].as_f64().unwrap(), f["hi"].as_f64().unwrap());
            assert!(
                hi / lo > 10.0,
                "the fixture's intervals are too wide: [{lo}, {hi}]"
            );
            let text = f["text"].as_str().unwrap();
            assert!(text.starts_with("This run cannot compare"), "{text}");
            assert!(
                text.contains("would take"),
                "says what would decide it: {text}"
            );
            assert!(
                !text.contains(&format!("{hi:.2}")),
                "no interval stated: {text}"
            );
        }
    }
    let unstated = section
        .lines()
        .filter(|l| l.starts_with("- ") && l.contains("too wide to say anything"))
        .count();
    assert_eq!(unstated, 4, "one per figure: {section}");
}

#[test]
fn the_html_report_and_runner_exec_s_lines_lead_with_the_findings() {
    let (_tmp, run) = rendered("clear-last");
    let html = read(&run, "report.html");
    let findings = html.find("<h2>Findings</h2>").expect("a Findings heading");
    assert!(findings < html.find("<h2>Wins</h2>").unwrap());
    assert!(
        html.contains("<code>caddy</code>"),
        "runtime names as code, escaped"
    );
    let md = read(&run, "report.md");
    assert!(md.find("## Findings").unwrap() < md.find("## Wins").unwrap());
}
