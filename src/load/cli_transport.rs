//! `runner load`'s protocol flags (`--h2`, `--h2c`, `--streams`, `--ca`,
//! `--insecure`, `--new-connections`, `--no-resumption`) as a
//! [`Transport`], and the report's lines about what was negotiated.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;

use crate::load::net::stats::TransportReport;
use crate::load::transport::{Protocol, Reuse, Transport, Trust};

/// `runner load`'s protocol flags.
#[derive(Debug, Clone, Args)]
pub struct ProtocolArgs {
    /// HTTP/2 over TLS (ALPN h2; an https:// URL). A server that does not
    /// choose h2 is an error, never a fall back to HTTP/1.1.
    #[arg(long = "h2", conflicts_with = "h2c")]
    pub h2: bool,
    /// HTTP/2 over plain TCP by prior knowledge (an http:// URL).
    #[arg(long = "h2c")]
    pub h2c: bool,
    /// HTTP/2: streams kept busy on each connection (concurrency =
    /// connections x streams).
    #[arg(long = "streams", default_value_t = 1)]
    pub streams: usize,
    /// TLS: trust only the CA certificates in this PEM file.
    #[arg(long = "ca", conflicts_with = "insecure")]
    pub ca: Option<PathBuf>,
    /// TLS: verify nothing about the server's certificate (the report says so).
    #[arg(long = "insecure")]
    pub insecure: bool,
    /// A new connection (and TLS handshake) per request, to measure connecting.
    #[arg(long = "new-connections")]
    pub new_connections: bool,
    /// With --new-connections: a full TLS handshake every time (no session
    /// resumption).
    #[arg(long = "no-resumption", requires = "new_connections")]
    pub no_resumption: bool,
}

impl ProtocolArgs {
    /// The transport the flags ask for; the URL's scheme must fit them (else
    /// what is wrong, for the URL's error).
    pub fn transport(&self, url: &str) -> Result<Transport, String> {
        let args = self;
        let https = url.starts_with("https://");
        let bad = |what: &str| what.to_string();
        let protocol = match (https, args.h2, args.h2c) {
            (true, true, _) => Protocol::H2,
            (true, false, false) => Protocol::Https,
            (true, false, true) => {
                return Err(bad(
                    "--h2c is HTTP/2 without TLS: give an http:// URL, or --h2 for HTTP/2 over TLS",
                ));
            }
            (false, true, _) => {
                return Err(bad(
                    "--h2 is HTTP/2 over TLS: give an https:// URL, or --h2c for HTTP/2 without TLS",
                ));
            }
            (false, false, true) => Protocol::H2c,
            (false, false, false) => Protocol::Http1,
        };
        let trust = match (&args.ca, args.insecure) {
            (Some(ca), _) => Some(Trust::CaFile(ca.clone())),
            (None, true) => Some(Trust::Insecure),
            (None, false) => None,
        };
        let reuse = match (args.new_connections, args.no_resumption) {
            (false, _) => Reuse::KeepAlive,
            (true, no) => Reuse::NewConnection { resumption: !no },
        };
        Ok(Transport {
            protocol,
            trust,
            server_name: protocol.uses_tls().then(|| url_host(url)).flatten(),
            reuse,
            streams: args.streams,
        })
    }
}

/// The host of `scheme://host[:port]/...`, without port or IPv6 brackets.
fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = &rest[..rest.find(['/', '?']).unwrap_or(rest.len())];
    if let Some(v6) = authority.strip_prefix('[') {
        return v6.split_once(']').map(|(h, _)| h.to_string());
    }
    Some(authority.split(':').next()?.to_string())
}

/// The report's lines about the transport (none for plain HTTP/1.1).
pub fn render_transport(t: &TransportReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "  protocol    {}, {}", t.protocol, t.connection_reuse);
    if let Some(tls) = &t.tls {
        let negotiated = match &tls.negotiated {
            Some(n) => format!(
                "{}, {}, {}, ALPN {}",
                n.version,
                n.cipher_suite,
                n.key_exchange.as_deref().unwrap_or("no key exchange"),
                n.alpn.as_deref().unwrap_or("none")
            ),
            None => "no handshake succeeded".into(),
        };
        let verified = if tls.certificate_verified {
            "certificate verified"
        } else {
            "certificate NOT verified (--insecure)"
        };
        let _ = writeln!(
            out,
            "  tls         {negotiated}; server name {}, {verified}; handshakes {} full, {} resumed",
            tls.server_name, tls.handshakes_full, tls.handshakes_resumed
        );
    }
    if let Some(h2) = &t.h2 {
        let max = match h2.server_max_concurrent_streams {
            Some(m) => m.to_string(),
            None => "no limit announced".into(),
        };
        let _ = writeln!(
            out,
            "  http/2      {} streams per connection; windows advertised {} B per stream, {} B per connection; server's max concurrent streams {max}",
            h2.streams_per_connection,
            h2.client_initial_stream_window,
            h2.client_initial_connection_window
        );
    }
    if let Some(w) = &t.warning {
        let _ = writeln!(out, "  warning     {w}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_name_is_the_url_host() {
        assert_eq!(
            url_host("https://localhost:8443/a").as_deref(),
            Some("localhost")
        );
        assert_eq!(url_host("https://127.0.0.1/").as_deref(), Some("127.0.0.1"));
        assert_eq!(url_host("https://[::1]:9/").as_deref(), Some("::1"));
    }
}
