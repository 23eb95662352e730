//! Efficiency figures, which co-location distorts far less than throughput.
//!
//! On a shared host the load generator and the service split the CPUs, and
//! each generator leaves the service a different share: the same two services
//! measured by two generators gave throughput ratios 1.1x to 2.35x apart.
//! What a service does with the CPU it got barely moves: requests per
//! service CPU-second (and its inverse, CPU-ms per request), and memory per
//! connection. This module computes those per cell, their run-level ratio per
//! pair of runtimes (the same rule as [`crate::report::analysis::pairs`]), and how much of the
//! host the generator took, with advice when it took too much.
use serde::Serialize;

use crate::report::analysis::cells::requests_per_cpu_s;
use crate::report::analysis::pairs::pair_figures;
use crate::results::model::{CellStatus, MeasurementRow};
use crate::stats::Better;
use crate::stats::effect::PooledVariance;
use crate::stats::spread::round_to;

/// Share of the host's CPU time above which the generator is said to take
/// too much of it, and the report advises pinning or a separate load host.
pub const GENERATOR_HOST_SHARE_LIMIT: f64 = 0.25;

/// Requests per service CPU-second of runtime `b` over runtime `a`, over the
/// cells both ran: the geometric mean of the cells' ratios with a 95% t
/// interval over the cells, and per cell a lead only beyond the cell's own
/// 95% interval from the repeats ([`crate::report::analysis::pairs`]' rule, on this figure).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EfficiencyPair {
    pub a: String,
    pub b: String,
    pub cells: usize,
    pub ratio: Option<f64>,
    pub ratio_lo: Option<f64>,
    pub ratio_hi: Option<f64>,
    pub a_ahead: usize,
    pub b_ahead: usize,
    pub ties: usize,
    /// `x1.210 [1.150, 1.273] over 8 cells (b ahead in 7, a in 0, 1 tie)`.
    pub sentence: String,
}

/// One runtime's efficiency repeats (requests per service CPU-second) at
/// one point of the axes.
pub(crate) struct EfficiencyRepeats<'r> {
    pub runtime: &'r str,
    pub axes: &'r str,
    pub values: Vec<f64>,
}

pub(crate) fn efficiency_repeats(rows: &[MeasurementRow]) -> Vec<EfficiencyRepeats<'_>> {
    let mut out: Vec<EfficiencyRepeats> = Vec::new();
    for m in rows.iter().filter(|m| m.status != CellStatus::Failed) {
        let Some(v) = requests_per_cpu_s(m) else {
            continue;
        };
        match out
            .iter_mut()
            .find(|r| r.runtime == m.runtime && r.axes == m.axes)
        {
            Some(r) => r.values.push(v),
            None => out.push(EfficiencyRepeats {
                runtime: &m.runtime,
                axes: &m.axes,
                values: vec![v],
            }),
        }
    }
    out
}

/// Every unordered pair of `runtimes` (in their order) on requests per CPU-second.
pub fn efficiency_pairs(runtimes: &[String], rows: &[MeasurementRow]) -> Vec<EfficiencyPair> {
    let repeats = efficiency_repeats(rows);
    let noise = |rt: &str| {
        PooledVariance::of(
            repeats
                .iter()
                .filter(|r| r.runtime == rt)
                .map(|r| r.values.as_slice()),
        )
    };
    let mut out = Vec::new();
    for (i, a) in runtimes.iter().enumerate() {
        for b in &runtimes[i + 1..] {
            let cells = (repeats.iter().filter(|r| r.runtime == a)).filter_map(|ra| {
                let rb = repeats
                    .iter()
                    .find(|r| r.runtime == b && r.axes == ra.axes)?;
                Some((ra.values.as_slice(), rb.values.as_slice()))
            });
            let f = pair_figures(cells, (noise(a), noise(b)), Better::Higher);
            out.push(EfficiencyPair {
                a: a.clone(),
                b: b.clone(),
                cells: f.cells,
                ratio: f.ratio,
                ratio_lo: f.ratio_lo,
                ratio_hi: f.ratio_hi,
                a_ahead: f.a_ahead,
                b_ahead: f.b_ahead,
                ties: f.ties,
                sentence: f.sentence(a, b, Better::Higher, NO_CPU_FIGURES),
            });
        }
    }
    out
}

/// What a pair without a cell with CPU figures on both sides says.
const NO_CPU_FIGURES: &str = "no cell with CPU figures measured by both";

