//! Weighted request mixes end to end: the real binary drives a workload of
//! three weighted requests against the fixture service, which counts the
//! requests it answered per path; the shares follow the weights, and the
//! seed is recorded in the run's plan.json.
mod common;

use std::collections::HashMap;
use std::time::Duration;

use common::*;

const MIX: &str = r#"workload:
  - { name: read, path: /work/1, weight: 60 }
  - { name: list, path: /work/2, weight: 30 }
  - { name: create, path: /work/3, weight: 10 }
axes: { concurrency: [2] }
load: { mode: closed, timeout: 2s, seed: 7 }
repeats: 1
warmup: { service: 0s, cell: { requests: 100 } }
measure: { requests: 600 }
sample: { interval: 100ms }
"#;

fn counts(file: &std::path::Path) -> HashMap<String, u64> {
    // One file per service start: `<file>.<pid>`.
    let dir = file.parent().unwrap();
    let prefix = format!("{}.", file.file_name().unwrap().to_string_lossy());
    let mut counts = HashMap::new();
    let mut files = 0;
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(&prefix) || name.ends_with(".tmp") {
            continue;
        }
        files += 1;
        for line in std::fs::read_to_string(entry.path()).unwrap().lines() {
            let (path, n) = line.split_once(' ').unwrap();
            *counts.entry(path.to_owned()).or_insert(0) += n.parse::<u64>().unwrap();
        }
    }
    assert!(
        files > 0,
        "no {prefix}<pid> file: the service writes it on SIGTERM"
    );
    counts
}

#[test]
fn requests_are_sent_in_the_weighted_shares_and_the_seed_is_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let count_file = tmp.path().join("counts");
    let count_env = count_file.display().to_string();
    let spec = write_spec(
        tmp.path(),
        &[PyRuntime {
            name: "py",
            env: &[("COUNT_FILE", &count_env)],
            extra: "",
        }],
        &format!("{MIX}{QUIET_HOST}"),
    );
    exec_ok(&spec, Duration::from_secs(120));
    // The service writes its counts as it exits: wait until it has.
    assert_no_leftovers(tmp.path());
    let counts = counts(&count_file);
    let total: u64 = counts.values().sum();
    // Counted, not timed: 700 drawn requests on any host (first requests
    // and the like may add a few).
    assert!(total >= 700, "{counts:?}");
    let share = |path: &str| counts.get(path).copied().unwrap_or(0) as f64 / total as f64;
    // Seeded draws (seed 7 per connection; only the split of the 700 between
    // the two connections varies): each share's SD is under 2 points, and
    // the bounds are more than 7 of them wide.
    assert!((0.45..0.75).contains(&share("/work/1")), "{counts:?}");
    assert!((0.18..0.42).contains(&share("/work/2")), "{counts:?}");
    assert!((0.03..0.20).contains(&share("/work/3")), "{counts:?}");

    let run = run_dir(tmp.path());
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("plan.json")).unwrap()).unwrap();
    let cell = &plan["cells"][0];
    assert_eq!(cell["load"]["seed"], 7, "{cell}");
    assert_eq!(cell["requests"][0]["weight"], 60.0, "{cell}");

    // Per-request rows add up to the cell's totals and follow the weights.
    let row = &measurements(&run)[0];
    let stem = row["cell_id"].replace('/', "__");
    let mix = read_rows(&run.join(format!("requests/{stem}.csv")));
    let names: Vec<&str> = mix.iter().map(|r| r["request"].as_str()).collect();
    assert_eq!(names, ["read", "list", "create"], "{mix:?}");
    let sum = |col: &str| -> u64 { mix.iter().map(|r| r[col].parse::<u64>().unwrap()).sum() };
    assert_eq!(sum("ok").to_string(), row["requests"], "{mix:?} vs {row:?}");
    assert_eq!(
        sum("errors").to_string(),
        row["errors"],
        "{mix:?} vs {row:?}"
    );
    for (r, (low, high)) in mix.iter().zip([(0.45, 0.75), (0.18, 0.42), (0.03, 0.20)]) {
        let share: f64 = r["share"].parse().unwrap();
        assert!((low..high).contains(&share), "{r:?}");
        assert!(r["p99_ms"].parse::<f64>().unwrap() > 0.0, "{r:?}");
        assert_eq!(r["cell_id"], row["cell_id"]);
    }
    assert_eq!(mix[0]["weight"], "60.0");

    // The report shows the mix beside the configuration's totals.
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    let section = report
        .split("## Request mix")
        .nth(1)
        .unwrap_or_else(|| panic!("no request-mix section:\n{report}"));
    let table: Vec<&str> = section.lines().filter(|l| l.starts_with('|')).collect();
    assert!(table[2].contains("**all**"), "{section}");
    for (line, name) in table[3..6].iter().zip(["read", "list", "create"]) {
        assert!(line.contains(&format!("| {name} |")), "{section}");
    }
}

/// `{{ seq }}` never repeats over the warmup and the measurement of a
/// cell (nor the repeats), and `{{ rand(1, 5) }}` draws every id in bounds.
#[test]
fn seq_ids_never_repeat_and_rand_ids_stay_in_bounds() {
    let tmp = tempfile::tempdir().unwrap();
    let count_file = tmp.path().join("counts");
    let count_env = count_file.display().to_string();
    let workload = r#"workload:
  - { name: read, path: "/work/1?id={{ rand(1, 5) }}", weight: 1 }
  - { name: create, path: "/work/2?id={{ seq }}&p={{ payload }}", weight: 1 }
axes: { payload: [9], concurrency: [3] }
load: { mode: closed, timeout: 2s }
repeats: 2
warmup: { service: 100ms, cell: 200ms }
measure: { duration: 500ms }
"#;
    let spec = write_spec(
        tmp.path(),
        &[PyRuntime {
            name: "py",
            env: &[("COUNT_FILE", &count_env)],
            extra: "    lifecycle: { restart: run }\n",
        }],
        &format!("{workload}{QUIET_HOST}"),
    );
    let text = exec_ok(&spec, Duration::from_secs(120));
    // The service writes its counts as it exits: wait until it has.
    assert_no_leftovers(tmp.path());
    let counts = counts(&count_file);
    let ids = |prefix: &str| -> Vec<(u64, u64)> {
        counts
            .iter()
            .filter_map(|(path, n)| {
                let id = path.strip_prefix(prefix)?.split('&').next()?;
                Some((id.parse().unwrap(), *n))
            })
            .collect()
    };
    let creates = ids("/work/2?id=");
    assert!(creates.len() >= 50, "{counts:?}\n{text}");
    let repeated: Vec<_> = creates.iter().filter(|(_, n)| *n != 1).collect();
    assert!(repeated.is_empty(), "ids sent twice: {repeated:?}");
    assert!(
        counts
            .keys()
            .filter(|p| p.starts_with("/work/2"))
            .all(|p| p.ends_with("&p=9")),
        "the rest of the template is rendered: {counts:?}"
    );
    let reads = ids("/work/1?id=");
    let mut seen: Vec<u64> = reads.iter().map(|(id, _)| *id).collect();
    seen.sort();
    assert_eq!(seen, [1, 2, 3, 4, 5], "{counts:?}");
}

fn assert_no_leftovers(dir: &std::path::Path) {
    let pids = all_pids(dir);
    assert!(!pids.is_empty(), "the service recorded its pids");
    let alive = wait_all_gone(&pids, std::time::Duration::from_secs(5));
    assert!(alive.is_empty(), "processes survived: {alive:?}");
}
