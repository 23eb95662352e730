//! `runner compare` on the fixture runs: the injected regression is flagged
//! (and nothing else), a run compared with itself is unchanged (or
//! inconclusive when its intervals reach the threshold), the run-level floor
//! is applied and named, and runs from another host are refused unless forced.
mod common;
mod report_support;

use assert_cmd::prelude::*;
use common::{assert_golden, runner};
use predicates::prelude::*;
use report_support::*;

/// 20% less throughput injected (tests/fixtures/runs/generate.py).
const REGRESSED: &str = "go-stdlib/payload=8192/concurrency=12";
/// p99 x1.5 injected, throughput unchanged.
const TAIL_ONLY: &str = "jdk-jvm/payload=7/concurrency=12";

/// `runner compare` in the fixtures folder with no run-level floor: the
/// fixture runs are drawn without run-level noise (tests/fixtures/runs/
/// generate.py), so these tests are about the repeat rule;
/// `without_history_the_floor_...` checks the default floor.
fn compare() -> std::process::Command {
    let mut cmd = runner();
    cmd.current_dir(fixtures())
        .args(["compare", "--run-noise", "0%", "--latency-run-noise", "0%"]);
    cmd
}

/// Flagged configurations of one metric (`throughput` or `p99`).
fn flagged<'a>(cells: &'a [serde_json::Value], metric: &str) -> Vec<&'a str> {
    cells
        .iter()
        .filter(|c| {
            let v = &c[metric]["verdict"];
            v != "unchanged" && v != "inconclusive" && v != "below-threshold"
        })
        .map(|c| c["config_id"].as_str().unwrap())
        .collect()
}

