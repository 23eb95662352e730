//! A cell's connection columns (issue 13 part 6): the connect phase the
//! generator ran before the window, its own memory with every connection
//! open, and the service's memory per connection over its idle RSS; and
//! the connection ramp before the window (issue 15).
use crate::load::LoadReport;
use crate::results::MeasurementRow;

/// The columns the load report alone gives.
pub fn fill_from_report(row: &mut MeasurementRow, r: &LoadReport) {
    row.connections_opened = Some(r.connect.opened as u64);
    row.connect_s = Some(r.connect.seconds);
    row.connect_rate_achieved = Some(r.connect.achieved_rate());
    let m = &r.generator_memory;
    row.gen_rss_before_bytes = Some(m.rss_before_bytes).filter(|b| *b > 0);
    row.gen_rss_bytes = Some(m.rss_bytes).filter(|b| *b > 0);
    row.gen_peak_rss_bytes = Some(m.peak_rss_bytes).filter(|b| *b > 0);
    if let Some(ramp) = &r.ramp {
        row.ramp_s = Some(ramp.seconds);
        row.ramp_requests = Some(ramp.requests);
    }
    fill_transport(row, r);
}

/// What the load spoke and negotiated (nothing for plain HTTP/1.1 on kept
/// connections, whose report carries no transport).
fn fill_transport(row: &mut MeasurementRow, r: &LoadReport) {
    let e = &r.errors;
    row.err_tls_handshake = e.tls_handshake;
    row.err_alpn_refused = e.alpn_refused;
    row.err_h2_stream_reset = e.stream_reset;
    row.err_h2_goaway = e.goaway;
    let Some(t) = &r.transport else {
        return;
    };
    row.connection_reuse = t.connection_reuse.clone();
    row.streams = t.h2.as_ref().map(|h| h.streams_per_connection as u32);
    if let Some(tls) = &t.tls {
        row.tls_verified = Some(tls.certificate_verified);
        row.handshakes_full = Some(tls.handshakes_full);
        row.handshakes_resumed = Some(tls.handshakes_resumed);
        if let Some(n) = &tls.negotiated {
            row.tls_version = n.version.clone();
            row.tls_cipher = n.cipher_suite.clone();
            row.alpn = n.alpn.clone().unwrap_or_default();
        }
    }
}

/// The service's idle RSS of this start and, from it, its memory per
/// connection: (the window's largest RSS - idle) / connections open. The
/// delta, not RSS / connections, so a runtime's base heap does not count
/// as connection cost; on a start that served earlier cells it also holds
/// what those left allocated (a GC'd heap does not shrink back to idle).
pub fn fill_per_connection(row: &mut MeasurementRow, idle_rss: Option<u64>) {
    row.service_idle_rss_bytes = idle_rss;
    row.service_rss_per_connection_bytes =
        per_connection(row.service_rss_max_bytes, idle_rss, row.connections_opened);
}

fn per_connection(max: Option<u64>, idle: Option<u64>, connections: Option<u64>) -> Option<f64> {
    let connections = connections.filter(|c| *c > 0)?;
    Some(max?.saturating_sub(idle?) as f64 / connections as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_per_connection_is_the_growth_over_idle() {
        assert_eq!(
            per_connection(Some(30 << 20), Some(10 << 20), Some(10_000)),
            Some((20 << 20) as f64 / 10_000.0)
        );
        // Below idle (a GC ran): no growth, not a negative cost.
        assert_eq!(per_connection(Some(5), Some(10), Some(2)), Some(0.0));
        assert_eq!(per_connection(None, Some(10), Some(2)), None);
        assert_eq!(per_connection(Some(10), None, Some(2)), None);
        assert_eq!(per_connection(Some(10), Some(1), Some(0)), None);
    }
}
