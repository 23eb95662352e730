//! The downstream stub (runtimes/stub) run as a runtime by the real binary:
//! built by the spec's `go build`, started with a declared delay, and
//! measured by runner's own load generator. The declared delay must show up
//! in runner's latency (wide bounds: a shared 2-core host adds to it, never
//! takes from it), and the stub's own /__stats interface is what
//! docs/spec.md's `dependencies` read (checked by the stub's go test).
//! The cells' connection columns (issue 13 part 6) are checked on the way.
mod common;

use std::time::Duration;

use common::*;

#[test]
fn the_stubs_declared_delay_shows_up_in_runners_latency() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("spec.yaml");
    // 25 ms: clear of the Nagle floor gate's 36-48 ms band.
    std::fs::write(
        &spec,
        format!(
            "experiment: {{ name: exec-test, title: stub, description: the downstream stub as a runtime }}\n\
             runtimes:\n{}{}\
             workload: {{ method: GET, path: /work/1, expect: {{ status: 200 }} }}\n\
             axes: {{ concurrency: [2] }}\n\
             load: {{ mode: closed, timeout: 2s }}\n\
             repeats: 1\n\
             warmup: {{ service: 200ms, cell: 200ms }}\n\
             measure: {{ duration: 1s }}\n\
             sample: {{ interval: 100ms }}\n{QUIET_HOST}",
            stub_runtime(tmp.path(), "delayed", "fixed(25ms)"),
            // Not an instant answer: a closed loop against one asks as fast
            // as the generator (a debug build here) can, so its own CPU would
            // be the cell's limit and the cell honestly `suspect`. 2 ms caps
            // the loop at 1,000 req/s, a small share of a core.
            stub_runtime(tmp.path(), "prompt", "fixed(2ms)"),
        ),
    )
    .unwrap();
    exec_ok(&spec, Duration::from_secs(300));
    let rows = measurements(&run_dir(tmp.path()));
    let figure = |runtime: &str, column: &str| -> f64 {
        let row = rows
            .iter()
            .find(|r| r["runtime"] == runtime)
            .unwrap_or_else(|| panic!("no row for {runtime}: {rows:?}"));
        assert!(row["status"] == "ok", "{row:?}");
        row[column].parse().unwrap()
    };
    let (delayed, prompt) = (
        figure("delayed", "latency_p50_ms"),
        figure("prompt", "latency_p50_ms"),
    );
    assert!(
        (25.0..250.0).contains(&delayed),
        "p50 {delayed} ms for fixed(25ms)"
    );
    // Half the delay: a busy host can slow the prompt stub's answers too.
    assert!(
        delayed - prompt >= 12.5,
        "the 25 ms delay is not in the latency: p50 {delayed} ms vs {prompt} ms without it"
    );
    // The connection columns: both connections opened before the window,
    // the start's idle RSS and the generator's own RSS recorded.
    let row = rows.iter().find(|r| r["runtime"] == "delayed").unwrap();
    assert_eq!(row["connections_opened"], "2", "{row:?}");
    for column in [
        "service_idle_rss_bytes",
        "service_rss_per_connection_bytes",
        "gen_rss_bytes",
    ] {
        assert!(
            row[column].parse::<f64>().is_ok_and(|v| v >= 0.0),
            "{column}: {row:?}"
        );
    }
    assert!(row["service_idle_rss_bytes"].parse::<u64>().unwrap() > 0);
    // Two connections, each waiting 25 ms per answer: at most 80 req/s.
    let throughput = figure("delayed", "throughput_rps");
    assert!(
        throughput > 5.0 && throughput <= 2.0 / 0.025 * 1.02,
        "throughput {throughput} req/s"
    );
}

/// A cell holding 1,000 connections (open loop, a gentle rate): its row
/// has the connect phase and the memory per connection, and the report's
/// Connections section shows them.
#[test]
fn a_thousand_held_connections_are_reported_with_their_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("spec.yaml");
    std::fs::write(
        &spec,
        format!(
            "experiment: {{ name: exec-test, title: stub, description: many connections }}\n\
             runtimes:\n{}\
             workload: {{ method: GET, path: /work/1, expect: {{ status: 200 }} }}\n\
             axes: {{ concurrency: [1000] }}\n\
             load: {{ mode: open, rate: 500, connections: \"{{{{ concurrency }}}}\", timeout: 5s, connect_rate: 4000/s }}\n\
             repeats: 1\n\
             warmup: {{ service: 0s, cell: 0s }}\n\
             measure: {{ duration: 1500ms }}\n\
             sample: {{ interval: 100ms }}\n{QUIET_HOST}",
            stub_runtime(tmp.path(), "stub", "fixed(5ms)"),
        ),
    )
    .unwrap();
    exec_ok(&spec, Duration::from_secs(300));
    let run = run_dir(tmp.path());
    let row = &measurements(&run)[0];
    assert_eq!(row["connections_opened"], "1000", "{row:?}");
    let connect_s: f64 = row["connect_s"].parse().unwrap();
    // 1,000 connections paced at 4000/s cannot take less than 999 / 4000 s.
    assert!(connect_s >= 0.249, "{row:?}");
    let per_connection: f64 = row["service_rss_per_connection_bytes"].parse().unwrap();
    // A Go net/http connection costs kilobytes (a goroutine stack and
    // buffers): more than nothing, less than a megabyte.
    assert!((100.0..1_048_576.0).contains(&per_connection), "{row:?}");
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    let section = report
        .split("## Connections")
        .nth(1)
        .unwrap_or_else(|| panic!("no Connections section:\n{report}"));
    assert!(
        section.contains("| `stub/concurrency=1000` | 1000 |"),
        "{section}"
    );
}
