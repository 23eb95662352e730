//! What a report says about protocols (issue 29): per configuration whose
//! load spoke HTTPS, HTTP/2 or h2c (or opened a connection per request),
//! what it negotiated (TLS version, cipher suite, ALPN), the handshakes
//! its repeats made (full and resumed), whether the certificate was
//! verified, and the failures only TLS and HTTP/2 have. Empty for a run of
//! plain HTTP/1.1 on kept connections, so such reports are unchanged.
use serde::Serialize;

use crate::results::model::MeasurementRow;
use crate::results::read::run_data::RunData;

/// The template variable `protocols`.
#[derive(Debug, Clone, Serialize, Default)]
pub struct ProtocolsView {
    pub configurations: Vec<ProtocolFigures>,
    /// Configurations whose load accepted any certificate
    /// (`load.tls.verify: false`): said above the table.
    pub unverified: Vec<String>,
}

/// One configuration's transport, from its repeats.
#[derive(Debug, Clone, Serialize)]
pub struct ProtocolFigures {
    pub config_id: String,
    pub runtime: String,
    pub protocol: String,
    pub streams: Option<u32>,
    pub connection_reuse: String,
    /// As the first repeat with a handshake negotiated them ("" when none did).
    pub tls_version: String,
    pub tls_cipher: String,
    pub alpn: String,
    /// Summed over the repeats (warmups, connect phases and windows).
    pub handshakes_full: Option<u64>,
    pub handshakes_resumed: Option<u64>,
    /// TLS handshakes that failed, h2 refused in ALPN, streams reset and
    /// GOAWAYs, summed over the repeats' windows.
    pub err_tls_handshake: u64,
    pub err_alpn_refused: u64,
    pub err_h2_stream_reset: u64,
    pub err_h2_goaway: u64,
}

impl ProtocolsView {
    pub fn of(run: &RunData) -> Self {
        let mut configurations: Vec<(String, Vec<&MeasurementRow>)> = Vec::new();
        for m in run.measurements.iter().filter(|m| is_shown(m)) {
            match configurations.iter_mut().find(|(id, _)| *id == m.config_id) {
                Some((_, rows)) => rows.push(m),
                None => configurations.push((m.config_id.clone(), vec![m])),
            }
        }
        let unverified = (configurations.iter())
            .filter(|(_, rows)| rows.iter().any(|m| m.tls_verified == Some(false)))
            .map(|(id, _)| id.clone())
            .collect();
        ProtocolsView {
            configurations: configurations
                .into_iter()
                .map(|(config_id, rows)| figures(config_id, &rows))
                .collect(),
            unverified,
        }
    }
}

/// A row whose load was not plain HTTP/1.1 on kept connections (rows
/// written before the columns existed have neither).
fn is_shown(m: &MeasurementRow) -> bool {
    let plain = m.protocol.is_empty() || m.protocol == "http1";
    !plain || !(m.connection_reuse.is_empty() || m.connection_reuse == "keep-alive")
}

fn figures(config_id: String, rows: &[&MeasurementRow]) -> ProtocolFigures {
    let first = rows[0];
    let negotiated = rows
        .iter()
        .find(|m| !m.tls_version.is_empty())
        .unwrap_or(&first);
    let sum = |f: &dyn Fn(&MeasurementRow) -> Option<u64>| -> Option<u64> {
        rows.iter().map(|m| f(m)).sum()
    };
    ProtocolFigures {
        runtime: first.runtime.clone(),
        config_id,
        protocol: first.protocol.clone(),
        streams: first.streams,
        connection_reuse: first.connection_reuse.clone(),
        tls_version: negotiated.tls_version.clone(),
        tls_cipher: negotiated.tls_cipher.clone(),
        alpn: negotiated.alpn.clone(),
        handshakes_full: sum(&|m| m.handshakes_full),
        handshakes_resumed: sum(&|m| m.handshakes_resumed),
        err_tls_handshake: rows.iter().map(|m| m.err_tls_handshake).sum(),
        err_alpn_refused: rows.iter().map(|m| m.err_alpn_refused).sum(),
        err_h2_stream_reset: rows.iter().map(|m| m.err_h2_stream_reset).sum(),
        err_h2_goaway: rows.iter().map(|m| m.err_h2_goaway).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(config: &str, protocol: &str, verified: Option<bool>) -> MeasurementRow {
        MeasurementRow {
            config_id: config.into(),
            runtime: "go".into(),
            protocol: protocol.into(),
            connection_reuse: "keep-alive".into(),
            tls_verified: verified,
            tls_version: if verified.is_some() {
                "TLS 1.3".into()
            } else {
                String::new()
            },
            handshakes_full: verified.map(|_| 2),
            handshakes_resumed: verified.map(|_| 0),
            ..Default::default()
        }
    }

    #[test]
    fn plain_rows_are_not_shown_and_tls_ones_sum_their_handshakes() {
        let rows = [
            row("go/protocol=http1", "http1", None),
            row("go/protocol=https", "https", Some(true)),
            row("go/protocol=https", "https", Some(true)),
            row("go/protocol=h2", "h2", Some(false)),
            // A row of a run from before the columns existed.
            MeasurementRow::default(),
        ];
        let shown: Vec<&MeasurementRow> = rows.iter().filter(|m| is_shown(m)).collect();
        assert_eq!(shown.len(), 3);
        let https = figures("go/protocol=https".into(), &shown[..2]);
        assert_eq!(https.handshakes_full, Some(4));
        assert_eq!(https.tls_version, "TLS 1.3");
    }
}
