//! What a CI shows: `runner compare --junit FILE` on fixture runs with a
//! regression, unchanged and inconclusive configurations (a golden, and the
//! counts a JUnit consumer reads), the GitHub step summary appended to
//! `$GITHUB_STEP_SUMMARY` (never replacing what earlier steps wrote), and
//! `runner export` in every format from a small fixture run (goldens).
//! scripts/check-ci-outputs.sh feeds the same outputs to the real consumers.
mod common;
mod report_support;

use assert_cmd::prelude::*;
use common::{assert_golden, runner};
use report_support::*;

/// `runner compare` in the fixtures folder without a run-level floor (as
/// tests/report_compare.rs does) and without a step summary from the
/// environment this test runs in.
fn compare() -> std::process::Command {
    let mut cmd = runner();
    cmd.current_dir(fixtures())
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(["compare", "--run-noise", "0%", "--latency-run-noise", "0%"]);
    cmd
}

fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

#[test]
fn junit_fails_the_regression_skips_what_cannot_be_told_and_passes_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let junit = tmp.path().join("compare.xml");
    compare()
        .args(["quiet-a", "quiet-regressed", "--junit"])
        .arg(&junit)
        .assert()
        .code(1);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_golden(golden_file("compare-quiet-regressed.junit.xml"), &xml);
    // 18 configurations x (throughput, p99); the regressed one fails both,
    // three tests are inconclusive, the other 31 pass.
    assert_eq!(count(&xml, "<testcase "), 36);
    assert_eq!(count(&xml, "<failure "), 2);
    assert_eq!(count(&xml, "<skipped "), 3);
    assert!(xml.contains("tests=\"36\" failures=\"2\" errors=\"0\" skipped=\"3\""));
    let failed = "<testcase name=\"go-stdlib/payload=8192/concurrency=12 throughput\"";
    let at = xml
        .find(failed)
        .expect("the regressed configuration's test case");
    let case = &xml[at..at + xml[at..].find("</testcase>").unwrap()];
    assert!(case.contains("<failure message=\"throughput "), "{case}");
    assert!(case.contains(": REGRESSION\""), "{case}");
}

#[test]
fn junit_of_an_unchanged_comparison_has_no_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let junit = tmp.path().join("same.xml");
    compare()
        .args(["base", "base", "--junit"])
        .arg(&junit)
        .assert()
        .code(0);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(count(&xml, "<testcase "), 36);
    assert_eq!(count(&xml, "<failure "), 0);
    assert_eq!(count(&xml, "<skipped "), 0);
}

/// A configuration the baseline lacks is skipped ("no baseline") for both
/// metrics, rather than left out of the report.
#[test]
fn junit_skips_a_configuration_the_baseline_lacks() {
    let (_tmp, a) = copy_fixture("base");
    let new = "go-stdlib/payload=8192/concurrency=96";
    let path = a.join("measurements.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains(&format!(",{new},")))
        .collect();
    assert_eq!(
        text.lines().count() - kept.len(),
        2,
        "two repeats of {new} removed"
    );
    std::fs::write(&path, kept.join("\n") + "\n").unwrap();
    let junit = a.with_file_name("compare.xml");
    compare()
        .arg(&a)
        .arg(fixtures().join("base"))
        .arg("--junit")
        .arg(&junit)
        .assert()
        .code(0);
    let xml = std::fs::read_to_string(&junit).unwrap();
    for metric in ["throughput", "p99"] {
        let case =
            format!("<testcase name=\"{new} {metric}\" classname=\"go-java-go-2026.go-stdlib\"");
        let at = xml.find(&case).unwrap_or_else(|| panic!("{case} in {xml}"));
        assert!(
            xml[at..].contains(
                "<skipped message=\"no baseline: go-stdlib/payload=8192/concurrency=96 is not in "
            ),
            "{xml}"
        );
    }
    assert_eq!(count(&xml, "<skipped "), 2);
    assert_eq!(count(&xml, "<testcase "), 36);
}

#[test]
fn the_step_summary_is_appended_to_not_overwritten() {
    let tmp = tempfile::tempdir().unwrap();
    let summary = tmp.path().join("step_summary.md");
    std::fs::write(&summary, "## an earlier step\n").unwrap();
    let markdown = |a: &str, b: &str| {
        let out = compare()
            .env("GITHUB_STEP_SUMMARY", &summary)
            .args([a, b])
            .assert()
            .code(1);
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let first = markdown("quiet-a", "quiet-regressed");
    let second = markdown("base", "regressed");
    let text = std::fs::read_to_string(&summary).unwrap();
    // What each step printed, each after a blank line, in order.
    assert_eq!(text, format!("## an earlier step\n\n{first}\n{second}"));
    assert!(first.contains("**Verdict: REGRESSION"), "{first}");
}

#[test]
fn no_step_summary_without_the_variable_and_no_junit_without_the_flag() {
    let tmp = tempfile::tempdir().unwrap();
    compare()
        .current_dir(tmp.path())
        .arg(fixtures().join("base"))
        .arg(fixtures().join("regressed"))
        .assert()
        .code(1);
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

#[test]
fn an_unwritable_junit_file_is_named_with_what_to_do() {
    let out = compare()
        .args(["base", "regressed", "--junit", "no-such-dir/compare.xml"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains("no-such-dir/compare.xml: cannot write the JUnit XML (--junit)")
            && stderr.contains("check that its folder exists"),
        "{stderr}"
    );
}

/// Every export of the `errors` fixture (one configuration, two repeats),
/// on stdout and with `--output`.
#[test]
fn exports_match_their_goldens() {
    let tmp = tempfile::tempdir().unwrap();
    for (format, golden) in [
        ("bmf", "errors.bmf.json"),
        ("github-action-benchmark-bigger", "errors.gab-bigger.json"),
        ("github-action-benchmark-smaller", "errors.gab-smaller.json"),
        ("benchstat", "errors.benchstat.txt"),
        ("openmetrics", "errors.openmetrics.txt"),
    ] {
        let out = runner()
            .current_dir(fixtures())
            .args(["export", "--format", format, "errors"])
            .assert()
            .code(0);
        let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert_golden(golden_file(&format!("export/{golden}")), &stdout);
        let file = tmp.path().join(golden);
        runner()
            .current_dir(fixtures())
            .args(["export", "--format", format, "errors", "--output"])
            .arg(&file)
            .assert()
            .code(0)
            .stdout("");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), stdout, "{format}");
    }
}

/// A run with failed and suspect repeats: benchstat gets one line per
/// usable repeat (the failed one left out, as compare leaves it out).
#[test]
fn benchstat_has_one_line_per_usable_repeat() {
    let out = runner()
        .current_dir(fixtures())
        .args(["export", "--format", "benchstat", "base"])
        .assert()
        .code(0);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let measurements = std::fs::read_to_string(fixtures().join("base/measurements.csv")).unwrap();
    let failed = measurements
        .lines()
        .filter(|l| l.contains(",failed,"))
        .count();
    let rows = measurements.lines().count() - 1;
    assert_eq!(failed, 1);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("Benchmark")).count(),
        rows - failed
    );
    assert!(
        text.contains("BenchmarkGo-java-go-2026/runtime=jdk-leyden-aot/payload=7/concurrency=1 1 ")
    );
}

#[test]
fn export_of_a_missing_run_says_what_to_pass() {
    let out = runner()
        .args(["export", "--format", "bmf", "no-such-run"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.starts_with("error: ") && stderr.contains("no-such-run"),
        "{stderr}"
    );
}
