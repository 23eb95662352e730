//! `runner report` on the fixture run, compared with committed golden files
//! (tests/fixtures/runs/golden/; UPDATE_GOLDEN=1 regenerates them).
mod common;
mod report_support;

use std::path::Path;

use assert_cmd::prelude::*;
use common::{assert_golden, runner};
use report_support::*;

#[test]
fn report_renders_the_fixture_run_like_the_golden_files() {
    let (_tmp, run) = copy_fixture("base");
    runner()
        .arg("report")
        .arg(&run)
        .assert()
        .success()
        .stderr(predicates::str::contains("1 failed and 1 suspect"));
    let read =
        |f: &str| std::fs::read_to_string(run.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    assert_golden(
        golden_file("report.md"),
        &redact_generated_at(&read("report.md")),
    );
    assert_golden(
        golden_file("report.html"),
        &redact_svg(&redact_generated_at(&read("report.html"))),
    );
    for csv in [
        "summary-by-cell.csv",
        "peak-throughput.csv",
        "throughput-pivot.csv",
        "wins.csv",
        "pairs.csv",
    ] {
        assert_golden(golden_file(csv), &read(csv));
    }
}

/// The fixture run cut down to go-stdlib: with one runtime there is nothing
/// to compare, so no section compares runtimes (wins, winner per cell,
/// runtime pairs, findings).
#[test]
fn a_one_runtime_run_has_no_section_that_compares_runtimes() {
    let (_tmp, run) = copy_fixture("base");
    for file in ["measurements.csv", "configurations.csv", "lifecycle.csv"] {
        keep_lines(&run, file, |l| l.starts_with("go-stdlib"));
    }
    runner().arg("report").arg(&run).assert().success();
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert_golden(
        golden_file("report-one-runtime.md"),
        &redact_generated_at(&md),
    );
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    for section in ["Wins", "Winner per cell", "Runtime pairs", "Findings"] {
        assert!(
            !md.contains(&format!("## {section}\n")),
            "{section} in report.md"
        );
        assert!(
            !html.contains(&format!("<h2>{section}</h2>")),
            "{section} in report.html"
        );
    }
    assert!(!md.contains("cells won"), "{md}");
    assert!(md.contains("## Peak throughput") && md.contains("## Throughput by cell"));
}

/// The fixture run with an `endpoint` axis where it has payload (and no
/// payload column): every chart and table splits by endpoint as it did by
/// payload, with no "all payloads" line merging them and no column of "—".
#[test]
fn an_endpoint_axis_splits_the_charts_and_tables_as_a_payload_does() {
    let (_tmp, run) = copy_fixture("base");
    let csv = run.join("measurements.csv");
    let text = std::fs::read_to_string(&csv)
        .unwrap()
        .replace("payload=7", "endpoint=users")
        .replace("payload=8192", "endpoint=orders")
        .replace("\",7,", "\",,")
        .replace("\",8192,", "\",,");
    std::fs::write(&csv, text).unwrap();
    let timelines = run.join("timelines");
    for entry in std::fs::read_dir(&timelines).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let renamed = name
            .replace("payload=7", "endpoint=users")
            .replace("payload=8192", "endpoint=orders");
        std::fs::rename(timelines.join(&name), timelines.join(renamed)).unwrap();
    }
    runner().arg("report").arg(&run).assert().success();
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert_golden(golden_file("report-endpoint.md"), &redact_generated_at(&md));
    assert!(
        !md.contains(" payload |"),
        "no payload column without a payload axis"
    );
    for chart in ["throughput.svg", "p99-vs-concurrency.svg", "resources.svg"] {
        let svg = std::fs::read_to_string(run.join("charts").join(chart)).unwrap();
        assert!(
            !svg.contains("all payloads"),
            "{chart} merges the endpoints"
        );
        assert!(
            svg.contains("endpoint users") && svg.contains("endpoint orders"),
            "{chart}: one panel per endpoint"
        );
    }
    let peaks = std::fs::read_to_string(run.join("peak-throughput.csv")).unwrap();
    // One peak per runtime and endpoint, each naming its endpoint.
    assert_eq!(peaks.lines().count(), 1 + 3 * 2, "{peaks}");
    assert!(peaks.lines().next().unwrap().ends_with(",axes"), "{peaks}");
}

#[test]
fn statistics_skip_failed_rows_and_flag_suspect_ones() {
    let (_tmp, run) = copy_fixture("base");
    runner().arg("report").arg(&run).assert().success();
    let mut summary = csv::Reader::from_path(run.join("summary-by-cell.csv")).unwrap();
    let headers = summary.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = summary.records().map(Result::unwrap).collect();
    let find = |id: &str| {
        rows.iter()
            .find(|r| &r[col("config_id")] == id)
            .unwrap()
            .clone()
    };

    let failed = find("jdk-leyden-aot/payload=7/concurrency=1");
    assert_eq!(
        (&failed[col("repeats")], &failed[col("failed")]),
        ("1", "1")
    );
    assert_eq!(
        &failed[col("rps_spread")],
        "",
        "one repeat: noise unknown, no spread"
    );
    assert_ne!(
        &failed[col("rps_median")],
        "0",
        "the failed repeat must not drag the median"
    );

    let suspect = find("jdk-jvm/payload=8192/concurrency=96");
    assert_eq!(
        (&suspect[col("repeats")], &suspect[col("suspect")]),
        ("2", "1")
    );

    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    // One line per distinct reason, naming the repeats it covers.
    assert!(md.contains(
        "**failed** in 1 repeat (left out of the statistics): service exited during the measurement"
    ));
    assert!(
        md.contains("see logs/jdk-leyden-aot.log. `jdk-leyden-aot/payload=7/concurrency=1/r2`")
    );
    assert!(
        md.contains("**suspect** in 1 repeat (kept in the statistics): load generator used 93%")
    );
    assert!(md.contains("the bottleneck. `jdk-jvm/payload=8192/concurrency=96/r1`"));
    assert!(md.contains("rust-hyper | skipped: preflight: `cargo` not found"));
}

