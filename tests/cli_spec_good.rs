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
    serde_json::from_str(&plan_stdout(spec, &args)).unwrap()
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
    // 3 starts x (10s + 5s) + 168 x (10s + 5s) = 45s + 2520s.
    assert_eq!(plan["estimate"]["total"]["secs"], 2565);
    assert_eq!(plan["estimate"]["service_starts"], 3);
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
    assert!(text.contains("estimated wall time: 42m 45s"), "{text}");
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

#[test]
fn quick_divides_durations() {
    let plan = plan_json(&["--quick", "10", "--only", "concurrency=1"]);
    assert_eq!(plan["quick_factor"], 10);
    assert_eq!(plan["cells"][0]["warmup"]["secs"], 1);
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
    let text = plan_stdout("tests/specs/good/tiny.yaml", &[]);
    let hash_line = text
        .lines()
        .find(|l| l.contains("spec sha256"))
        .unwrap()
        .to_owned();
    let text = text
        .replace(env!("CARGO_MANIFEST_DIR"), "<repo>")
        .replace(&hash_line, "  spec sha256 <hash>");
    assert_golden("tests/specs/good/tiny.plan.expected", &text);
}