/// How the host's CPU time was shared during the measured windows: the
/// generator's CPU, the service's, and the capacity (elapsed x host CPUs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostShare {
    pub host_cpus: u32,
    /// Measured repeats with CPU figures (failed ones included: the
    /// generator ran in them too).
    pub cells: usize,
    /// Over all those repeats: generator CPU-s / (elapsed s x host CPUs).
    pub generator_share: f64,
    /// The same for the service (where its CPU was sampled).
    pub service_share: Option<f64>,
    /// The largest generator share of a single repeat.
    pub generator_share_max: f64,
    /// Repeats in which the generator took more than [`GENERATOR_HOST_SHARE_LIMIT`].
    pub cells_over_limit: usize,
    /// The CPUs the generator and the service were pinned to, when they were.
    pub pinning: Option<String>,
    /// What other processes took of the host over the repeats with a host
    /// idle figure (/proc/stat): busy share - generator - service; `None`
    /// for runs from before that column.
    pub others_share: Option<f64>,
    /// What to do about it, when the generator took too much.
    pub advice: Option<String>,
    /// One sentence for the report.
    pub sentence: String,
}

/// Where the generator and the services ran: on one host (the usual case,
/// what the co-location figures are about) or apart (load hosts, or a
/// service host over SSH), when the generator took none of the services' CPUs.
#[derive(Debug, Clone, PartialEq)]
pub enum HostLayout {
    /// Both on one host of `cpus` CPUs.
    Shared { cpus: u32 },
    Apart {
        /// The services' host, and its CPUs.
        service_host: String,
        service_cpus: u32,
        /// The generator's host or hosts, and their CPUs summed.
        load_hosts: String,
        load_cpus: u32,
    },
}

impl HostLayout {
    /// From environment.json: this host's CPUs, and the remote hosts' roles.
    pub fn of(env: &crate::results::Environment) -> HostLayout {
        use crate::results::HostRole;
        let here = env.host.logical_cpus;
        let remote = |role: HostRole| -> Vec<&crate::results::HostEnvironment> {
            env.hosts.iter().filter(|h| h.role == role).collect()
        };
        let (service, load) = (remote(HostRole::Service), remote(HostRole::Load));
        if service.is_empty() && load.is_empty() {
            return HostLayout::Shared { cpus: here };
        }
        let (service_host, service_cpus) = match service.first() {
            Some(h) => (h.name.clone(), h.host.logical_cpus),
            None => ("this host".to_string(), here),
        };
        let (load_hosts, load_cpus) = if load.is_empty() {
            ("this host".to_string(), here)
        } else {
            let names: Vec<&str> = load.iter().map(|h| h.name.as_str()).collect();
            (
                names.join(", "),
                load.iter().map(|h| h.host.logical_cpus).sum(),
            )
        };
        HostLayout::Apart {
            service_host,
            service_cpus,
            load_hosts,
            load_cpus,
        }
    }

    fn service_cpus(&self) -> u32 {
        match self {
            HostLayout::Shared { cpus } => *cpus,
            HostLayout::Apart { service_cpus, .. } => *service_cpus,
        }
    }

    fn generator_cpus(&self) -> u32 {
        match self {
            HostLayout::Shared { cpus } => *cpus,
            HostLayout::Apart { load_cpus, .. } => *load_cpus,
        }
    }
}

impl HostShare {
    /// `None` when nothing was measured or the host's CPU count is unknown.
    pub fn of(rows: &[MeasurementRow], host_cpus: u32, pinning: Option<String>) -> Option<Self> {
        Self::of_layout(rows, &HostLayout::Shared { cpus: host_cpus }, pinning)
    }

