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

/// The Node-vs-Go study (issue 16): 3 runtimes x 2 concurrencies x 2
/// repeats, the sampler off during the windows, memory phases of 3 fresh
/// processes at 300 connections, and `--quick` shortening them too.
#[test]
fn the_node_vs_go_study_plans_its_cells_and_memory_phases() {
    let plan = |quick: Option<&str>| -> serde_json::Value {
        let mut cmd = runner();
        cmd.args(["plan", "--format", "json"]);
        if let Some(q) = quick {
            cmd.arg(format!("--quick={q}"));
        }
        let out = cmd
            .arg(root().join("experiments/node-vs-go.yaml"))
            .output()
            .expect("runner plan runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("plan JSON")
    };
    let full = plan(None);
    assert_eq!(full["cells"].as_array().unwrap().len(), 12);
    assert_eq!(full["sample_during_measure"], false);
    assert_eq!(full["memory"]["repeats"], 3);
    assert_eq!(full["memory"]["connections"], 300);
    assert_eq!(full["memory"]["duration"]["secs"], 15);
    let quick = plan(Some("5"));
    assert_eq!(quick["memory"]["duration"]["secs"], 3);
    let requests = full["cells"][0]["requests"].as_array().unwrap();
    let names: Vec<&str> = requests
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["get", "get-miss", "post", "post-invalid", "post-malformed"]
    );
}
