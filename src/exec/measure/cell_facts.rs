//! What the gates judge, gathered from one measured cell: the load report,
//! the service's samples and the host's CPU over the window; and the cell
//! row's gate columns, so that a reader sees the figures behind each reason.
use crate::exec::rules::facts::CellFacts;
use crate::exec::rules::gates::describe_errors;
use crate::load::LoadReport;
use crate::plan::{Cell, LoadMode};
use crate::results::MeasurementRow;
use crate::sample::SamplerOutput;
pub use crate::sample::host_cpu::HostWindow;

/// The generator's CPUs that count against the service's host: all of them
/// when it ran there, none when it ran on load hosts or the service on a
/// service host of its own (its CPUs are then another machine's).
fn generator_cpus_on(host: &HostWindow, gen_cpus: f64) -> f64 {
    if host.generator_on_it { gen_cpus } else { 0.0 }
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

/// Fills the gate columns of `row` and returns the facts the verdict judges;
/// `evidence_missing` and the generator's own diagnosis come from the caller.
pub fn gate_facts<'a>(
    row: &mut MeasurementRow,
    cell: &Cell,
    gates: &crate::plan::contract::gates::Gates,
    r: &'a LoadReport,
    samples: &SamplerOutput,
    host: &HostWindow,
) -> CellFacts<'a> {
    let answered = r.ok + r.errors.total();
    let window_s = r.elapsed.as_secs_f64();
    let service_cpus = samples
        .cpu_seconds()
        .filter(|_| window_s > 0.0)
        .map(|cpu| cpu / window_s);
    let gen_cpus = if window_s > 0.0 {
        r.generator.cpu_s() / window_s
    } else {
        0.0
    };
    let gen_on_host = generator_cpus_on(host, gen_cpus);
    let host_cpus_used = service_cpus.map(|s| s + gen_on_host);
    let closed_connections = match cell.load.mode {
        LoadMode::Closed { connections } => Some(connections),
        LoadMode::Open { .. } | LoadMode::Search(_) => None,
    };
    let mean_latency_ms = r.latency.mean() / 1000.0;
    let answered_rps = r.achieved_rate;
    let floor_band_share = gates.latency_floor.map_or(0.0, |f| {
        let (from, to) = (f.from.as_micros() as u64, f.to.as_micros() as u64);
        if r.latency.is_empty() {
            0.0
        } else {
            r.latency.count_between(from, to) as f64 / r.latency.len() as f64
        }
    });

    let with_timeouts = &r.latency_with_timeouts;
    row.error_rate = if answered > 0 {
        r.errors.total() as f64 / answered as f64
    } else {
        0.0
    };
    row.latency_with_timeouts_p50_ms = ms(with_timeouts.value_at_quantile(0.50));
    row.latency_with_timeouts_p99_ms = ms(with_timeouts.value_at_quantile(0.99));
    row.latency_with_timeouts_p999_ms = ms(with_timeouts.value_at_quantile(0.999));
    row.latency_with_timeouts_max_ms = ms(with_timeouts.max());
    row.in_flight_at_end = r.in_flight;
    row.gen_wait_s = r.generator.waited_s;
    row.gen_wait_share = r.generator.wait_share;
    row.host_idle_share = host.idle_share();
    row.host_cpus_used = host_cpus_used;
    row.host_cpus = host.cpus;
    row.littles_law_in_flight = closed_connections.map(|_| answered_rps * mean_latency_ms / 1000.0);

    CellFacts {
        gates: gates.clone(),
        error_classes: describe_errors(&r.errors),
        gen_wait_share: r.generator.wait_share,
        host_cpus_used: host_cpus_used.unwrap_or(gen_on_host),
        host_cpus: host.cpus,
        host_idle_share: host.idle_share(),
        p50_ms: ms(r.latency.value_at_quantile(0.5)),
        mean_latency_ms,
        floor_band_share,
        service_cpus,
        closed_connections,
        streams: cell.load.transport.streams,
        answered_rps,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_counts_against_the_services_host_only_when_it_ran_there() {
        let shared = HostWindow {
            generator_on_it: true,
            ..HostWindow::default()
        };
        assert_eq!(generator_cpus_on(&shared, 0.7), 0.7);
        // Load hosts, or the service on a service host over SSH.
        assert_eq!(generator_cpus_on(&HostWindow::default(), 0.7), 0.0);
    }
}