    /// As [`HostShare::of`], for generator and services on the hosts `layout` says.
    pub fn of_layout(
        rows: &[MeasurementRow],
        layout: &HostLayout,
        pinning: Option<String>,
    ) -> Option<Self> {
        let measured: Vec<&MeasurementRow> = rows.iter().filter(|m| m.duration_s > 0.0).collect();
        let (host_cpus, gen_cpus) = (layout.service_cpus(), layout.generator_cpus());
        if measured.is_empty() || host_cpus == 0 || gen_cpus == 0 {
            return None;
        }
        let capacity = |m: &MeasurementRow| m.duration_s * host_cpus as f64;
        let gen_capacity = |m: &MeasurementRow| m.duration_s * gen_cpus as f64;
        let total_capacity: f64 = measured.iter().map(|m| gen_capacity(m)).sum();
        let generator: f64 = measured.iter().map(|m| m.gen_cpu_s).sum();
        let with_service: Vec<&&MeasurementRow> = measured
            .iter()
            .filter(|m| m.service_cpu_s.is_some())
            .collect();
        let service_share = (!with_service.is_empty()).then(|| {
            let cpu: f64 = with_service.iter().filter_map(|m| m.service_cpu_s).sum();
            let cap: f64 = with_service.iter().map(|m| capacity(m)).sum();
            round_to(cpu / cap, 4)
        });
        let shares: Vec<f64> = (measured.iter())
            .map(|m| m.gen_cpu_s / gen_capacity(m))
            .collect();
        let max = shares.iter().copied().fold(0.0, f64::max);
        let over = shares
            .iter()
            .filter(|s| **s > GENERATOR_HOST_SHARE_LIMIT)
            .count();
        let generator_share = round_to(generator / total_capacity, 4);
        let apart = matches!(layout, HostLayout::Apart { .. });
        let others_share = others_share(&measured, capacity, !apart);
        // Apart, the generator's CPU was not the services': nothing to advise.
        let advice =
            (over > 0 && !apart).then(|| advice(over, measured.len(), max, pinning.as_deref()));
        let mut share = HostShare {
            host_cpus,
            cells: measured.len(),
            generator_share,
            service_share,
            generator_share_max: round_to(max, 4),
            cells_over_limit: over,
            pinning,
            others_share,
            advice,
            sentence: String::new(),
        };
        share.sentence = share.describe(layout);
        Some(share)
    }

    fn describe(&self, layout: &HostLayout) -> String {
        let pct = |v: f64| format!("{:.0}%", v * 100.0);
        let host = match layout {
            HostLayout::Shared { .. } => "host",
            HostLayout::Apart { .. } => "service host",
        };
        let others = match self.others_share {
            Some(o) if o > OTHERS_SHARE_NOTED => format!(
                " The {host} was shared: other processes took {} of its CPU time in the \
                 windows, so every figure here also depends on them.",
                pct(o)
            ),
            _ => String::new(),
        };
        if let HostLayout::Apart {
            service_host,
            load_hosts,
            load_cpus,
            ..
        } = layout
        {
            let service = self.service_share.map_or_else(String::new, |s| {
                format!(
                    " Of the service host's CPU time in the measured windows ({} CPUs x \
                     elapsed), the services took {}.",
                    self.host_cpus,
                    pct(s)
                )
            });
            return format!(
                "The load generator ran on {load_hosts} and the services on {service_host}, so \
                 the generator took none of the services' CPUs; it took {} of its own \
                 host's CPU time ({load_cpus} CPUs x elapsed; at most {} in one repeat).\
                 {service}{others}",
                pct(self.generator_share),
                pct(self.generator_share_max),
            );
        }
        let service = self
            .service_share
            .map_or_else(String::new, |s| format!(", the services {}", pct(s)));
        let pinned = self.pinning.as_ref().map_or_else(
            || " Generator and service were not pinned: they shared every CPU.".to_string(),
            |p| format!(" Pinned: {p}."),
        );
        format!(
            "Of the host's CPU time in the measured windows ({} CPUs x elapsed), the load \
             generator took {} (at most {} in one repeat){service}.{pinned}{others}",
            self.host_cpus,
            pct(self.generator_share),
            pct(self.generator_share_max),
        )
    }
}

/// Share of the host taken by other processes above which the report says
/// the host was shared (below it, the runner's own threads and the kernel).
pub const OTHERS_SHARE_NOTED: f64 = 0.05;

/// Busy share of the services' host (1 - idle) less the service's CPU and
/// the generator's when it ran there too, over the repeats that recorded the host's idle share and the
/// service's CPU.
fn others_share(
    measured: &[&MeasurementRow],
    capacity: impl Fn(&MeasurementRow) -> f64,
    generator_on_it: bool,
) -> Option<f64> {
    let with_idle: Vec<&&MeasurementRow> = (measured.iter())
        .filter(|m| m.host_idle_share.is_some() && m.service_cpu_s.is_some())
        .collect();
    if with_idle.is_empty() {
        return None;
    }
    let cap: f64 = with_idle.iter().map(|m| capacity(m)).sum();
    let busy: f64 = (with_idle.iter())
        .map(|m| (1.0 - m.host_idle_share.unwrap_or(1.0)) * capacity(m))
        .sum();
    let ours: f64 = (with_idle.iter())
        .map(|m| m.service_cpu_s.unwrap_or(0.0) + if generator_on_it { m.gen_cpu_s } else { 0.0 })
        .sum();
    Some(round_to(((busy - ours) / cap).max(0.0), 4))
}

