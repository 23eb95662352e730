//! `runner compare` on the fixture runs: the injected regression is flagged
//! (and nothing else), a run compared with itself passes, and runs from
//! another host are refused unless forced.
mod report_support;

use predicates::prelude::*;
use report_support::*;

const REGRESSED: &str = "go-stdlib/payload=8192/concurrency=12";

fn compare() -> assert_cmd::Command {
    let mut cmd = runner();
    cmd.current_dir(fixtures()).arg("compare");
    cmd
}

#[test]
fn flags_exactly_the_regressed_cell_and_exits_1() {
    let out = compare()
        .args(["base", "regressed", "--format", "json"])
        .assert()
        .code(1);
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let cells = json["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 18);
    let flagged: Vec<&str> = cells
        .iter()
        .filter(|c| c["verdict"] != "within-noise" && c["verdict"] != "below-threshold")
        .map(|c| c["config_id"].as_str().unwrap())
        .collect();
    assert_eq!(flagged, [REGRESSED]);
    let cell = cells.iter().find(|c| c["config_id"] == REGRESSED).unwrap();
    assert_eq!(cell["verdict"], "regression");
    let change = cell["change"].as_f64().unwrap();
    assert!((-0.23..-0.17).contains(&change), "change {change}");
    assert!(cell["p_value"].as_f64().unwrap() < 0.01);
    assert_eq!(json["regressions"], 1);
}

#[test]
fn markdown_verdict_matches_the_golden_file() {
    let out = compare().args(["base", "regressed"]).assert().code(1);
    assert_golden(
        "compare-base-regressed.md",
        &String::from_utf8(out.get_output().stdout.clone()).unwrap(),
    );
}

#[test]
fn a_regression_below_the_threshold_is_not_flagged() {
    compare()
        .args(["base", "regressed", "--threshold", "25%"])
        .assert()
        .code(0);
}

#[test]
fn a_run_compared_with_itself_exits_0() {
    compare()
        .args(["base", "base"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("0 significant regression(s)"));
}

#[test]
fn runs_from_another_host_are_refused_saying_what_differs() {
    compare()
        .args(["base", "otherhost"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not comparable"))
        .stderr(predicate::str::contains(
            "host fingerprint: \"AMD EPYC 7B13",
        ))
        .stderr(predicate::str::contains(
            "toolchain go: \"go version go1.25.4 linux/amd64\" vs \"go version go1.25.5",
        ))
        .stderr(predicate::str::contains("--force"));
}

#[test]
fn force_compares_anyway_with_a_loud_warning() {
    compare()
        .args(["base", "otherhost", "--force"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "WARNING: comparing runs that are NOT comparable",
        ))
        .stdout(predicate::str::contains(
            "WARNING: these runs are not comparable",
        ));
}

#[test]
fn a_different_spec_is_not_comparable() {
    let (_tmp, run) = copy_fixture("regressed");
    replace_in(
        &run,
        "status.json",
        "\"spec_hash\": \"5f0c",
        "\"spec_hash\": \"0000",
    );
    runner()
        .arg("compare")
        .arg(fixtures().join("base"))
        .arg(&run)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("spec hash (sha256 of spec.yaml)"));
}

#[test]
fn a_bad_threshold_is_explained() {
    compare()
        .args(["base", "base", "--threshold", "five"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "expected a percentage such as `5%`",
        ));
}

#[test]
fn a_configuration_that_failed_entirely_in_b_counts_as_a_regression() {
    let (_tmp, run) = copy_fixture("base");
    let path = run.join("measurements.csv");
    let text: String = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| {
            if l.starts_with("jdk-jvm/payload=7/concurrency=1/r") {
                l.replace(",ok,", ",failed,service died") + "\n"
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::write(&path, text).unwrap();
    runner()
        .arg("compare")
        .arg(fixtures().join("base"))
        .arg(&run)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "| `jdk-jvm/payload=7/concurrency=1` | 7,057 | — |",
        ))
        .stdout(predicate::str::contains("**FAILED in B**"));
}
