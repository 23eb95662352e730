//! The gate that judges the host, end to end with the host made busy on
//! purpose. The other test specs switch `generator_wait` off (tests/common's
//! `QUIET_HOST`), since a shared CI host would make their cells `suspect` at
//! random; here two CPU-bound processes of equal priority share the load
//! generator's CPU, so the generator must wait for it, whatever else the host
//! is doing, and the cell must say so.
mod common;

use std::process::{Child, Command};
use std::time::Duration;

use common::*;

/// CPU-bound processes pinned to one CPU, ended by PID when dropped.
struct Hogs(Vec<Child>);

impl Hogs {
    fn on_cpu(cpu: usize, count: usize) -> Hogs {
        Hogs(
            (0..count)
                .map(|_| {
                    Command::new("taskset")
                        .args(["-c", &cpu.to_string(), "sh", "-c", "while :; do :; done"])
                        .spawn()
                        .expect("taskset and sh start a busy loop")
                })
                .collect(),
        )
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The Go stub answering at once (the generator's own work between an
/// answer and the next request is then the largest share of an exchange it
/// can be), measured at `concurrency` with two busy loops on the load
/// generator's CPU. Returns each row's concurrency, status and reason.
fn busy_cells(concurrency: &str) -> Vec<(String, String, String)> {
    let tmp = tempfile::tempdir().unwrap();
    let service_cpu = usize::from(std::thread::available_parallelism().map_or(1, |n| n.get()) > 1);
    let spec = tmp.path().join("spec.yaml");
    std::fs::write(
        &spec,
        format!(
            "experiment: {{ name: exec-test, title: busy host, description: the host gates on a busy host }}\n\
             runtimes:\n{}\
             workload: {{ method: GET, path: /work/16, expect: {{ status: 200 }} }}\n\
             axes: {{ concurrency: {concurrency} }}\n\
             load: {{ mode: closed, timeout: 2s }}\n\
             repeats: 1\n\
             warmup: {{ service: 200ms, cell: 200ms }}\n\
             measure: {{ duration: 2s }}\n\
             sample: {{ interval: 100ms }}\n\
             startup: {{ repeats: 0 }}\n\
             affinity: {{ service: [{service_cpu}], load: [0] }}\n",
            stub_runtime(tmp.path(), "instant", "fixed(0s)"),
        ),
    )
    .unwrap();
    let _hogs = Hogs::on_cpu(0, 2);
    exec_ok(&spec, Duration::from_secs(300));
    measurements(&run_dir(tmp.path()))
        .into_iter()
        .map(|r| {
            (
                r["concurrency"].clone(),
                r["status"].clone(),
                r["reason"].clone(),
            )
        })
        .collect()
}

/// `generator_wait` fires, naming the share of the window the generator
/// waited (its finding comes first in the reason; Little's law may add its
/// own on a busier host, which is not judged here: see tests/common's
/// `QUIET_HOST`).
#[test]
fn two_busy_loops_on_the_generators_cpu_make_the_cell_suspect_for_the_generators_wait() {
    let rows = busy_cells("[1, 8]");
    assert_eq!(rows.len(), 2, "{rows:?}");
    for (concurrency, status, reason) in rows {
        assert_eq!(status, "suspect", "c={concurrency}: {reason}");
        assert!(
            reason.starts_with("the generator waited for CPU "),
            "c={concurrency}: {reason}"
        );
    }
}
