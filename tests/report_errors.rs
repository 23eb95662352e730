//! Error messages of `runner report`: what, where and what to do.
mod common;
mod report_support;

use assert_cmd::prelude::*;
use common::runner;
use predicates::prelude::*;
use report_support::*;

#[test]
fn a_directory_that_is_not_a_run_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    runner()
        .arg("report")
        .arg(tmp.path())
        .assert()
        .failure()
        .stderr(predicate::str::contains("status.json: missing"))
        .stderr(predicate::str::contains("is this a run directory"));
}

#[test]
fn a_damaged_csv_row_is_located_by_file_and_line() {
    let (_tmp, run) = copy_fixture("base");
    replace_in(&run, "measurements.csv", ",9392.4,", ",fast,");
    runner()
        .arg("report")
        .arg(&run)
        .assert()
        .failure()
        .stderr(predicate::str::contains("measurements.csv:2:"))
        .stderr(predicate::str::contains(
            "column `throughput_rps`: invalid float literal",
        ))
        .stderr(predicate::str::contains("fix or remove the row"));
}

#[test]
fn an_undefined_template_variable_names_template_line_and_name() {
    let (tmp, run) = copy_fixture("base");
    let template = tmp.path().join("brief.md.j2");
    std::fs::write(&template, "# {{ experiment.title }}\n\nPeak: {{ peaks[0].rps_median | fmt_rps }}\n{{ run.no_such_field.x }}\n").unwrap();
    runner()
        .arg("report")
        .arg(&run)
        .arg("--templates")
        .arg(&template)
        .assert()
        .failure()
        .stderr(predicate::str::contains("template brief.md.j2, line 4"))
        .stderr(predicate::str::contains("undefined"))
        .stderr(predicate::str::contains("no_such_field"))
        .stderr(predicate::str::contains("docs/templates.md"));
    assert!(
        !run.join("brief.md").exists(),
        "nothing written on a template error"
    );
}
