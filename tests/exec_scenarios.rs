//! `scenarios:` end to end with the real binary: two runtimes of the
//! fixture service, a scenario at a constant open-loop rate that needs no
//! dependency and one in closed loop that needs a downstream (the stats
//! fixture). The cells run scenario by scenario, each with its own
//! requests and load; the downstream is started after the last cell (and
//! cold start) of the first scenario and stopped after the last of the
//! second, measured only beside the cells that need it; the report has the
//! per-scenario tables; nothing is left running.
mod common;

use std::time::Duration;

use common::*;

#[test]
fn each_scenario_gets_its_load_and_only_its_dependencies() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let f = fixtures();
    let rest = format!(
        r#"dependencies:
  down:
    dir: {f}
    start: python3 stats_dependency.py
    env: {{ PID_FILE: {down_pids} }}
    health: {{ path: /health, timeout: 20s, interval: 50ms }}
    stats: /__stats
scenarios:
  steady:
    description: a constant rate, no dependency
    workload: {{ path: /work/16 }}
    load: {{ mode: open, rate: 200 }}
    needs: []
  busy:
    description: closed loop beside the downstream
    workload:
      - {{ name: small, path: /work/8, weight: 3 }}
      - {{ name: large, path: /work/512, weight: 1 }}
    load: {{ connections: 3 }}
    needs: [down]
load: {{ mode: closed, connections: 2, timeout: 2s }}
repeats: 2
warmup: {{ service: 100ms, cell: 100ms }}
measure: {{ duration: 400ms }}
sample: {{ interval: 50ms }}
startup: {{ repeats: 1 }}
gates: {{ generator_wait: off, littles_law: off }}
results: {results}
"#,
        f = f.display(),
        down_pids = dir.join("pids-down").display(),
        results = dir.join("results").display(),
    );
    let spec = write_spec(
        dir,
        &[
            PyRuntime {
                name: "one",
                env: &[],
                extra: "",
            },
            PyRuntime {
                name: "two",
                env: &[],
                extra: "",
            },
        ],
        &rest,
    );
    let out = exec_ok(&spec, Duration::from_secs(120));
    let run = run_dir(dir);

    // Scenario by scenario, repeats interleaved inside each.
    let rows = measurements(&run);
    let ids: Vec<&str> = rows.iter().map(|r| r["cell_id"].as_str()).collect();
    assert_eq!(
        ids,
        [
            "one/scenario=steady/r1",
            "two/scenario=steady/r1",
            "one/scenario=steady/r2",
            "two/scenario=steady/r2",
            "one/scenario=busy/r1",
            "two/scenario=busy/r1",
            "one/scenario=busy/r2",
            "two/scenario=busy/r2",
        ],
        "{out}"
    );
    for r in &rows {
        assert_ne!(r["status"], "failed", "{r:?}\n{out}");
        if r["cell_id"].contains("steady") {
            assert_eq!(r["mode"], "open", "{r:?}");
            assert_eq!(r["target_rps"].parse::<f64>().unwrap(), 200.0, "{r:?}");
        } else {
            assert_eq!(r["mode"], "closed", "{r:?}");
        }
    }
    // The busy scenario's mix: both of its requests were sent, and only its.
    let mix = read_rows(&run.join("requests/one__scenario=busy__r1.csv"));
    let mut names: Vec<&str> = mix.iter().map(|r| r["request"].as_str()).collect();
    names.sort();
    assert_eq!(names, ["large", "small"], "{mix:?}");

    // The downstream: started once, after every steady cell, measured
    // beside the busy cells only, stopped before the run ended.
    let down = pids_in(&dir.join("pids-down"));
    assert_eq!(down.len(), 1, "{down:?}\n{out}");
    let started = out.find("dependency down started").expect(&out);
    let last_steady = out.rfind("cell two/scenario=steady/r2").expect(&out);
    assert!(started > last_steady, "{out}");
    let usage = read_rows(&run.join("dependency-usage.csv"));
    assert_eq!(usage.len(), 4, "{usage:?}");
    assert!(
        usage.iter().all(|u| u["cell_id"].contains("scenario=busy")),
        "{usage:?}"
    );

    // The report's scenario tables.
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    for wanted in [
        "## Scenarios",
        "| scenario | one | two |",
        "### Scenario `steady`",
        "a constant rate, no dependency",
        "### Scenario `busy`",
    ] {
        assert!(report.contains(wanted), "{wanted}\n{report}");
    }

    let mut all = all_pids(dir);
    all.extend(down);
    assert!(
        wait_all_gone(&all, Duration::from_secs(5)).is_empty(),
        "{all:?}"
    );
}
