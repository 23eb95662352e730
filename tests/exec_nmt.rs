//! Per-cell JDK and GC axes with Native Memory Tracking, end to end on the
//! real Helidon SE service (runtimes/java-helidon, built with Maven on JDK
//! 25): `java.version: "{{ jdk }}"` with `min: 21` skips the JDK 17 cells
//! (planned, listed in status.json and the report), the GC axis gives each
//! GC its own service start, every JDK 25 cell records its JDK, and the
//! JVM's NMT summary lands in nmt.csv and the report beside RSS.
mod common;

use std::time::Duration;

use common::*;

#[test]
fn helidon_on_jdk_and_gc_axes_records_nmt_beside_rss_and_skips_jdk_17() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("runtimes/java-helidon");
    let spec = tmp.path().join("nmt.yaml");
    std::fs::write(
        &spec,
        format!(
            r#"experiment: {{ name: exec-test }}
runtimes:
  helidon-se:
    dir: {dir}
    java: {{ version: "{{{{ jdk }}}}", min: 21 }}
    build: [mvn -B -q -DskipTests package]
    jvm_flags: ["-XX:+Use{{{{ gc }}}}GC", "-Xmx64m", "-XX:NativeMemoryTracking=summary"]
    start: "{{{{ java }}}} {{{{ jvm_flags }}}} -jar target/service.jar"
    env: {{ HOST: 127.0.0.1 }}
    health: {{ path: /health, timeout: 60s }}
{QUIET_HOST}workload: {{ path: /api/strings/Helidon }}
axes: {{ jdk: [17, 25], gc: [G1, Parallel], concurrency: [2] }}
lifecycle: {{ restart: run }}
load: {{ mode: closed, timeout: 5s }}
repeats: 1
warmup: {{ service: 300ms, cell: 300ms }}
measure: {{ duration: 1500ms }}
results: {results}
"#,
            dir = dir.display(),
            results = tmp.path().join("results").display(),
        ),
    )
    .unwrap();
    exec_ok(&spec, Duration::from_secs(600));
    let run = run_dir(tmp.path());

    // JDK 17 is below min: both of its cells are skipped by the plan, not failed.
    let status: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("status.json")).unwrap()).unwrap();
    let skipped = status["skipped_cells"].as_array().expect("skipped_cells");
    assert_eq!(skipped.len(), 2, "{status}");
    let reason = skipped[0]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with(
            "helidon-se needs JDK 21 or newer; cell jdk=17,gc=G1,concurrency=2 resolved "
        ) && reason.ends_with(": skipped"),
        "{reason}"
    );

    let rows = measurements(&run);
    assert_eq!(rows.len(), 2, "{rows:?}");
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert!(r["jdk_version"].starts_with("25"), "{r:?}");
        assert!(r["jdk_home"].starts_with("/"), "{r:?}");
    }
    // One start per GC: the resolved start differs between the two cells.
    let starts = read_rows(&run.join("lifecycle.csv"));
    assert_eq!(starts.len(), 2, "{starts:?}");

    let nmt = read_rows(&run.join("nmt.csv"));
    assert_eq!(nmt.len(), 2, "{nmt:?}");
    for n in &nmt {
        assert_eq!(n["status"], "ok", "{n:?}");
        let committed: u64 = n["committed_bytes"].parse().unwrap();
        let heap: u64 = n["java_heap_committed_bytes"].parse().unwrap();
        let rss: u64 = n["service_rss_max_bytes"].parse().unwrap();
        // -Xmx64m bounds the heap; a JVM commits tens of MiB besides it.
        assert!(heap > 0 && heap <= 64 << 20, "{n:?}");
        assert!(committed > heap && committed < 4 << 30, "{n:?}");
        assert!(rss > 0, "{n:?}");
    }
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(
        md.contains("Native Memory Tracking"),
        "report.md has the NMT table"
    );
    assert!(
        md.contains("`helidon-se/jdk=25/gc=Parallel/concurrency=2`"),
        "{md}"
    );
    assert!(
        md.contains("- **skipped** `helidon-se/jdk=17/gc=G1/concurrency=2/r1`"),
        "{md}"
    );
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(
        html.contains("NMT committed"),
        "report.html has the NMT table"
    );
}