#[test]
fn flags_exactly_the_regressed_cells_and_exits_1() {
    let out = compare()
        .args(["base", "regressed", "--format", "json"])
        .assert()
        .code(1);
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let cells = json["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 18);
    assert_eq!(flagged(cells, "throughput"), [REGRESSED]);
    // 20% less throughput in a closed loop is 25% more latency (Little's
    // law); the tail-only regression leaves throughput alone.
    assert_eq!(flagged(cells, "p99"), [REGRESSED, TAIL_ONLY]);
    let cell = cells.iter().find(|c| c["config_id"] == REGRESSED).unwrap();
    assert_eq!(cell["throughput"]["verdict"], "regression");
    let effect = &cell["throughput"]["effect"];
    let change = effect["ratio"].as_f64().unwrap() - 1.0;
    assert!((-0.23..-0.17).contains(&change), "change {change}");
    // The interval contains the injected ratio 0.8 and excludes no change.
    let (lo, hi) = (
        effect["lo"].as_f64().unwrap(),
        effect["hi"].as_f64().unwrap(),
    );
    assert!(lo < 0.8 && 0.8 < hi && hi < 1.0, "[{lo}, {hi}]");
    assert!(cell["throughput"]["p_worse"].as_f64().unwrap() < 0.01);
    let tail = cells.iter().find(|c| c["config_id"] == TAIL_ONLY).unwrap();
    assert_eq!(tail["p99"]["verdict"], "regression");
    let change = tail["p99"]["effect"]["ratio"].as_f64().unwrap() - 1.0;
    assert!((0.4..0.6).contains(&change), "p99 change {change}");
    assert_eq!(
        (
            &json["regressions"],
            &json["throughput_regressions"],
            &json["latency_regressions"]
        ),
        (&2.into(), &1.into(), &2.into())
    );
}

#[test]
fn markdown_verdict_matches_the_golden_file() {
    let out = compare().args(["base", "regressed"]).assert().code(1);
    assert_golden(
        golden_file("compare-base-regressed.md"),
        &String::from_utf8(out.get_output().stdout.clone()).unwrap(),
    );
}

/// Two unchanged runs at the reference run's noise, 2 repeats each, with a
/// run-level floor of 40% (a --quick run's short windows): the design table
/// states a throughput loss, which cannot reach 100%, and a latency
/// increase, which can; each inconclusive verdict says why on its line.
#[test]
fn a_noisy_design_table_states_losses_the_way_they_can_happen() {
    let floor = ["--run-noise", "40%", "--latency-run-noise", "40%"];
    let out = runner()
        .current_dir(fixtures())
        .args(["compare", "noisy-a", "noisy-b"])
        .args(floor)
        .assert()
        .code(3);
    let md = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_golden(golden_file("compare-noisy-design.md"), &md);
    let out = runner()
        .current_dir(fixtures())
        .args(["compare", "noisy-a", "noisy-b", "--format", "json"])
        .args(floor)
        .assert()
        .code(3);
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let detectable = |metric: &str| -> Vec<f64> {
        json["design"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["metric"] == metric)
            .map(|d| d["detectable"].as_f64().unwrap())
            .collect()
    };
    let (throughput, p99) = (detectable("throughput"), detectable("p99"));
    assert_eq!((throughput.len(), p99.len()), (3, 3));
    assert!(
        throughput.iter().all(|d| (0.5..1.0).contains(d)),
        "{throughput:?}"
    );
    assert!(
        p99.iter().all(|d| *d > 1.0),
        "a latency increase can exceed 100%: {p99:?}"
    );
    assert!(md.contains(
        "inconclusive: the interval still reaches a 5.0% loss; the run-level noise (40.0% per \
         run, the stated floor) alone reaches it: more runs of history would settle it, more \
         repeats would not"
    ));
}

#[test]
fn regressions_below_their_thresholds_are_not_flagged() {
    // Each threshold alone leaves the other metric's regressions flagged.
    compare()
        .args(["base", "regressed", "--threshold", "25%"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("0 in throughput"));
    compare()
        .args(["base", "regressed", "--latency-threshold", "60%"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("0 in p99 latency"));
    compare()
        .args([
            "base",
            "regressed",
            "--threshold",
            "25%",
            "--latency-threshold",
            "60%",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("**Verdict: no regression**"));
}

#[test]
fn a_run_compared_with_itself_is_unchanged_where_its_intervals_rule_out_the_threshold() {
    // Two repeats at ~1% noise: every interval lies within 5%, so the run
    // is unchanged (exit 0), though the design table says a 5% loss would
    // be found with 80% power only with more repeats; at 1% the intervals
    // reach the threshold and compare cannot tell (exit 3).
    compare()
        .args(["base", "base"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("**Verdict: no regression**"))
        .stdout(predicate::str::contains("need >= 4 per side"));
    compare()
        .args(["base", "base", "--threshold", "1%"])
        .assert()
        .code(3)
        .stdout(predicate::str::contains("**Verdict: INCONCLUSIVE"));
}

#[test]
fn without_history_the_floor_widens_every_interval_and_says_so() {
    // The default floor (5% throughput, 12% p99 per run) against 2 repeats
    // at ~1% noise: the 20% drop can no longer be told from a run offset,
    // so compare cannot tell (exit 3), and says which floor it used.
    let out = runner()
        .current_dir(fixtures())
        .args(["compare", "base", "regressed"])
        .assert()
        .code(3);
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        text.contains("the stated floor of 5.0% (throughput) and 12.0% (p99)"),
        "{text}"
    );
    let json = runner()
        .current_dir(fixtures())
        .args(["compare", "base", "regressed", "--format", "json"])
        .assert()
        .code(3);
    let json: serde_json::Value = serde_json::from_slice(&json.get_output().stdout).unwrap();
    let cell = cell_of(&json, REGRESSED);
    assert_eq!(cell["throughput"]["run_level"]["source"]["kind"], "floor");
    assert_eq!(cell["throughput"]["verdict"], "inconclusive");
    assert_eq!(regressed_configs(&json), Vec::<String>::new());
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
        .args(["base", "otherhost", "--force", "--threshold", "10%"])
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

/// Writes `versions` into a copy's environment.json (what `version:`
/// commands recorded).
fn with_versions(run: &std::path::Path, versions: serde_json::Value) {
    edit_environment(run, |env| env["versions"] = versions);
}

/// Rewrites `run`'s environment.json through `edit`; returns what it holds after.
fn edit_environment(
    run: &std::path::Path,
    edit: impl FnOnce(&mut serde_json::Value),
) -> serde_json::Value {
    let path = run.join("environment.json");
    let mut env: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut env);
    std::fs::write(&path, serde_json::to_string_pretty(&env).unwrap()).unwrap();
    env
}

/// A server upgraded between two runs (its `version:` output changed) makes
/// them not comparable, naming it; a version recorded on one side only (a
/// run from before the key) is not a difference.
#[test]
fn a_changed_server_version_is_not_comparable() {
    let (_a_tmp, a) = copy_fixture("base");
    let (_b_tmp, b) = copy_fixture("base");
    with_versions(
        &a,
        serde_json::json!({ "runtime nginx": "nginx version: nginx/1.22.1" }),
    );
    with_versions(
        &b,
        serde_json::json!({ "runtime nginx": "nginx version: nginx/1.24.0" }),
    );
    compare()
        .arg(&a)
        .arg(&b)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "version of runtime nginx: \"nginx version: nginx/1.22.1\" vs \"nginx version: nginx/1.24.0\"",
        ));
    with_versions(&a, serde_json::json!({}));
    let out = compare().arg(&a).arg(&b).output().unwrap();
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
            "| `jdk-jvm/payload=7/concurrency=1` | 7,056 | — |",
        ))
        .stdout(predicate::str::contains("**FAILED in B**"));
}

