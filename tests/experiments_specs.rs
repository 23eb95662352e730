//! The committed experiments stay valid, the seed matrix keeps its shape, and
//! docs/spec.schema.json (which the specs point their editors at) stays current.
use std::path::Path;

use assert_cmd::prelude::*;

mod common;

use common::{assert_golden, runner};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_committed_experiment_validates() {
    let mut specs: Vec<_> = std::fs::read_dir(root().join("experiments"))
        .expect("experiments/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    specs.sort();
    assert!(
        specs.len() >= 4,
        "expected the committed experiments, found {specs:?}"
    );
    runner().arg("validate").args(&specs).assert().success();
}

#[test]
fn the_seed_matrix_expands_to_168_cells() {
    let out = runner()
        .args(["plan", "--format", "json"])
        .arg(root().join("experiments/2026.yaml"))
        .output()
        .expect("runner plan runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).expect("plan JSON");
    let cells = plan["cells"].as_array().expect("cells array");
    assert_eq!(cells.len(), 168);
    let runtimes: Vec<_> = plan["runtimes"]
        .as_array()
        .expect("runtimes array")
        .iter()
        .map(|r| r["name"].as_str().expect("runtime name").to_string())
        .collect();
    assert_eq!(runtimes, ["go-stdlib", "jdk-jvm", "jdk-leyden-aot"]);
    assert_eq!(cells[0]["id"], "go-stdlib/payload=7/concurrency=1/r1");
}

#[test]
fn the_committed_schema_is_current() {
    let out = runner().arg("schema").assert().success();
    // Stale? `UPDATE_GOLDEN=1` (or `runner schema > docs/spec.schema.json`).
    assert_golden(
        "docs/spec.schema.json",
        &String::from_utf8_lossy(&out.get_output().stdout),
    );
}
