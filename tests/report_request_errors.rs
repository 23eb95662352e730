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
fn compare_samples_each_second_by_its_successes() {
    // Run B: the same successes every second as A, with no errors at all.
    let (_tmp_a, a) = copy_fixture("errors");
    let (_tmp_b, b) = copy_fixture("errors");
    let timeline =
        |repeat: u32| format!("timelines/go-stdlib__payload=7__concurrency=12__r{repeat}.csv");
    replace_in(&b, &timeline(1), ",100,", ",0,");
    replace_in(&b, &timeline(2), ",50,", ",0,");

    let out = runner()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .args(["--format", "json"])
        .assert()
        .code(0);
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let cell = &json["cells"][0];
    assert_eq!(cell["config_id"], CONFIG);
    // 2 repeats x 4 seconds on each side.
    assert_eq!(
        (&cell["a_samples"], &cell["b_samples"]),
        (&8.into(), &8.into())
    );
    assert_eq!(cell["sample_kind"], "second");
    // Both sides sample the successes: 1000, 1010, 990, 1000, 1100, 1090,
    // 1110, 1100, the same eight values. Every value of A is tied with its
    // twin in B, so A's rank sum is half of 1 + ... + 16 = 68 and
    // U = 68 - 8 * 9 / 2 = 32 = 8 * 8 / 2, its mean: z = 0 and p = 1.
    // (Subtracting the errors lowered A's seconds by 100 and 50: p < 1.)
    let throughput = &cell["throughput"];
    assert_eq!(throughput["p_value"], 1.0, "{throughput}");
    assert_eq!(throughput["change"], 0.0, "{throughput}");
    assert_eq!(throughput["verdict"], "within-noise");
}
