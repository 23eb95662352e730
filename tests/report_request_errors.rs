//! A run whose cells answered with errors (tests/fixtures/runs/errors/).
//! `requests` in measurements.csv and in the timelines counts successful
//! answers only, so what is built on successes must not subtract the errors
//! again, and a total of answers is successes + errors. Every expected value
//! is worked out here from the fixture's numbers.
mod common;
mod report_support;

use assert_cmd::prelude::*;
use common::{read_rows, runner};
use report_support::*;

const CONFIG: &str = "go-stdlib/payload=7/concurrency=12";

#[test]
fn requests_per_cpu_second_count_successes_and_the_error_rate_all_answers() {
    let (_tmp, run) = copy_fixture("errors");
    runner().arg("report").arg(&run).assert().success();

    // measurements.csv, both repeats of one configuration:
    //   r1: 4000 successes, 400 errors, 2.5 service CPU-s -> 4000 / 2.5 = 1600 per CPU-s
    //   r2: 4400 successes, 200 errors, 2.0 service CPU-s -> 4400 / 2.0 = 2200 per CPU-s
    // median of the two: (1600 + 2200) / 2 = 1900.
    // (Subtracting the errors again gave 3600 / 2.5 = 1440 and 4200 / 2.0 = 2100: 1770.)
    // Errors: 400 + 200 = 600 of 4000 + 400 + 4400 + 200 = 9000 answers: 600 / 9000 = 0.066667.
    let summary = read_rows(&run.join("summary-by-cell.csv"));
    assert_eq!(summary.len(), 1);
    let cell = &summary[0];
    assert_eq!(cell["config_id"], CONFIG);
    assert_eq!(cell["rps_per_cpu_s"], "1900.0");
    assert_eq!(cell["errors"], "600");
    assert_eq!(cell["error_rate"], "0.066667");
    // Throughput is the successes per second: 4000 / 4 s and 4400 / 4 s.
    assert_eq!(
        (cell["rps_min"].as_str(), cell["rps_max"].as_str()),
        ("1000.0", "1100.0")
    );

    let peaks = read_rows(&run.join("peak-throughput.csv"));
    assert_eq!(peaks[0]["rps_per_cpu_s"], "1900.0");
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(
        md.contains("| 16.0 MiB | 0.56 | 1,900 |"),
        "the report shows 1,900 requests per CPU-second:\n{md}"
    );
}

#[test]
fn compare_judges_each_repeat_by_its_successes_per_second() {
    // Run B: the same successes as A in every repeat, with no errors at all.
    let (_tmp_a, a) = copy_fixture("errors");
    let (_tmp_b, b) = copy_fixture("errors");
    replace_in(
        &b,
        "measurements.csv",
        ",4000,400,0,0,0,0,400,503:400,",
        ",4000,0,0,0,0,0,0,,",
    );
    replace_in(
        &b,
        "measurements.csv",
        ",4400,200,0,0,0,200,0,,",
        ",4400,0,0,0,0,0,0,,",
    );

    // One configuration with 2 repeats: its noise has 1 degree of freedom,
    // so a 5% change is not detectable and compare says so (exit 3).
    let out = runner()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .args(["--format", "json"])
        .assert()
        .code(3);
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let cell = &json["cells"][0];
    assert_eq!(cell["config_id"], CONFIG);
    let throughput = &cell["throughput"];
    assert_eq!(throughput["a_repeats"], 2, "{throughput}");
    // Both sides' repeats are 1000 and 1100 successes per second: the
    // geometric means are equal, the ratio is exactly 1 and the one-sided
    // p of "B is worse" is 0.5, Holm-adjusted over the 2 judged tests to 1.
    // (Subtracting the errors again would have lowered A's repeats to 900
    // and 1050 and made B look 8% faster.)
    assert_eq!(throughput["effect"]["ratio"], 1.0, "{throughput}");
    assert_eq!(throughput["p_worse"], 1.0, "{throughput}");
    assert_eq!(throughput["verdict"], "inconclusive");
}
