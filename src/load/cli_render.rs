//! `runner load`'s text report: throughput, schedule, latency, errors, the
//! generator's own cost, and (TLS and HTTP/2 runs) what was negotiated.

use std::fmt::Write as _;

use crate::load::config::{Arrival, LoadConfig};
use crate::load::report::{LoadReport, Percentiles};

fn ms(us: u64) -> String {
    format!("{:.2} ms", us as f64 / 1000.0)
}

fn percentile_line(p: &Percentiles) -> String {
    format!(
        "p50 {}  p90 {}  p99 {}  p99.9 {}  max {}",
        ms(p.p50),
        ms(p.p90),
        ms(p.p99),
        ms(p.p999),
        ms(p.max)
    )
}

/// The human-readable report printed by `runner load`.
pub fn render_text(url: &str, config: &LoadConfig, report: &LoadReport) -> String {
    let mut out = String::new();
    let mode = match &config.arrival {
        Arrival::Closed { connections } => format!("closed loop, {connections} connections"),
        Arrival::Open {
            rate, connections, ..
        } => {
            format!("open loop at {rate} req/s, {connections} connections")
        }
    };
    let _ = writeln!(
        out,
        "runner load {url}: {mode}, {} thread(s), {:.2} s measured{}",
        report.generator.threads,
        report.elapsed.as_secs_f64(),
        if report.was_cancelled {
            " (cancelled)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        out,
        "  requests    {} ok, {:.1} req/s, {} errors",
        report.ok,
        report.throughput(),
        report.errors.total()
    );
    if let Some(s) = &report.schedule {
        let _ = writeln!(
            out,
            "  schedule    {} scheduled, {} sent ({} late > 1 ms), {:.1} req/s achieved",
            s.scheduled, s.sent, s.late, report.achieved_rate
        );
    }
    let latency_label = if report.schedule.is_some() {
        "latency     (from intended send time)"
    } else {
        "latency    "
    };
    let _ = writeln!(
        out,
        "  {latency_label} {}",
        percentile_line(&Percentiles::of(&report.latency))
    );
    if report.schedule.is_some() {
        let _ = writeln!(
            out,
            "  service     (from actual send, uncorrected) {}",
            percentile_line(&Percentiles::of(&report.service_time))
        );
    }
    for (class, n) in report.errors.by_class() {
        let _ = writeln!(out, "  error       {class}: {n}");
    }
    let timeouts = report.errors.request_timeout + report.errors.connect_timeout;
    if timeouts > 0 {
        let _ = writeln!(
            out,
            "  +timeouts   (timed-out requests at their latency) {}",
            percentile_line(&Percentiles::of(&report.latency_with_timeouts))
        );
    }
    if report.in_flight > 0 {
        let _ = writeln!(
            out,
            "  in flight   {} request(s) unanswered when the window closed",
            report.in_flight
        );
    }
    let g = &report.generator;
    let _ = writeln!(
        out,
        "  generator   {:.2} CPU-s (user {:.2}, system {:.2}) = {:.0}% of {} thread(s), {:.0} req per CPU-second, waited for a CPU {:.0}% of the window",
        g.cpu_s(),
        g.user_s,
        g.system_s,
        g.cpu_share * 100.0,
        g.threads,
        report.requests_per_cpu_s(),
        g.wait_share * 100.0
    );
    let c = &report.connect;
    let _ = writeln!(
        out,
        "  connect     {} of {} connections opened in {:.2} s ({:.0}/s, paced at {:.0}/s; not measured){}",
        c.opened,
        c.wanted,
        c.seconds,
        c.achieved_rate(),
        c.rate_limit,
        if c.failed > 0 {
            format!(", {} failed", c.failed)
        } else {
            String::new()
        }
    );
    if let Some(ramp) = &report.ramp {
        let _ = writeln!(
            out,
            "  ramp        1 -> {} connections over {:.1} s, {} requests (not measured)",
            ramp.connections, ramp.seconds, ramp.requests
        );
    }
    let m = &report.generator_memory;
    let _ = writeln!(
        out,
        "  memory      generator RSS {:.1} MiB with the connections open ({:.1} MiB before them: {:.1} KiB per open connection), peak {:.1} MiB",
        m.rss_bytes as f64 / (1 << 20) as f64,
        m.rss_before_bytes as f64 / (1 << 20) as f64,
        m.per_connection_bytes(c.opened) / 1024.0,
        m.peak_rss_bytes as f64 / (1 << 20) as f64
    );
    if let Some(t) = &report.transport {
        out.push_str(&crate::load::cli_transport::render_transport(t));
    }
    let _ = writeln!(
        out,
        "  saturated   {}",
        report.saturated.as_deref().unwrap_or("no")
    );
    out
}
