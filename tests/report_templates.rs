//! Custom templates: from --templates, or the spec's report.templates
//! recorded in plan.json; output named after the template without `.j2`.
mod common;
mod report_support;

use assert_cmd::prelude::*;
use common::runner;
use report_support::*;

const BRIEF: &str = "{% for p in peaks %}{{ p.runtime }} {{ p.payload }}: {{ p.rps_median | fmt_rps }} req/s, p99 {{ p.p99_ms | fmt_ms }}\n{% endfor %}";

#[test]
fn a_custom_template_renders_next_to_the_run_without_its_suffix() {
    let (tmp, run) = copy_fixture("base");
    let template = tmp.path().join("brief.txt.j2");
    std::fs::write(&template, BRIEF).unwrap();
    runner()
        .arg("report")
        .arg(&run)
        .arg("--templates")
        .arg(&template)
        .assert()
        .success();
    let brief = std::fs::read_to_string(run.join("brief.txt")).unwrap();
    assert!(
        brief.starts_with("go-stdlib 7: 20,389 req/s, p99 14.2 ms\n"),
        "{brief}"
    );
    assert_eq!(brief.lines().count(), 6);
    assert!(
        !run.join("report.md").exists(),
        "only the requested templates render"
    );
}

#[test]
fn without_templates_the_specs_report_templates_from_plan_json_are_used() {
    let (tmp, run) = copy_fixture("base");
    let template = tmp.path().join("brief.txt.j2");
    std::fs::write(&template, BRIEF).unwrap();
    let plan = run.join("plan.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    json["report_templates"] = serde_json::json!([template]);
    std::fs::write(&plan, serde_json::to_string_pretty(&json).unwrap()).unwrap();
    runner().arg("report").arg(&run).assert().success();
    assert!(run.join("brief.txt").exists());
    assert!(!run.join("report.md").exists());

    std::fs::remove_file(&template).unwrap();
    runner()
        .arg("report")
        .arg(&run)
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "brief.txt.j2: missing (a report template named in the spec's report.templates",
        ));
}

#[test]
fn a_pipe_in_a_reason_does_not_break_the_markdown_table() {
    let (_tmp, run) = copy_fixture("base");
    replace_in(
        &run,
        "configurations.csv",
        "preflight: `cargo` not found",
        "preflight | `cargo` not found",
    );
    runner().arg("report").arg(&run).assert().success();
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    let row = md
        .lines()
        .find(|l| l.starts_with("| rust-hyper |"))
        .unwrap();
    assert!(
        row.contains("skipped: preflight \\| `cargo` not found"),
        "{row}"
    );
    assert_eq!(row.matches(" | ").count(), 7, "eight cells: {row}");
}
