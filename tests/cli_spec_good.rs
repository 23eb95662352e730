//! The real binary on the good specs: validate passes, plan expands the seed
//! matrix to 168 cells with the expected estimate, filters and formats work.
use std::path::Path;

use assert_cmd::prelude::*;

mod common;

use common::{assert_golden, runner};

const SEED: &str = "tests/specs/good/seed-matrix.yaml";

fn plan_json(args: &[&str]) -> serde_json::Value {
    plan_json_of(SEED, args)
}

/// The stdout of `runner plan SPEC ARGS`, which must succeed.
fn plan_stdout(spec: &str, args: &[&str]) -> String {
    let out = runner().arg("plan").arg(spec).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `runner plan SPEC ARGS --format json`, which must succeed, parsed.
fn plan_json_of(spec: &str, args: &[&str]) -> serde_json::Value {
    let args: Vec<&str> = args.iter().copied().chain(["--format", "json"]).collect();
    let text = plan_stdout(spec, &args);
    // The JSON contract (src/results/format.rs): `format_version` first.
    assert!(
        text.starts_with("{\n  \"format_version\": 1,"),
        "{}",
        &text[..text.len().min(200)]
    );
    serde_json::from_str(&text).unwrap()
}

#[test]
fn validate_accepts_every_good_spec() {
    for entry in std::fs::read_dir("tests/specs/good").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            runner()
                .arg("validate")
                .arg(&path)
                .assert()
                .success()
                .stderr("");
        }
    }
}

#[test]
fn seed_matrix_plans_168_cells_and_about_43_minutes() {
    let plan = plan_json(&[]);
    let cells = plan["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 168);
    assert_eq!(cells[0]["id"], "go-stdlib/payload=7/concurrency=1/r1");
    assert_eq!(cells[7]["id"], "go-stdlib/payload=128/concurrency=1/r1");
    assert_eq!(cells[28]["id"], "go-stdlib/payload=7/concurrency=1/r2");
    assert_eq!(
        cells[167]["id"],
        "jdk-leyden-aot/payload=8192/concurrency=192/r2"
    );
    assert_eq!(cells[3]["load"]["mode"]["connections"], 24);
    assert_eq!(cells[9]["requests"][0]["path"], "/api/generated/128");
    // 3 starts x (10s + 5s) + 9 cold starts x 5s + 168 x (10s + 5s) = 45s + 45s + 2520s.
    assert_eq!(plan["estimate"]["total"]["secs"], 2610);
    assert_eq!(plan["estimate"]["service_starts"], 3);
    assert_eq!(plan["estimate"]["cold_starts"], 9);
    let runtimes = plan["runtimes"].as_array().unwrap();
    let names: Vec<&str> = runtimes
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["go-stdlib", "jdk-jvm", "jdk-leyden-aot"]);
    let aot = &runtimes[2];
    assert_eq!(
        aot["jvm_flags"].as_array().unwrap().len(),
        3,
        "+jvm_flags appends to the parent's"
    );
    assert_eq!(
        aot["train"]["requests"].as_array().unwrap().len(),
        4,
        "one per payload"
    );
    assert!(
        aot["train"]["produces"][0]
            .as_str()
            .unwrap()
            .ends_with("runtimes/java-helidon/build/app.aot")
    );
    let ports: Vec<u64> = runtimes
        .iter()
        .map(|r| r["port"].as_u64().unwrap())
        .collect();
    assert!(ports[0] != ports[1] && ports[1] != ports[2] && ports[0] != ports[2]);
    assert_eq!(runtimes[0]["env"]["PORT"], ports[0].to_string());
    assert_eq!(runtimes[0]["tools"][0], "go");
}

#[test]
fn table_shows_count_and_estimate() {
    let out = runner()
        .args(["plan", SEED])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("\n168 cells\n"), "{text}");
    assert!(text.contains("estimated wall time: 43m 30s"), "{text}");
    assert!(
        text.contains("  + 9 cold starts x 5s (startup.repeats)"),
        "{text}"
    );
    assert!(
        text.contains("not counted: builds (3 runtimes), training (jdk-leyden-aot trains for 20s)")
    );
}