fn advice(over: usize, cells: usize, max: f64, pinning: Option<&str>) -> String {
    let what = format!(
        "The generator took more than {:.0}% of the host in {over} of {cells} repeats (at most \
         {:.0}%): throughput here depends on how much CPU the generator left to the service, so \
         read the efficiency figures (requests per CPU-second) beside it.",
        GENERATOR_HOST_SHARE_LIMIT * 100.0,
        max * 100.0
    );
    match pinning {
        None => format!(
            "{what} Pin them apart with `affinity: {{ service: [...], load: [...] }}`, or run the \
             load from a separate host."
        ),
        Some(_) => format!(
            "{what} They were pinned apart already: give the service more CPUs in `affinity`, or \
             run the load from a separate host."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::analysis::cells::tests::row;
    use crate::report::analysis::cells::{cpu_ms_per_request, fill_rss_per_1k_connections};
    use crate::results::CellStatus::{Failed, Ok};

    #[test]
    fn the_three_figures_of_one_repeat() {
        let mut m = row("go", "c=8", 1, 1000.0, Ok); // 5000 requests, 5 CPU-s
        assert_eq!(requests_per_cpu_s(&m), Some(1000.0));
        assert_eq!(cpu_ms_per_request(&m), Some(1.0));
        m.service_cpu_s = None;
        assert_eq!(
            (requests_per_cpu_s(&m), cpu_ms_per_request(&m)),
            (None, None)
        );
    }

    #[test]
    fn other_processes_share_of_the_host_is_said_when_it_is_large() {
        // 10 s x 2 CPUs = 20 CPU-s; 10% idle -> 18 busy; generator 4 + service 8 -> others 6 (30%).
        let mut m = share_row(10.0, 4.0, 8.0);
        m.host_idle_share = Some(0.1);
        let s = HostShare::of(&[m.clone()], 2, None).unwrap();
        assert_eq!(s.others_share, Some(0.3));
        assert!(
            s.sentence.contains("other processes took 30%"),
            "{}",
            s.sentence
        );
        // 40% idle -> 12 busy, all ours: nothing said.
        m.host_idle_share = Some(0.4);
        let s = HostShare::of(&[m], 2, None).unwrap();
        assert_eq!(s.others_share, Some(0.0));
        assert!(!s.sentence.contains("host was shared"), "{}", s.sentence);
        // A run from before the column: unknown, nothing said.
        let s = HostShare::of(&[share_row(10.0, 4.0, 8.0)], 2, None).unwrap();
        assert_eq!(s.others_share, None);
    }

    #[test]
    fn rss_per_1k_connections_is_the_growth_over_the_lowest_concurrency() {
        let rows: Vec<MeasurementRow> = [(1, 10_000_000), (11, 12_000_000), (501, 30_000_000)]
            .iter()
            .flat_map(|(c, rss)| {
                ["p=1", "p=2"].map(|p| {
                    let mut m = row("go", &format!("{p},concurrency={c}"), 1, 100.0, Ok);
                    m.concurrency = Some(*c);
                    m.service_rss_max_bytes = Some(*rss);
                    m
                })
            })
            .collect();
        let mut cells = crate::report::analysis::cells::summarize_cells(&rows);
        fill_rss_per_1k_connections(&mut cells);
        let figure = |axes: &str| {
            cells
                .iter()
                .find(|c| c.axes == axes)
                .unwrap()
                .rss_per_1k_connections_bytes
        };
        assert_eq!(figure("p=1,concurrency=1"), None, "the base itself");
        // 2 MB over 10 connections would be "200 MB per 1,000": too short
        // a span to extrapolate 100x, so none; 20 MB over 500: 40 MB.
        assert_eq!(figure("p=1,concurrency=11"), None, "a span under 250");
        assert_eq!(figure("p=2,concurrency=501"), Some(40_000_000));
    }

    /// Two repeats per cell; `b` does `factor` times the requests per CPU-s of `a`.
    fn rows(factor: f64) -> Vec<MeasurementRow> {
        let mut out = Vec::new();
        for (i, axes) in ["c=1", "c=2", "c=4"].iter().enumerate() {
            for (repeat, wiggle) in [(1, 0.99), (2, 1.01)] {
                let level = 100.0 * (i + 1) as f64 * wiggle;
                out.push(row("a", axes, repeat, level, Ok));
                let mut b = row("b", axes, repeat, level * factor, Ok);
                // Same throughput share of CPU time: b's CPU seconds differ, not its rps.
                b.service_cpu_s = Some(5.0);
                out.push(b);
            }
        }
        out
    }

    #[test]
    fn a_consistent_efficiency_lead_is_counted_in_every_cell() {
        let p = efficiency_pairs(&["a".into(), "b".into()], &rows(2.0));
        assert_eq!(p.len(), 1);
        let p = &p[0];
        assert_eq!((p.cells, p.b_ahead, p.a_ahead, p.ties), (3, 3, 0, 0));
        assert_eq!(p.ratio, Some(2.0));
        // The same 2x in every cell: the interval over the cells is that point.
        assert_eq!((p.ratio_lo, p.ratio_hi), (Some(2.0), Some(2.0)), "{p:?}");
        assert!(
            p.sentence
                .starts_with("x2.000 [2.000, 2.000] over 3 cells (b ahead in 3, a in 0, 0 ties)"),
            "{}",
            p.sentence
        );
    }

    #[test]
    fn equal_efficiency_is_a_tie_and_failed_repeats_are_left_out() {
        let mut all = rows(1.0);
        let mut failed = row("b", "c=1", 3, 1.0, Failed);
        failed.service_cpu_s = Some(100.0);
        all.push(failed);
        let p = &efficiency_pairs(&["a".into(), "b".into()], &all)[0];
        assert_eq!((p.ties, p.a_ahead, p.b_ahead), (3, 0, 0), "{p:?}");
        assert_eq!(p.ratio, Some(1.0));
    }

    fn share_row(duration: f64, gen_cpu: f64, service_cpu: f64) -> MeasurementRow {
        MeasurementRow {
            duration_s: duration,
            gen_cpu_s: gen_cpu,
            service_cpu_s: Some(service_cpu),
            ..Default::default()
        }
    }

    #[test]
    fn the_generators_share_of_the_host_and_when_to_advise() {
        // 2 CPUs x 10 s = 20 CPU-s per repeat: the generator took 2 and 8.
        let rows = [share_row(10.0, 2.0, 10.0), share_row(10.0, 8.0, 11.0)];
        let s = HostShare::of(&rows, 2, None).unwrap();
        assert_eq!((s.generator_share, s.generator_share_max), (0.25, 0.4));
        assert_eq!(s.service_share, Some(0.525));
        assert_eq!(s.cells_over_limit, 1);
        let advice = s.advice.as_deref().unwrap();
        assert!(advice.contains("in 1 of 2 repeats") && advice.contains("affinity"));
        assert!(
            s.sentence
                .contains("generator took 25% (at most 40% in one repeat)")
        );
        assert!(s.sentence.contains("not pinned"));

        let calm = HostShare::of(&[share_row(10.0, 2.0, 10.0)], 4, Some("x".into())).unwrap();
        assert_eq!((calm.generator_share, calm.advice), (0.05, None));
        assert!(calm.sentence.contains("Pinned: x."));
        assert_eq!(HostShare::of(&rows, 0, None), None);
    }

    #[test]
    fn apart_the_generator_is_a_share_of_its_own_hosts_and_no_advice_is_given() {
        // 10 s: the generator 8 CPU-s of two 2-CPU load hosts (40 CPU-s),
        // the service 10 of its 4-CPU host (40 CPU-s), which was 50% idle.
        let mut m = share_row(10.0, 8.0, 10.0);
        m.host_idle_share = Some(0.5);
        let layout = HostLayout::Apart {
            service_host: "bench@svc".into(),
            service_cpus: 4,
            load_hosts: "bench@l1, bench@l2".into(),
            load_cpus: 4,
        };
        let s = HostShare::of_layout(&[m], &layout, None).unwrap();
        assert_eq!((s.generator_share, s.service_share), (0.2, Some(0.25)));
        // Busy 20 CPU-s less the service's 10: others 25%, the generator not counted.
        assert_eq!(s.others_share, Some(0.25));
        assert_eq!(s.advice, None);
        assert!(
            s.sentence.starts_with(
                "The load generator ran on bench@l1, bench@l2 and the services on bench@svc"
            ) && s.sentence.contains("the services took 25%")
                && s.sentence
                    .contains("The service host was shared: other processes took 25%")
                && !s.sentence.contains("pinned"),
            "{}",
            s.sentence
        );
    }
}
