//! The live contract check on the real services (builds Go, Java (Helidon
//! SE and MP, Spring Boot), Rust and Node: minutes on a first run). Ignored
//! by default; run with
//! `cargo test --test verify_contract -- --ignored`.
use std::path::Path;

mod common;

#[test]
#[ignore = "builds and starts the real services; run with --ignored"]
fn the_real_services_are_equivalent() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = common::runner_within(std::time::Duration::from_secs(1200))
        .current_dir(root)
        .args(["verify", "experiments/contract.yaml", "--format", "json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stderr:\n{stderr}"));
    assert_eq!(
        report["verdict"]["differences"],
        serde_json::json!([]),
        "stderr:\n{stderr}"
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(report["verdict"]["answered"], 9);
}