/// The configurations flagged as regressed in either metric.
fn regressed_configs(json: &serde_json::Value) -> Vec<String> {
    json["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            ["throughput", "p99"]
                .iter()
                .any(|m| c[m]["verdict"] == "regression" || c[m]["verdict"] == "failed")
        })
        .map(|c| c["config_id"].as_str().unwrap().to_string())
        .collect()
}

fn compare_json(a: &str, b: &str, code: i32) -> serde_json::Value {
    let out = compare()
        .args([a, b, "--format", "json"])
        .assert()
        .code(code);
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

#[test]
fn unchanged_runs_at_the_reference_runs_noise_are_inconclusive_never_regressed() {
    // ~9% between repeats and ~7% per second, 2 repeats (the reference
    // run's noise): the old per-second U test flagged ~20% of such pairs'
    // configurations; the repeat-level rule flags none and says it cannot tell.
    let json = compare_json("noisy-a", "noisy-b", 3);
    assert_eq!(regressed_configs(&json), Vec::<String>::new());
    assert_eq!(json["outcome"], "inconclusive");
    assert_eq!(json["inconclusive"], 18);
    for row in json["design"].as_array().unwrap() {
        assert!(
            row["detectable"].as_f64().unwrap() > 0.3,
            "2 repeats at ~9% noise cannot see a 5% change: {row}"
        );
    }
}

#[test]
fn at_a_quiet_hosts_noise_a_20_percent_drop_is_found_alone_and_unchanged_runs_pass() {
    let json = compare_json("quiet-a", "quiet-regressed", 1);
    assert_eq!(regressed_configs(&json), [REGRESSED]);
    // Unchanged at 3% noise with 5 repeats: nothing flagged; a 5% change is
    // not detectable (exit 3), a 15% one is (exit 0).
    let json = compare_json("quiet-a", "quiet-b", 3);
    assert_eq!(regressed_configs(&json), Vec::<String>::new());
    compare()
        .args([
            "quiet-a",
            "quiet-b",
            "--threshold",
            "15%",
            "--latency-threshold",
            "20%",
        ])
        .assert()
        .code(0);
}

/// An experiment directory holding copies of fixture runs, in this order
/// (their run ids order them; the names given are the run directories).
fn experiment(runs: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for (fixture, name) in runs {
        copy_dir(&fixtures().join(fixture), &tmp.path().join(name));
        let status = tmp.path().join(name).join("status.json");
        let text = std::fs::read_to_string(&status).unwrap();
        let id = text
            .split("\"run_id\": \"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        std::fs::write(&status, text.replace(id, name)).unwrap();
    }
    tmp
}

#[test]
fn baseline_history_judges_the_newest_run_against_the_last_stable_regime() {
    let exp = experiment(&[
        ("quiet-a", "20261201T020000Z"),
        ("quiet-b", "20261202T020000Z"),
        ("quiet-a", "20261203T020000Z"),
        ("quiet-b", "20261204T020000Z"),
        ("quiet-regressed", "20261205T020000Z"),
    ]);
    let out = runner()
        .args(["compare", "--baseline", "history", "--format", "json"])
        .args(["--run-noise", "0%", "--latency-run-noise", "0%"])
        .arg(exp.path())
        .assert()
        .code(1);
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(regressed_configs(&json), [REGRESSED]);
    assert_eq!(json["b"]["run_id"], "20261205T020000Z");
    // The run before the newest may start a regime the detector cannot see
    // yet (min segment 3), so the regime is the three runs before it.
    assert_eq!(
        json["a"]["run_id"],
        "history 20261201T020000Z..20261203T020000Z"
    );
    // 3 runs x 5 repeats pooled on A's side.
    let cell = cell_of(&json, REGRESSED);
    assert_eq!(cell["throughput"]["a_repeats"], 15);

    // An older run of the experiment is refused with the newest named.
    runner()
        .args(["compare", "--baseline", "history"])
        .arg(exp.path().join("20261202T020000Z"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("judges the newest run"))
        .stderr(predicate::str::contains("20261205T020000Z"));
    // Two paths with --baseline history, or one without, is a usage error.
    runner()
        .args(["compare", "base"])
        .current_dir(fixtures())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("needs two run directories"));
}

#[test]
fn a_first_run_against_its_history_says_nothing_was_compared() {
    let exp = experiment(&[("quiet-a", "20261201T020000Z")]);
    runner()
        .args(["compare", "--baseline", "history"])
        .arg(exp.path())
        .assert()
        .code(3)
        .stdout(predicate::str::contains(
            "**Verdict: INCONCLUSIVE: no configuration was measured on both sides**",
        ))
        .stdout(predicate::str::contains("0 of 0").not());
}

/// The cell of configuration `id` in a comparison's JSON.
fn cell_of<'a>(json: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    json["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["config_id"] == id)
        .unwrap_or_else(|| panic!("no cell {id}"))
}

/// (config, metric, verdict) of every judged throughput and p99 test.
fn compare_verdicts(json: &serde_json::Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for c in json["cells"].as_array().unwrap() {
        for metric in ["throughput", "p99"] {
            out.push((
                c["config_id"].as_str().unwrap().to_string(),
                metric.to_string(),
                c[metric]["verdict"].as_str().unwrap().to_string(),
            ));
        }
    }
    out.sort();
    out
}

/// Issue 27: compare, compare against history and history's judgement of
/// the newest run are one rule, so the same runs get the same verdicts:
/// two runs (`compare A B` and a two-run history) and five (`--baseline
/// history` and history).
#[test]
fn compare_and_history_give_the_same_runs_the_same_verdicts() {
    let floor = ["--run-noise", "2%", "--latency-run-noise", "4%"];
    let pair = experiment(&[
        ("quiet-a", "20261201T020000Z"),
        ("quiet-regressed", "20261202T020000Z"),
    ]);
    // Runs `runner` with `args`, the floor and `path`; its JSON (exit 1).
    let json = |args: &[&str], paths: &[std::path::PathBuf]| -> serde_json::Value {
        let out = runner()
            .args(args)
            .args(["--format", "json"])
            .args(floor)
            .args(paths)
            .assert()
            .code(1);
        serde_json::from_slice(&out.get_output().stdout).unwrap()
    };
    let (c, h) = (
        compare_verdicts(&json(
            &["compare"],
            &[
                pair.path().join("20261201T020000Z"),
                pair.path().join("20261202T020000Z"),
            ],
        )),
        history_verdicts(&json(&["history"], &[pair.path().to_path_buf()])),
    );
    assert_eq!(c, h);
    assert!(c.iter().any(|v| v.2 == "regression"), "{c:?}");

    let five = experiment(&[
        ("quiet-a", "20261201T020000Z"),
        ("quiet-b", "20261202T020000Z"),
        ("quiet-a", "20261203T020000Z"),
        ("quiet-b", "20261204T020000Z"),
        ("quiet-regressed", "20261205T020000Z"),
    ]);
    let five_path = [five.path().to_path_buf()];
    let against = json(&["compare", "--baseline", "history"], &five_path);
    let history = json(&["history"], &five_path);
    assert_eq!(compare_verdicts(&against), history_verdicts(&history));
}

/// A run records the toolchains its runtimes use: one recorded on one side
/// only (an older run recorded every installed one) is not a difference,
/// while a toolchain both recorded and changed is.
#[test]
fn a_toolchain_recorded_on_one_side_only_is_not_a_difference() {
    let (_a_tmp, a) = copy_fixture("base");
    let (_b_tmp, b) = copy_fixture("base");
    let tools = edit_environment(&b, |_| {})["toolchains"]
        .as_object()
        .unwrap()
        .clone();
    assert!(
        tools.len() >= 2,
        "the fixture records several toolchains: {tools:?}"
    );
    let (kept, _) = tools.iter().next().unwrap();
    edit_environment(&b, |env| {
        env["toolchains"] = serde_json::json!({ kept.clone(): tools[kept].clone() })
    });
    let out = compare().arg(&a).arg(&b).output().unwrap();
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    edit_environment(&b, |env| {
        env["toolchains"] = serde_json::json!({ kept.clone(): "changed 9.9" })
    });
    compare()
        .arg(&a)
        .arg(&b)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!("toolchain {kept}: ")));
}