#[test]
fn wins_call_a_tie_inside_the_noise() {
    let (_tmp, run) = copy_fixture("base");
    runner().arg("report").arg(&run).assert().success();
    let wins = std::fs::read_to_string(run.join("wins.csv")).unwrap();
    let line = |axes: &str| {
        wins.lines()
            .find(|l| l.starts_with(&format!("\"{axes}\"")))
            .unwrap()
            .to_string()
    };
    // go-stdlib leads both JDKs by ~0.5% at payload 8192, c=96, inside the
    // 95% intervals ([0.98, 1.03]): a tie of all three.
    let tie = line("payload=8192,concurrency=96");
    assert!(tie.contains(",tie,go-stdlib,") && tie.contains(",jdk-jvm;jdk-leyden-aot,"));
    // A 31% lead, interval [1.27, 1.35], is a win, even against jdk-leyden-aot's
    // single usable repeat there (its noise is pooled over its other cells).
    assert!(line("payload=7,concurrency=1").contains(",go-stdlib,go-stdlib,"));
    assert!(line("payload=7,concurrency=1").ends_with(",1.3108,1.2727,1.3499"));
}

/// The reference run committed under results/ (written by `runner exec`,
/// not by hand) still reads, and renders to the reports committed with it.
#[test]
fn the_committed_reference_run_renders_as_committed() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/2026/20261130T100516Z");
    let (_tmp, run) = copy_run(&committed);
    runner().arg("report").arg(&run).assert().success();
    for file in [
        "summary-by-cell.csv",
        "peak-throughput.csv",
        "throughput-pivot.csv",
        "wins.csv",
        "pairs.csv",
        "report.md",
        "report.html",
    ] {
        let text = |dir: &Path| {
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            redact_svg(&redact_generated_at(&text))
        };
        assert!(text(&run) == text(&committed), "{file} renders differently");
    }
}

/// Every run directory committed under results/ is a curated run, whole: the
/// files `runner report` and `runner compare` read, a finished state, and a
/// report that renders from them. A directory holding only charts/ (three
/// were committed that way) fails here, naming it.
#[test]
fn every_committed_run_directory_is_complete_and_renders() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed = std::process::Command::new("git")
        .args(["ls-files", "-z", "results"])
        .current_dir(root)
        .output()
        .expect("git runs");
    assert!(listed.status.success(), "git ls-files results failed");
    let mut runs = std::collections::BTreeSet::new();
    for file in listed.stdout.split(|b| *b == 0).filter(|f| !f.is_empty()) {
        let parts: Vec<&str> = std::str::from_utf8(file).unwrap().split('/').collect();
        if parts.len() > 3 {
            runs.insert(format!("{}/{}/{}", parts[0], parts[1], parts[2]));
        }
    }
    assert!(!runs.is_empty(), "no committed run found under results/");
    let mut problems = Vec::new();
    for run in &runs {
        let dir = root.join(run);
        let missing: Vec<&str> = [
            "status.json",
            "spec.yaml",
            "plan.json",
            "environment.json",
            "measurements.csv",
            "report.md",
        ]
        .into_iter()
        .filter(|f| !dir.join(f).is_file())
        .collect();
        if !missing.is_empty() {
            problems.push(format!("{run}: missing {}", missing.join(", ")));
            continue;
        }
        let status: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("status.json")).unwrap())
                .unwrap();
        if status["state"] != "complete" {
            problems.push(format!("{run}: state {} (not complete)", status["state"]));
        }
        let (_tmp, copy) = copy_run(&dir);
        let out = runner().arg("report").arg(&copy).output().unwrap();
        if !out.status.success() {
            problems.push(format!(
                "{run}: runner report failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "committed run directories must be whole (commit a curated run complete, or not at all):\n{}",
        problems.join("\n")
    );
}

#[test]
fn an_interrupted_run_without_measurements_still_renders() {
    let (_tmp, run) = copy_fixture("base");
    let header = std::fs::read_to_string(run.join("measurements.csv"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    std::fs::write(run.join("measurements.csv"), header + "\n").unwrap();
    std::fs::remove_file(run.join("lifecycle.csv")).unwrap();
    replace_in(&run, "status.json", "\"complete\"", "\"running\"");
    runner().arg("report").arg(&run).assert().success();
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(md.contains("**No measurements in this run yet**"), "{md}");
    assert!(md.contains("No service start was recorded"));
    // A run that measured nothing never says every measurement was normal.
    assert!(md.contains("Nothing was measured."), "{md}");
    assert!(!md.contains("completed normally"), "{md}");
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(html.contains("Nothing was measured.") && !html.contains("completed normally"));
    assert!(!md.contains("## Peak throughput"));
    assert!(
        md.contains("| rust-hyper | skipped"),
        "configuration still reported"
    );
}
