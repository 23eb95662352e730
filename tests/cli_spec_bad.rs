//! The bad-spec corpus: the real binary on every broken spec in
//! tests/specs/bad/, checking exit status 2, nothing on stdout, and stderr
//! exactly equal to `<name>.expected`. A few inputs are made by the test
//! instead of committed (a 100 MB file, a directory, a missing path).
//!
//! Regenerate the golden files after an intended message change with
//! `UPDATE_GOLDEN=1 cargo test --test cli_spec_bad`, then review the diff.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod common;

use common::{UPDATE_GOLDEN, check_golden, runner, runner_within};

const CORPUS: &str = "tests/specs/bad";

/// Cases whose input the test creates in a temporary folder.
const GENERATED: &[&str] = &["too-big", "a-directory", "missing-file"];

/// Makes the input of a generated case in `dir`; returns the file name to pass.
fn generate(name: &str, dir: &Path) -> String {
    let file = format!("{name}.yaml");
    let path = dir.join(&file);
    match name {
        // 100 MB, sparse: refused from its size before a byte is read.
        "too-big" => std::fs::File::create(&path)
            .unwrap()
            .set_len(100 * 1024 * 1024)
            .unwrap(),
        "a-directory" => std::fs::create_dir(&path).unwrap(),
        "missing-file" => {}
        other => panic!("no generator for {other}"),
    }
    file
}

fn case_names() -> BTreeSet<String> {
    let mut names: BTreeSet<String> = GENERATED.iter().map(|s| (*s).to_owned()).collect();
    for entry in std::fs::read_dir(CORPUS).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path
            .extension()
            .is_some_and(|e| e == "yaml" || e == "expected")
        {
            names.insert(stem);
        }
    }
    names
}

#[test]
fn every_bad_spec_exits_2_with_its_exact_message() {
    let update = std::env::var_os(UPDATE_GOLDEN).is_some();
    let temp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let names = case_names();
    assert!(
        names.len() >= 20,
        "the corpus needs at least 20 cases, has {}",
        names.len()
    );
    for name in &names {
        let (dir, file): (PathBuf, String) = if GENERATED.contains(&name.as_str()) {
            (temp.path().to_path_buf(), generate(name, temp.path()))
        } else {
            (PathBuf::from(CORPUS), format!("{name}.yaml"))
        };
        let started = Instant::now();
        let out = runner_within(Duration::from_secs(20))
            .current_dir(&dir)
            .args(["validate", &file])
            .output()
            .unwrap();
        let took = started.elapsed();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let golden = Path::new(CORPUS).join(format!("{name}.expected"));
        if out.status.code() != Some(2) {
            failures.push(format!(
                "{name}: exit {:?}, expected 2\n{stderr}",
                out.status.code()
            ));
        } else if !out.stdout.is_empty() {
            failures.push(format!(
                "{name}: unexpected stdout {}",
                String::from_utf8_lossy(&out.stdout)
            ));
        } else if let Err(why) = check_golden(&golden, &stderr, update) {
            failures.push(format!("{name}: stderr: {why}"));
        } else if took > Duration::from_secs(5) {
            failures.push(format!("{name}: took {took:?}, must be refused quickly"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}

#[test]
fn validate_reports_every_spec_given_and_fails_if_any_is_bad() {
    let out = runner()
        .args([
            "validate",
            "tests/specs/good/seed-matrix.yaml",
            "tests/specs/bad/unknown-key.yaml",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ok: tests/specs/good/seed-matrix.yaml (3 runtimes, 168 cells)\n"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown key `timout`"));
}

#[test]
fn plan_rejects_unknown_only_keys_and_values() {
    let out = runner()
        .args([
            "plan",
            "tests/specs/good/seed-matrix.yaml",
            "--only",
            "payloads=7",
            "--only",
            "runtime=go",
            "--only",
            "payload",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let expected = "\
error: --only payloads=7: `payloads` is neither `runtime` nor an axis
  --> tests/specs/good/seed-matrix.yaml
  help: did you mean `payload`? (valid keys: `runtime`, `payload`, `concurrency`)

error: --only runtime=go: `go` is not a value of `runtime`
  --> tests/specs/good/seed-matrix.yaml
  help: values: `go-stdlib`, `jdk-jvm`, `jdk-leyden-aot`

error: --only `payload` is not KEY=VALUE[,VALUE]
  --> tests/specs/good/seed-matrix.yaml
  help: e.g. `--only runtime=go-stdlib --only payload=128,2048`

tests/specs/good/seed-matrix.yaml: 3 problems found
";
    assert_eq!(String::from_utf8_lossy(&out.stderr), expected);
}
