//! The spec's JSON Schema (`runner schema`, docs/spec.schema.json, what
//! editors check a spec with) and `runner validate` agree on every spec of
//! a corpus: the committed experiments and guide specs, every good and bad
//! spec of tests/specs, and tests/specs/schema-agreement's cases (each file
//! says in its first line what runner does with it and why). The schema is
//! judged by an independent validator (Python's jsonschema over PyYAML,
//! tests/fixtures/schema_check.py), not by runner's own reader. A
//! disagreement fails the test unless it is listed below with its reason;
//! docs/spec.md ("What the schema cannot check") says the same to users.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::runner;

/// Specs runner refuses for a reason a JSON Schema cannot state: the
/// schema accepts them. Keyed by file name.
const CANNOT: &[(&str, &str)] = &[
    // Templates: the schema sees a template as a string.
    ("axis-in-runtime-field.yaml", "a template's variables"),
    ("inherited-axis-in-build.yaml", "a template's variables"),
    ("java-variable-without-java.yaml", "a template's variables"),
    ("tls-var-without-tls.yaml", "a template's variables"),
    ("undefined-template-variable.yaml", "a template's variables"),
    (
        "dependency-not-needed-in-template.yaml",
        "a template's variables",
    ),
    ("template-syntax-error.yaml", "a template's syntax"),
    ("bad-expect-rendered.yaml", "a template's rendered value"),
    ("bad-rand.yaml", "a template function's arguments"),
    // Names that refer to another part of the spec, or to a file.
    ("axis-not-declared.yaml", "a reference to a declared axis"),
    (
        "exclude-unknown-axis.yaml",
        "a reference to a declared axis",
    ),
    (
        "dependency-unknown-needs.yaml",
        "a reference to a declared dependency",
    ),
    (
        "extends-unknown-parent.yaml",
        "a reference to another runtime",
    ),
    ("extends-cycle.yaml", "a cycle through other runtimes"),
    (
        "protocol-not-offered.yaml",
        "the load's protocol against a runtime's",
    ),
    ("verify-vectors-file.yaml", "a file on disk"),
    ("runtime-files.yaml", "files on disk"),
    (
        "duplicate-runtime-name.yaml",
        "names unique across sections",
    ),
    (
        "missing-start.yaml",
        "`start` may come from an `extends:` parent",
    ),
    // Rules across fields.
    (
        "closed-mode-without-concurrency.yaml",
        "a rule across fields",
    ),
    ("open-mode-without-rate.yaml", "a rule across fields"),
    ("search-fields-in-open-mode.yaml", "a rule across fields"),
    ("search-from-above-to.yaml", "a rule across fields"),
    ("search-without-slo.yaml", "a rule across fields"),
    ("gates-cross-check.yaml", "a rule across fields"),
    (
        "hosts-remote-load-without-service-address.yaml",
        "a rule across fields",
    ),
    ("protocol-combinations.yaml", "a rule across fields"),
    ("protocol-h2-checks.yaml", "a rule across fields"),
    ("protocol-streams-new.yaml", "a rule across fields"),
    ("protocol-trained.yaml", "a rule across fields"),
    ("train-with-varying-start.yaml", "a rule across fields"),
    ("until-decided-problems.yaml", "a rule across fields"),
    ("scenario-problems.yaml", "a rule across fields"),
    (
        "bad-controls.yaml",
        "`controls` names runtimes, and needs the interleaved order: rules across fields",
    ),
    // What YAML readers do before any schema.
    (
        "duplicate-yaml-key.yaml",
        "PyYAML keeps a duplicate key's last value",
    ),
    ("repeats-float.yaml", "JSON Schema calls 3.0 an integer"),
    (
        "duration-too-long.yaml",
        "a duration's upper bound is a number inside a string",
    ),
];

/// Specs runner refuses for a rule the schema could state but does not
/// yet: the list of work left, not a reason (docs/spec.md names them).
const NOT_YET: &[&str] = &[
    "bad-expect-size.yaml",
    "bad-expect.yaml",
    "bad-pass-env.yaml",
    "bad-stop-signal.yaml",
    "empty-axis.yaml",
    "invalid-env-name.yaml",
    "invalid-header-name.yaml",
    "invalid-http-method.yaml",
    "java-without-version.yaml",
    "lowercase-http-method.yaml",
    "missing-workload.yaml",
    "negative-weight.yaml",
    "open-rate-zero.yaml",
    "payload-not-integer.yaml",
    "rate-axis-not-numeric.yaml",
    "runtime-files-names.yaml",
    "verify-vectors-shape.yaml",
    "zero-and-negative-concurrency.yaml",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The YAML files of each folder of the corpus, sorted.
fn corpus() -> Vec<PathBuf> {
    let folders = [
        "experiments",
        "experiments/examples",
        "docs/guides/specs",
        "tests/specs/good",
        "tests/specs/bad",
        "tests/specs/schema-agreement",
    ];
    let mut files: Vec<PathBuf> = folders
        .iter()
        .flat_map(|folder| {
            std::fs::read_dir(root().join(folder))
                .unwrap_or_else(|e| panic!("{folder}: {e}"))
                .map(|entry| entry.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        })
        .collect();
    files.sort();
    files
}

/// Each file's verdict by the schema alone, from the Python validator.
fn schema_verdicts(schema: &Path, files: &[PathBuf]) -> BTreeMap<PathBuf, bool> {
    let out = Command::new("python3")
        .arg(root().join("tests/fixtures/schema_check.py"))
        .arg(schema)
        .args(files)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "the schema validator failed (python3 with jsonschema and PyYAML: scripts/install-deps.sh installs them):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let (verdict, path) = line.split_once('\t').expect("VERDICT<TAB>PATH");
            (PathBuf::from(path), verdict == "valid")
        })
        .collect()
}

fn runner_accepts(file: &Path, tmp: &Path) -> bool {
    runner()
        .arg("validate")
        .arg(common::plannable(file, tmp))
        .output()
        .unwrap()
        .status
        .success()
}

fn listed(name: &str) -> bool {
    CANNOT.iter().any(|(n, _)| *n == name) || NOT_YET.contains(&name)
}

#[test]
fn the_schema_and_runner_validate_agree_on_every_spec_of_the_corpus() {
    let tmp = tempfile::tempdir().unwrap();
    let schema = tmp.path().join("spec.schema.json");
    let out = runner().arg("schema").output().unwrap();
    assert!(out.status.success());
    std::fs::write(&schema, out.stdout).unwrap();
    let files = corpus();
    assert!(files.len() > 100, "the corpus: {} files", files.len());
    let by_schema = schema_verdicts(&schema, &files);
    let mut unlisted = Vec::new();
    let mut stale = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_str().unwrap();
        let agree = by_schema[file] == runner_accepts(file, tmp.path());
        if !agree && !listed(name) {
            unlisted.push(format!(
                "{}: schema says {}, runner validate {}",
                file.display(),
                if by_schema[file] { "valid" } else { "invalid" },
                if by_schema[file] {
                    "refuses"
                } else {
                    "accepts"
                }
            ));
        }
        if agree && listed(name) {
            stale.push(name.to_string());
        }
    }
    assert!(
        unlisted.is_empty(),
        "disagreements not listed (fix the schema, or list one a schema cannot state with its reason):\n{}",
        unlisted.join("\n")
    );
    assert!(
        stale.is_empty(),
        "listed but agreeing now (take them off the lists and docs/spec.md): {stale:?}"
    );
}
