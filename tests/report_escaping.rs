//! HTML escaping: a runtime name or a reason (log line) containing
//! `<script>` renders as text in report.html and in the charts.
mod common;
mod report_support;

use assert_cmd::prelude::*;
use common::runner;
use report_support::*;

const EVIL: &str = "jdk<script>alert(1)</script>";

#[test]
fn script_in_a_runtime_name_or_reason_cannot_inject() {
    let (_tmp, run) = copy_fixture("base");
    for file in ["configurations.csv", "measurements.csv", "lifecycle.csv"] {
        replace_in(&run, file, "jdk-jvm", EVIL);
    }
    replace_in(
        &run,
        "configurations.csv",
        "preflight: `cargo` not found",
        "<img src=x onerror=alert(2)> <script>steal()</script> preflight: `cargo` not found",
    );
    runner().arg("report").arg(&run).assert().success();

    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(!html.contains("<script"), "raw <script> in report.html");
    assert!(!html.contains("<img"), "raw <img> in report.html");
    assert!(
        html.contains("jdk&lt;script&gt;alert(1)&lt;&#x2f;script&gt;"),
        "runtime name not escaped as text"
    );
    assert!(html.contains("&lt;img src=x onerror=alert(2)&gt;"));
    for chart in ["throughput", "p99-vs-concurrency", "resources", "startup"] {
        let svg = std::fs::read_to_string(run.join("charts").join(format!("{chart}.svg"))).unwrap();
        assert!(!svg.contains("<script"), "raw <script> in {chart}.svg");
    }
    let svg = std::fs::read_to_string(run.join("charts/throughput.svg")).unwrap();
    assert!(
        svg.contains("jdk&lt;script&gt;alert(1)&lt;/script&gt;"),
        "legend label not escaped"
    );
}