#[test]
fn only_filters_by_runtime_and_axis_values() {
    let plan = plan_json(&[
        "--only",
        "runtime=jdk-jvm",
        "--only",
        "payload=128,8192",
        "--only",
        "concurrency=12",
    ]);
    let ids: Vec<&str> = plan["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "jdk-jvm/payload=128/concurrency=12/r1",
            "jdk-jvm/payload=8192/concurrency=12/r1",
            "jdk-jvm/payload=128/concurrency=12/r2",
            "jdk-jvm/payload=8192/concurrency=12/r2"
        ]
    );
}

/// `--quick` with no value before the spec took the spec for its factor
/// ("invalid value 'SPEC' for '--quick [<FACTOR>]'"): the factor is read only
/// after `=`, so the flag works on either side of the spec.
#[test]
fn quick_stands_before_or_after_the_spec() {
    for (args, factor) in [
        (vec!["plan", "--quick", SEED], 10),
        (vec!["plan", SEED, "--quick"], 10),
        (vec!["plan", "--quick=4", SEED], 4),
        (vec!["plan", SEED, "--quick=4"], 4),
    ] {
        let out = runner()
            .args(&args)
            .args(["--only", "concurrency=1", "--format", "json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(plan["quick_factor"], factor, "{args:?}");
    }
}

/// `--repeats N` plans at most N repeats, says so, and refuses 0 by name.
#[test]
fn repeats_caps_the_planned_repeats_and_says_so() {
    let full = plan_json(&["--only", "concurrency=1"]);
    let capped = plan_json(&["--repeats", "1", "--only", "concurrency=1"]);
    let repeats = |plan: &serde_json::Value| -> Vec<u64> {
        let cells = plan["cells"].as_array().unwrap();
        cells
            .iter()
            .map(|c| c["repeat"].as_u64().unwrap())
            .collect()
    };
    assert!(
        repeats(&full).iter().any(|&r| r > 1),
        "the seed spec repeats"
    );
    assert!(repeats(&capped).iter().all(|&r| r == 1));
    assert_eq!(capped["repeats_cap"], 1);
    assert!(full.get("repeats_cap").is_none());
    let table = plan_stdout(SEED, &["--repeats=1", "--only", "concurrency=1"]);
    assert!(table.contains("repeats: at most 1 (--repeats)"), "{table}");
    let out = runner()
        .args(["plan", SEED, "--repeats", "0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--repeats <N>") && err.contains("'0'"),
        "{err}"
    );
}

#[test]
fn quick_divides_durations() {
    let plan = plan_json(&["--quick=10", "--only", "concurrency=1"]);
    assert_eq!(plan["quick_factor"], 10);
    assert_eq!(plan["cells"][0]["warmup"]["kind"], "fixed");
    assert_eq!(plan["cells"][0]["warmup"]["duration"]["secs"], 1);
    assert_eq!(
        plan["cells"][0]["measure"]["duration"]["nanos"],
        500_000_000
    );
}

#[test]
fn schema_describes_the_spec() {
    let out = runner()
        .arg("schema")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let schema: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(schema["title"], "Spec");
    assert!(schema["properties"]["runtimes"].is_object());
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    assert!(schema["definitions"]["RuntimeSpec"]["properties"]["+jvm_flags"].is_object());
    assert_eq!(schema["additionalProperties"], false);
    assert!(Path::new(SEED).exists());
}

#[test]
fn open_loop_interleaved_spec_plans_its_rules_and_rates() {
    let plan = plan_json_of("tests/specs/good/open-interleaved.yaml", &[]);
    let cells = plan["cells"].as_array().unwrap();
    let ids: Vec<&str> = cells.iter().map(|c| c["id"].as_str().unwrap()).collect();
    // node: include keeps all 4 points, exclude drops rate=5000 -> 2;
    // rust, java-home: payload=128 only -> 2 each; x 3 repeats.
    assert_eq!(cells.len(), 18);
    assert_eq!(
        &ids[..6],
        [
            "node/payload=7/rate=1000/r1",
            "node/payload=128/rate=1000/r1",
            "rust/payload=128/rate=1000/r1",
            "rust/payload=128/rate=5000/r1",
            "java-home/payload=128/rate=1000/r1",
            "java-home/payload=128/rate=5000/r1"
        ]
    );
    assert_eq!(
        ids[6], "node/payload=7/rate=1000/r2",
        "interleaved: repeat 2 after every runtime's repeat 1"
    );
    let load = &cells[3]["load"];
    assert_eq!(load["mode"]["mode"], "open");
    assert_eq!(load["mode"]["rate"], 5000.0);
    assert_eq!(load["mode"]["connections"], 32);
    assert_eq!(load["threads"], 2);
    let echo = &cells[2]["requests"][1];
    assert_eq!(echo["method"], "POST");
    assert_eq!(echo["body"], r#"{"size": 128, "from": "rust"}"#);
    assert_eq!(echo["expect_status"], 201);
    assert_eq!(cells[0]["measure"]["requests"], 20000);
    let runtimes = plan["runtimes"].as_array().unwrap();
    assert_eq!(runtimes[0]["port"], 18080);
    assert_eq!(runtimes[0]["env"]["UV_THREADPOOL_SIZE"], "4");
    assert_eq!(runtimes[0]["stop"]["signal_name"], "INT");
    assert_eq!(runtimes[0]["health"]["interval"]["nanos"], 250_000_000);
    let rust_port = runtimes[1]["port"].as_u64().unwrap();
    assert!(
        runtimes[1]["start"]
            .as_str()
            .unwrap()
            .contains(&format!("--port {rust_port} "))
    );
    assert_eq!(runtimes[1]["tools"][0], "cargo");
    assert!(
        runtimes[2]["java"]["home"].is_null(),
        "a missing JDK is recorded, not an error"
    );
    assert_eq!(runtimes[2]["tools"].as_array().unwrap().len(), 0);
    assert_eq!(plan["estimate"]["cells_by_requests"], 18);
    assert_eq!(plan["estimate"]["service_starts"], 9);
    assert!(
        plan["results_dir"]
            .as_str()
            .unwrap()
            .ends_with("tests/specs/good/out/open-loop-demo")
    );

    let table = runner()
        .args(["plan", "tests/specs/good/open-interleaved.yaml"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("NOT FOUND: this runtime will be skipped"),
        "{text}"
    );
}

/// `runner plan` output on tiny.yaml, pinned by a golden file (the repository
/// path and the spec's hash are replaced by placeholders).
/// Regenerate with `UPDATE_GOLDEN=1 cargo test --test cli_spec_good`.
#[test]
fn plan_table_matches_its_golden_file() {
    plan_table_golden("tiny");
}

/// A runtime's `pass_env` is listed and a secret-looking value is masked
/// (the caller's own values never reach the plan).
#[test]
fn the_pass_env_plan_names_the_passed_and_masks_the_secret() {
    plan_table_golden("pass-env");
    let text = plan_stdout("tests/specs/good/pass-env.yaml", &[]);
    assert!(!text.contains("not-for-the-plan"), "{text}");
}

/// The protocols spec's plan: a runtime offering http1, https and h2 over
/// a `protocol` axis, its TLS starts said apart from its plain one.
#[test]
fn the_protocols_plan_table_matches_its_golden_file() {
    plan_table_golden("tls-protocols");
}

/// Only the TLS cells start with the run's certificate: their scratch
/// folder holds it and their environment names the files; the plain
/// cell's start has neither; the load says the protocol and its streams.
#[test]
fn tls_cells_start_with_the_run_certificate_and_plain_cells_without() {
    let plan = plan_json_of("tests/specs/good/tls-protocols.yaml", &[]);
    let scratch = std::env::temp_dir().join("runner-tls-protocols-go-18090");
    let cert = scratch.join("tls-cert.pem").display().to_string();
    for cell in plan["cells"].as_array().unwrap() {
        let protocol = cell["axes"][0][1].as_str().unwrap();
        let variant = &cell["variant"];
        let tls = protocol != "http1";
        assert_eq!(
            variant["scratch"]["tls"].as_bool() == Some(true),
            tls,
            "{cell}"
        );
        assert_eq!(
            variant["env"]["TLS_CERT_FILE"].as_str() == Some(cert.as_str()),
            tls,
            "{cell}"
        );
        match protocol {
            "http1" => assert!(
                cell["load"]["protocol"].is_null(),
                "plain stays out of plan.json"
            ),
            p => {
                assert_eq!(cell["load"]["protocol"]["protocol"], p);
                let streams = if p == "h2" { 4 } else { 1 };
                assert_eq!(cell["load"]["protocol"]["streams"], streams);
                assert_eq!(cell["load"]["protocol"]["trust"], "run-ca");
            }
        }
    }
    assert_eq!(
        plan["runtimes"][0]["protocols"],
        serde_json::json!(["http1", "https", "h2"])
    );
}

fn plan_table_golden(name: &str) {
    let text = plan_stdout(&format!("tests/specs/good/{name}.yaml"), &[]);
    let hash_line = text
        .lines()
        .find(|l| l.contains("spec sha256"))
        .unwrap()
        .to_owned();
    let text = text
        .replace(env!("CARGO_MANIFEST_DIR"), "<repo>")
        .replace(&hash_line, "  spec sha256 <hash>");
    assert_golden(format!("tests/specs/good/{name}.plan.expected"), &text);
}

/// A spec over the fixture run's experiment (tests/fixtures/runs/base):
/// two of its runtimes, and `rust-hyper`, which it skipped.
const OVER_THE_FIXTURE_RUN: &str = r#"experiment: { name: go-java-go-2026 }
runtimes:
  go-stdlib: { start: ./server }
  jdk-jvm: { start: ./jvm }
  rust-hyper: { start: ./rust }
workload: { path: "/api/generated/{{ payload }}" }
axes: { payload: [7, 8192], concurrency: [1, 12, 96] }
repeats: 2
measure: { duration: 5s }
"#;

/// Copies the fixture run into `dir/results/go-java-go-2026/`, its host
/// made this host when `this_host`; returns the spec path beside it.
fn spec_with_a_previous_run(dir: &Path, this_host: bool) -> std::path::PathBuf {
    let base = Path::new("tests/fixtures/runs/base");
    let run = dir.join("results/go-java-go-2026/20261128-020000");
    std::fs::create_dir_all(&run).unwrap();
    for entry in std::fs::read_dir(base).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, run.join(path.file_name().unwrap())).unwrap();
        }
    }
    if this_host {
        let file = run.join("environment.json");
        let mut env: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        env["host"] = serde_json::to_value(runner::results::environment::host_info()).unwrap();
        std::fs::write(&file, env.to_string()).unwrap();
    }
    let spec = dir.join("spec.yaml");
    std::fs::write(&spec, OVER_THE_FIXTURE_RUN).unwrap();
    spec
}

#[test]
fn plan_says_what_the_design_can_detect_from_the_last_run_on_this_host() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = spec_with_a_previous_run(tmp.path(), true);
    let spec = spec.to_str().unwrap();

    let plan = plan_json_of(spec, &[]);
    let design = &plan["design"];
    assert_eq!(design["last_run"]["run_id"], "20261128-020000");
    assert_eq!(design["last_run"]["spec_differs"], true);
    assert_eq!(
        design["tests"], 36,
        "throughput and p99 of 18 configurations"
    );
    assert_eq!(design["repeats"], 2);
    let rows = design["rows"].as_array().unwrap();
    let names: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["runtime"].as_str().unwrap(),
                r["metric"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            "go-stdlib throughput",
            "go-stdlib p99",
            "jdk-jvm throughput",
            "jdk-jvm p99",
            "rust-hyper throughput",
            "rust-hyper p99"
        ]
    );
    let go = &rows[0];
    let (noise, detectable) = (
        go["noise"].as_f64().unwrap(),
        go["detectable"].as_f64().unwrap(),
    );
    assert!(
        noise > 0.0 && noise < 0.05,
        "the fixture's noise is small: {go}"
    );
    assert!(detectable > noise, "{go}");
    assert!(
        rows[4]["noise"].is_null(),
        "rust-hyper was skipped: {}",
        rows[4]
    );

    let text = plan_stdout(spec, &[]);
    let (_, design) = text.split_once("\n\nwhat a compare can detect").unwrap();
    assert_golden(
        "tests/specs/good/design.plan.expected",
        &format!("what a compare can detect{design}"),
    );
}

#[test]
fn a_previous_run_from_another_host_gives_no_noise_estimate() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = spec_with_a_previous_run(tmp.path(), false);
    let spec = spec.to_str().unwrap();
    assert!(plan_json_of(spec, &[]).get("design").is_none());
    let text = plan_stdout(spec, &[]);
    assert!(
        text.ends_with(
            "\nno previous run to estimate noise from (runs left out: 1 from another host): \
             run once, then `runner plan` says what 2 repeats can detect\n"
        ),
        "{text}"
    );
}
