//! Unit tests of per-cell start fields: planned against fake JDK folders.
use std::path::{Path, PathBuf};

use super::*;
use crate::plan::steps::inputs::Host;
use crate::plan::steps::restart::{Slot, needs_fresh_start};
use crate::plan::{PlanOptions, Restart, build_on};

fn fake_jdk(root: &Path, name: &str, version: &str) -> PathBuf {
    let home = root.join(name);
    std::fs::create_dir_all(home.join("bin")).unwrap();
    std::fs::write(home.join("bin/java"), "").unwrap();
    std::fs::write(
        home.join("release"),
        format!("JAVA_VERSION=\"{version}\"\n"),
    )
    .unwrap();
    home
}

/// Plans `text` on a host whose JDKs are 17.0.9 and 25.0.1 under `root`.
fn plan_with_jdks(text: &str, root: &Path) -> Result<crate::plan::Plan, String> {
    fake_jdk(root, "java-17", "17.0.9");
    fake_jdk(root, "temurin-25", "25.0.1");
    let loaded = crate::spec::from_text(text.to_owned(), &root.join("spec.yaml"))
        .map_err(|e| e.to_string())?;
    let host = Host {
        cpus: 2,
        java_home: None,
        jvm_root: root,
        allowed_cpus: vec![0, 1],
        user: "bench".to_owned(),
    };
    build_on(&loaded, &PlanOptions::default(), &host).map_err(|e| e.to_string())
}

