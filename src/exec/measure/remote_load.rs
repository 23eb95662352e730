//! Where a load runs: here (`load::run`), or on the spec's remote load
//! hosts (`remote::drive`), whose parts are kept for the cell's
//! load-hosts/<cell>.csv.
use std::sync::Mutex;

use crate::exec::interrupt::Interrupt;
use crate::exec::rules::facts::GeneratorHost;
use crate::load::{self, LoadConfig, LoadControl, LoadError, LoadReport};
use crate::plan::Plan;
use crate::remote::HostsLoad;
use crate::results::{LOAD_HOSTS_DIR, LoadHostRow, ResultsError, RunDir, write_csv};

/// The hosts' parts of the last remote load. One load runs at a time (one
/// service at a time, one cell at a time), so one slot is enough; the cell
/// that ran it takes it right after.
static LAST: Mutex<Option<HostsLoad>> = Mutex::new(None);

/// The load host whose generator waited most in the last remote load
/// (kept by [`write_hosts`] for the cell's reasons).
static BUSIEST: Mutex<Option<String>> = Mutex::new(None);

/// Where the last load's generator ran, for the reasons of its cell.
pub fn generator_host(plan: &Plan) -> GeneratorHost {
    if plan.hosts.remote_load() {
        let busiest = BUSIEST.lock().unwrap_or_else(|p| p.into_inner()).take();
        let all = || {
            let names: Vec<&str> = plan.hosts.load.iter().map(|h| h.name.as_str()).collect();
            names.join(", ")
        };
        return GeneratorHost::Remote(busiest.unwrap_or_else(all));
    }
    if plan.hosts.service.ssh().is_some() {
        GeneratorHost::Here
    } else {
        GeneratorHost::Unnamed
    }
}

/// Runs `config` where the plan says the load runs.
/// What each declared host is (fingerprint, RTT), for environment.json's
/// `hosts`; empty without `hosts:`.
pub fn hosts_environment(plan: &Plan) -> Vec<crate::results::HostEnvironment> {
    crate::remote::fingerprint::hosts_environment(&plan.hosts)
}

pub fn run(
    plan: &Plan,
    config: &LoadConfig,
    control: &LoadControl,
) -> Result<LoadReport, LoadError> {
    if !plan.hosts.remote_load() {
        return load::run(config, control);
    }
    let hosts = crate::remote::drive(&plan.hosts, config, control)?;
    let merged = hosts.merged.clone();
    *LAST.lock().unwrap_or_else(|p| p.into_inner()) = Some(hosts);
    Ok(merged)
}

/// A load host that failed (SSH lost, refused, timed out) stops the run
/// like an interruption: no row is recorded for the cell, the status says
/// why, and `runner exec --resume` measures it again once the host is back.
pub fn stop_if_host_lost(interrupt: &Interrupt, result: &Result<LoadReport, LoadError>) {
    if let Err(e @ LoadError::Remote { .. }) = result {
        interrupt.stop_because(e.to_string());
    }
}

/// Writes load-hosts/<cell>.csv from the last remote load, if there was one.
pub fn write_hosts(run: &RunDir, cell_id: &str) -> Result<(), ResultsError> {
    let Some(hosts) = LAST.lock().unwrap_or_else(|p| p.into_inner()).take() else {
        return Ok(());
    };
    let first = hosts
        .hosts
        .iter()
        .map(|h| h.started_unix_ns)
        .min()
        .unwrap_or(0);
    let ms = |us: u64| us as f64 / 1000.0;
    let rows: Vec<LoadHostRow> = hosts
        .hosts
        .iter()
        .map(|h| LoadHostRow {
            cell_id: cell_id.into(),
            host: h.host.clone(),
            connections: h.connections,
            ok: h.report.ok,
            errors: h.report.errors.total(),
            throughput: h.report.throughput(),
            p50_ms: ms(h.report.latency.value_at_quantile(0.5)),
            p99_ms: ms(h.report.latency.value_at_quantile(0.99)),
            generator_cpu_share: h.report.generator.cpu_share,
            generator_wait_share: h.report.generator.wait_share,
            saturated: h.report.saturated.clone().unwrap_or_default(),
            window_start_ms: (h.started_unix_ns - first) as f64 / 1e6,
            rtt_ms: h.rtt.as_secs_f64() * 1000.0,
            clock_offset_ms: h.clock_offset_ns as f64 / 1e6,
            session_open_ms: h.open_time.as_secs_f64() * 1000.0,
            installed: h.installed,
        })
        .collect();
    *BUSIEST.lock().unwrap_or_else(|p| p.into_inner()) = hosts
        .hosts
        .iter()
        .max_by(|a, b| {
            a.report
                .generator
                .wait_share
                .total_cmp(&b.report.generator.wait_share)
        })
        .map(|h| h.host.clone());
    let path = run.cell_file(LOAD_HOSTS_DIR, cell_id, "csv");
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(ResultsError::write(dir))?;
    }
    write_csv(&path, &rows)
}
