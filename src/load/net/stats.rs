//! What a run negotiated: TLS version, cipher suite and ALPN, handshakes
//! full and resumed, the HTTP/2 settings in effect. Each worker counts its
//! own ([`WorkerTransport`], no lock in the loop); the engine merges them
//! into the report's [`TransportReport`].

use std::cell::{Cell, RefCell};

use rustls::{ClientConnection, HandshakeKind};
use serde::{Deserialize, Serialize};

use crate::load::config::LoadConfig;
use crate::load::transport::{Reuse, Trust};

/// The stream window each HTTP/2 stream of the generator advertises (its
/// SETTINGS_INITIAL_WINDOW_SIZE): 1 MiB, so a response of up to that size
/// is never held back waiting for a WINDOW_UPDATE.
pub const H2_STREAM_WINDOW: u32 = 1 << 20;
/// The connection window advertised (WINDOW_UPDATE on stream 0): room for
/// 16 streams' full windows.
pub const H2_CONNECTION_WINDOW: u32 = 16 << 20;

/// One worker's counts, shared by its connectors.
#[derive(Default)]
pub struct WorkerTransport {
    full: Cell<u64>,
    resumed: Cell<u64>,
    first: RefCell<Option<Negotiated>>,
    /// The lowest SETTINGS_MAX_CONCURRENT_STREAMS a server sent.
    max_streams: Cell<Option<u32>>,
}

/// The session parameters of a TLS connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Negotiated {
    /// "TLS 1.3" or "TLS 1.2".
    pub version: String,
    /// The IANA name, e.g. TLS13_AES_128_GCM_SHA256.
    pub cipher_suite: String,
    /// The ALPN protocol the server chose, None when it chose none.
    pub alpn: Option<String>,
    /// The key exchange group, e.g. X25519 (a P-384 exchange costs several
    /// times the CPU: worth seeing beside a handshake rate).
    pub key_exchange: Option<String>,
}

impl WorkerTransport {
    /// Counts a finished handshake and keeps the first one's parameters.
    pub fn on_handshake(&self, session: &ClientConnection) {
        match session.handshake_kind() {
            Some(HandshakeKind::Resumed) => self.resumed.set(self.resumed.get() + 1),
            _ => self.full.set(self.full.get() + 1),
        }
        if self.first.borrow().is_none() {
            let version = match session.protocol_version() {
                Some(rustls::ProtocolVersion::TLSv1_3) => "TLS 1.3".to_string(),
                Some(rustls::ProtocolVersion::TLSv1_2) => "TLS 1.2".to_string(),
                Some(v) => v.as_str().unwrap_or("unknown").to_string(),
                None => "unknown".into(),
            };
            let cipher_suite = (session.negotiated_cipher_suite())
                .and_then(|s| s.suite().as_str())
                .unwrap_or("unknown")
                .to_string();
            let alpn = session
                .alpn_protocol()
                .map(|p| String::from_utf8_lossy(p).into_owned());
            let key_exchange = (session.negotiated_key_exchange_group())
                .and_then(|g| g.name().as_str())
                .map(str::to_string);
            *self.first.borrow_mut() = Some(Negotiated {
                version,
                cipher_suite,
                alpn,
                key_exchange,
            });
        }
    }

    /// Keeps the lowest stream limit a server announced (`usize::MAX`:
    /// none announced).
    pub fn on_max_streams(&self, max: usize) {
        if let Ok(max) = u32::try_from(max) {
            let low = self.max_streams.get().map_or(max, |m| m.min(max));
            self.max_streams.set(Some(low));
        }
    }

    /// The counts, to leave the worker's thread.
    pub fn figures(&self) -> TransportFigures {
        TransportFigures {
            full: self.full.get(),
            resumed: self.resumed.get(),
            negotiated: self.first.borrow().clone(),
            max_streams: self.max_streams.get(),
        }
    }
}

/// A worker's counts, plain data.
#[derive(Debug, Clone, Default)]
pub struct TransportFigures {
    pub full: u64,
    pub resumed: u64,
    pub negotiated: Option<Negotiated>,
    pub max_streams: Option<u32>,
}

/// What the run negotiated (absent for plain HTTP/1.1 keep-alive).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransportReport {
    /// "http/1.1", "http/1.1 over tls", "h2" or "h2c".
    pub protocol: String,
    /// "keep-alive", or a new connection per request (with or without TLS resumption).
    pub connection_reuse: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls: Option<TlsReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub h2: Option<H2Report>,
    /// Why the run had less concurrency than asked for, if it had.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TlsReport {
    /// None when no handshake succeeded.
    pub negotiated: Option<Negotiated>,
    pub server_name: String,
    /// False with --insecure: the server's certificate was not checked.
    pub certificate_verified: bool,
    /// Handshakes of the whole run (connect phase, warmup and window).
    pub handshakes_full: u64,
    pub handshakes_resumed: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct H2Report {
    pub streams_per_connection: usize,
    /// SETTINGS_INITIAL_WINDOW_SIZE the generator advertised.
    pub client_initial_stream_window: u32,
    /// The connection-level window the generator opened.
    pub client_initial_connection_window: u32,
    /// The lowest SETTINGS_MAX_CONCURRENT_STREAMS of the server's
    /// connections; None when it announced no limit.
    pub server_max_concurrent_streams: Option<u32>,
}

/// Merges the workers' counts; None for a plain HTTP/1.1 keep-alive run,
/// whose report stays as it always was.
pub fn report(config: &LoadConfig, workers: &[TransportFigures]) -> Option<TransportReport> {
    let t = &config.transport;
    if t.is_plain() {
        return None;
    }
    let connection_reuse = match t.reuse {
        Reuse::KeepAlive => "keep-alive".to_string(),
        Reuse::NewConnection { resumption } if t.protocol.uses_tls() => format!(
            "new connection per request, TLS resumption {}",
            if resumption { "on" } else { "off" }
        ),
        Reuse::NewConnection { .. } => "new connection per request".to_string(),
    };
    let tls = t.protocol.uses_tls().then(|| TlsReport {
        negotiated: workers.iter().find_map(|w| w.negotiated.clone()),
        server_name: t
            .server_name
            .clone()
            .unwrap_or_else(|| config.target.ip().to_string()),
        certificate_verified: !matches!(t.trust, Some(Trust::Insecure)),
        handshakes_full: workers.iter().map(|w| w.full).sum(),
        handshakes_resumed: workers.iter().map(|w| w.resumed).sum(),
    });
    let max_streams = workers.iter().filter_map(|w| w.max_streams).min();
    let h2 = t.protocol.is_h2().then_some(H2Report {
        streams_per_connection: t.streams,
        client_initial_stream_window: H2_STREAM_WINDOW,
        client_initial_connection_window: H2_CONNECTION_WINDOW,
        server_max_concurrent_streams: max_streams,
    });
    let warning = match max_streams {
        Some(max) if t.protocol.is_h2() && (max as usize) < t.streams => Some(format!(
            "the server allows at most {max} concurrent streams per connection, fewer than the \
             {} asked for: at most {} requests were in flight ({} connections x {max}), not {}; \
             raise the server's limit or use more connections",
            t.streams,
            config.arrival.connections() * max as usize,
            config.arrival.connections(),
            config.virtual_connections()
        )),
        _ => None,
    };
    Some(TransportReport {
        protocol: t.protocol.name().to_string(),
        connection_reuse,
        tls,
        h2,
        warning,
    })
}