const SPEC: &str = "experiment: { name: v }
runtimes:
  helidon:
    java: { version: \"{{ jdk }}\", min: 21 }
    jvm_flags: [\"-XX:+Use{{ gc }}GC\"]
    env: { LOG_REQUESTS: \"{{ log }}\" }
    build: [\"{{ java }} -version\"]
    start: \"{{ java }} {{ jvm_flags }} -jar app.jar\"
  go:
    start: ./server
workload: { path: / }
axes:
  jdk: [17, 25]
  gc: [G1, Z]
  log: [\"true\", \"false\"]
  concurrency: [1, 4]
exclude:
  - { runtime: go, jdk: 25 }
  - { runtime: go, gc: Z }
lifecycle: { restart: run }
measure: { duration: 1s }
";

#[test]
fn start_fields_resolve_per_cell_and_cells_below_min_are_skipped() {
    let root = tempfile::tempdir().unwrap();
    let plan = plan_with_jdks(SPEC, root.path()).unwrap();
    let helidon: Vec<&Cell> = plan
        .cells
        .iter()
        .filter(|c| c.runtime == "helidon")
        .collect();
    // jdk=17 is below min 21: 8 cells skipped, 8 left, all on JDK 25.
    assert_eq!(helidon.len(), 8);
    let skipped: Vec<&SkippedCell> = plan.skipped_cells.iter().collect();
    assert_eq!(skipped.len(), 8);
    let first = &skipped[0].reason;
    assert!(
        first.starts_with(
            "helidon needs JDK 21 or newer; cell jdk=17,gc=G1,log=true,concurrency=1 resolved "
        ) && first.ends_with("java-17 (17.0.9): skipped"),
        "{first}"
    );
    let v = helidon[0].variant.as_ref().unwrap();
    let java = v.java.as_ref().unwrap();
    assert_eq!(java.version.as_deref(), Some("25.0.1"));
    let bin = java
        .home
        .as_ref()
        .unwrap()
        .join("bin/java")
        .display()
        .to_string();
    assert_eq!(v.start, format!("{bin} -XX:+UseG1GC -jar app.jar"));
    assert_eq!(v.env["LOG_REQUESTS"], "true");
    // The build runs once, with the highest JDK the cells resolve to.
    let rt = &plan.runtimes[0];
    assert_eq!(rt.build, [format!("{bin} -version")]);
    assert_eq!(rt.start, v.start, "the runtime's start is its first cell's");
    // Go's start uses no axis: no variant.
    assert!(
        plan.cells
            .iter()
            .filter(|c| c.runtime == "go")
            .all(|c| c.variant.is_none())
    );
}

#[test]
fn cells_sharing_a_start_are_adjacent_so_each_start_happens_once() {
    let root = tempfile::tempdir().unwrap();
    let plan = plan_with_jdks(SPEC, root.path()).unwrap();
    let order: Vec<&str> = plan
        .cells
        .iter()
        .filter(|c| c.runtime == "helidon")
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(
        order[..4],
        [
            "helidon/jdk=25/gc=G1/log=true/concurrency=1/r1",
            "helidon/jdk=25/gc=G1/log=true/concurrency=4/r1",
            "helidon/jdk=25/gc=G1/log=false/concurrency=1/r1",
            "helidon/jdk=25/gc=G1/log=false/concurrency=4/r1",
        ]
    );
    let mut up: Option<&Cell> = None;
    let mut starts = 0;
    for cell in plan.cells.iter().filter(|c| c.runtime == "helidon") {
        if needs_fresh_start(Restart::Run, up.map(Slot::of), Slot::of(cell)) {
            starts += 1;
        }
        up = Some(cell);
    }
    assert_eq!(starts, 4, "one start per (gc, log) on JDK 25");
}

#[test]
fn grouping_keeps_first_appearance_order_within_a_runtime_and_repeat() {
    let root = tempfile::tempdir().unwrap();
    // `log` varies fastest, so plan order alternates the start.
    let text = "experiment: { name: g }
runtimes:
  a: { start: \"./a --log {{ log }}\" }
workload: { path: / }
axes: { concurrency: [1, 2], log: [plain, json] }
repeats: 2
load: { connections: 1 }
measure: { duration: 1s }
";
    let plan = plan_with_jdks(text, root.path()).unwrap();
    let ids: Vec<&str> = plan.cells.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "a/concurrency=1/log=plain/r1",
            "a/concurrency=2/log=plain/r1",
            "a/concurrency=1/log=json/r1",
            "a/concurrency=2/log=json/r1",
            "a/concurrency=1/log=plain/r2",
            "a/concurrency=2/log=plain/r2",
            "a/concurrency=1/log=json/r2",
            "a/concurrency=2/log=json/r2",
        ]
    );
}

#[test]
fn an_explicit_build_jdk_and_a_missing_cell_jdk() {
    let root = tempfile::tempdir().unwrap();
    let text = "experiment: { name: b }
runtimes:
  j:
    java: { version: \"{{ jdk }}\", build: \"17\" }
    build: [\"{{ java }} -version\"]
    start: \"{{ java }} -jar app.jar\"
workload: { path: / }
axes: { jdk: [17, 21] }
load: { connections: 1 }
measure: { duration: 1s }
";
    let plan = plan_with_jdks(text, root.path()).unwrap();
    let rt = &plan.runtimes[0];
    assert_eq!(rt.java.as_ref().unwrap().version.as_deref(), Some("17.0.9"));
    assert_eq!(plan.cells.len(), 1);
    assert_eq!(plan.skipped_cells.len(), 1);
    assert!(
        plan.skipped_cells[0]
            .reason
            .starts_with("j: JDK 21 is not installed on this host"),
        "{}",
        plan.skipped_cells[0].reason
    );
}

#[test]
fn a_build_using_an_axis_or_varying_flags_and_training_a_varying_start_are_refused() {
    let root = tempfile::tempdir().unwrap();
    let text = "experiment: { name: r }
runtimes:
  j:
    java: { version: \"25\" }
    jvm_flags: [\"-XX:+Use{{ gc }}GC\"]
    build: [\"make GC={{ gc }}\", \"echo {{ jvm_flags }}\"]
    start: \"{{ java }} {{ jvm_flags }} -jar app.jar\"
    train: { start: \"{{ java }} -jar app.jar\" }
workload: { path: / }
axes: { gc: [G1, Z] }
load: { connections: 1 }
measure: { duration: 1s }
";
    let err = plan_with_jdks(text, root.path()).unwrap_err();
    assert!(err.contains("at runtimes.j.build.0"), "{err}");
    assert!(err.contains("`gc` is an axis"), "{err}");
    assert!(err.contains("at runtimes.j.build.1"), "{err}");
    assert!(
        err.contains("vary per cell; a build runs once per runtime"),
        "{err}"
    );
    assert!(err.contains("at runtimes.j.train"), "{err}");
    assert!(err.contains("declare one runtime per value"), "{err}");
}

#[test]
fn a_fixed_jdk_below_min_skips_every_cell() {
    let root = tempfile::tempdir().unwrap();
    let text = "experiment: { name: m }
runtimes:
  j: { java: { version: \"17\", min: 21 }, start: \"{{ java }} -jar a.jar\" }
  k: { start: ./k }
workload: { path: / }
load: { connections: 1 }
measure: { duration: 1s }
";
    let plan = plan_with_jdks(text, root.path()).unwrap();
    assert_eq!(plan.cells.len(), 1);
    assert_eq!(plan.skipped_cells[0].cell_id, "j/r1");
    assert!(plan.skipped_cells[0].reason.contains("cell j/r1 resolved"));
}
