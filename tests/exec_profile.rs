//! Profiling end to end on the real Go service (runtimes/go-nethttp, built
//! with `go build -trimpath` as the committed specs and the services' suite
//! build it, so Go's cache has its packages: without -trimpath the test
//! compiled the standard library afresh, 55 s here alone on a cold cache
//! and 157 s beside the other lanes of CI): the real binary runs one measured and one extra,
//! profiled repeat; the profiled row is marked and left out of the
//! statistics, both rows carry the Go GC pauses of their window, the CPU and
//! heap pprof flame graphs are self-contained SVGs naming Go frames, and
//! both reports link them, also when re-rendered by `runner report`. The JVM
//! collectors (GC log, JFR, async-profiler) are checked by
//! scripts/ci-profile.sh, which .ci/run calls: they need a JDK 25 and a Maven
//! build of Helidon.
mod common;

use std::time::Duration;

use common::*;

#[test]
fn a_profiled_go_cell_gets_pprof_flame_graphs_gc_pauses_and_report_links() {
    let tmp = tempfile::tempdir().unwrap();
    let go_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("runtimes/go-nethttp");
    let binary = tmp.path().join("server");
    let spec = tmp.path().join("profile.yaml");
    std::fs::write(
        &spec,
        format!(
            r#"experiment: {{ name: exec-test }}
runtimes:
  go:
    dir: {dir}
    build: [go build -trimpath -o {bin} ./cmd/server]
    start: {bin}
    env: {{ GOMAXPROCS: "1" }}
    profile:
      cells: {{ concurrency: [4] }}
      collect: [pprof_cpu, pprof_heap, go_gc]
startup: {{ repeats: 0 }}
workload: {{ path: /api/generated/2048 }}
axes: {{ concurrency: [4] }}
load: {{ mode: closed, timeout: 5s }}
repeats: 1
warmup: {{ service: 200ms, cell: 200ms }}
measure: {{ duration: 1500ms }}
results: {results}
"#,
            dir = go_dir.display(),
            bin = binary.display(),
            results = tmp.path().join("results").display(),
        ),
    )
    .unwrap();
    exec_ok(&spec, Duration::from_secs(240));
    let run = run_dir(tmp.path());

    let rows = measurements(&run);
    assert_eq!(rows.len(), 2, "{rows:?}");
    let measured = rows.iter().find(|r| r["repeat"] == "1").unwrap();
    let profiled = rows.iter().find(|r| r["repeat"] == "2").unwrap();
    assert_eq!(measured["profiled"], "false");
    assert_eq!(profiled["profiled"], "true");
    for r in [measured, profiled] {
        let pauses: u64 = r["gc_pauses"]
            .parse()
            .unwrap_or_else(|_| panic!("no GC pauses: {r:?}"));
        assert!(
            pauses > 0,
            "1.5 s of 2 KiB answers allocate enough for a GC: {r:?}"
        );
        let max: f64 = r["gc_pause_max_ms"].parse().unwrap();
        let total: f64 = r["gc_pause_total_ms"].parse().unwrap();
        assert!(max > 0.0 && max <= total, "{r:?}");
    }

    let artifacts = read_rows(&run.join("profiles.csv"));
    for collector in ["pprof_cpu", "pprof_heap"] {
        let svg = artifacts
            .iter()
            .find(|a| a["collector"] == collector && a["kind"] == "flame_graph")
            .unwrap_or_else(|| panic!("no {collector} flame graph: {artifacts:?}"));
        assert_eq!(svg["state"], "ok", "{svg:?}");
        let text = std::fs::read_to_string(run.join(&svg["file"])).unwrap();
        assert!(
            text.contains("<svg") && text.contains("<script"),
            "self-contained SVG"
        );
        assert!(
            text.contains("runner/go-nethttp/internal/service"),
            "{collector}: the service's own frames"
        );
        let raw = artifacts
            .iter()
            .find(|a| a["collector"] == collector && a["kind"] == "raw")
            .unwrap();
        assert!(run.join(&raw["file"]).is_file());
    }
    let cpu_svg = &artifacts
        .iter()
        .find(|a| a["collector"] == "pprof_cpu" && a["kind"] == "flame_graph")
        .unwrap()["file"];

    let check_reports = || {
        let md = std::fs::read_to_string(run.join("report.md")).unwrap();
        // minijinja escapes `/` in attributes as `&#x2f;`, which browsers read as `/`.
        let html = std::fs::read_to_string(run.join("report.html"))
            .unwrap()
            .replace("&#x2f;", "/");
        assert!(
            md.contains(&format!("]({cpu_svg})")),
            "report.md links the flame graph"
        );
        assert!(
            html.contains(&format!("href=\"{cpu_svg}\"")),
            "report.html links the flame graph"
        );
        assert!(md.contains("## Profiles and GC pauses") && md.contains("(profiled)"));
        // The headline statistics hold the measured repeat alone.
        let summary = read_rows(&run.join("summary-by-cell.csv"));
        assert_eq!(summary.len(), 1, "{summary:?}");
        assert_eq!(summary[0]["repeats"], "1", "{summary:?}");
    };
    check_reports();
    std::fs::remove_file(run.join("report.md")).unwrap();
    std::fs::remove_file(run.join("report.html")).unwrap();
    let out = runner().arg("report").arg(&run).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    check_reports();
}
