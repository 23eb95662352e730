//! How a run talks to its target: which protocol, whom TLS trusts, whether
//! connections are kept or opened per request, and HTTP/2's streams.
//!
//! Plain HTTP/1.1 with keep-alive ([`Transport::default`]) is what every
//! run made before these settings existed, and it takes the same path as
//! then. The others are checked here, with the rest of a [`LoadConfig`],
//! before any connection is opened (see docs/load.md, "Protocols").

use std::path::PathBuf;

use crate::load::config::LoadConfig;

/// The protocol spoken on every connection of a run; also what a spec's
/// `load.protocol` and a runtime's `protocols` name (the plan uses this
/// type: one notion of a protocol), serialized by its [`Protocol::key`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// HTTP/1.1 over plain TCP (`http://`).
    #[default]
    Http1,
    /// HTTP/1.1 over TLS (`https://`), ALPN `http/1.1` offered.
    Https,
    /// HTTP/2 over TLS: ALPN `h2` only; a server that does not choose it is
    /// an error, never a silent fall back to HTTP/1.1.
    H2,
    /// HTTP/2 over plain TCP by prior knowledge (no Upgrade dance).
    H2c,
}

impl Protocol {
    pub const ALL: [Protocol; 4] = [
        Protocol::Http1,
        Protocol::Https,
        Protocol::H2,
        Protocol::H2c,
    ];

    /// Its name in a spec, plan.json and measurements.csv: `http1`,
    /// `https`, `h2`, `h2c`.
    pub fn key(self) -> &'static str {
        match self {
            Protocol::Http1 => "http1",
            Protocol::Https => "https",
            Protocol::H2 => "h2",
            Protocol::H2c => "h2c",
        }
    }

    /// The protocol a spec names `text` ([`Protocol::key`]).
    pub fn parse(text: &str) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.key() == text.trim())
    }

    /// The name the report and the docs use.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Http1 => "http/1.1",
            Protocol::Https => "http/1.1 over tls",
            Protocol::H2 => "h2",
            Protocol::H2c => "h2c",
        }
    }

    /// Whether connections of this protocol make a TLS handshake.
    pub fn uses_tls(self) -> bool {
        matches!(self, Protocol::Https | Protocol::H2)
    }

    /// Whether requests of this protocol are HTTP/2 streams.
    pub fn is_h2(self) -> bool {
        matches!(self, Protocol::H2 | Protocol::H2c)
    }
}

/// Which server certificates TLS accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// Only certificates issued by the CA certificates in this PEM file:
    /// a benchmark's server has a throwaway CA, never the system's roots.
    CaFile(PathBuf),
    /// The same, given as the PEM text: a load host's run, whose CA file
    /// is on the machine that sent the load (`remote::wire_transport`).
    CaPem(String),
    /// Verify nothing (the report says so): for a server whose certificate
    /// cannot be had. The handshake's cost is the same either way.
    Insecure,
}

/// Whether a connection serves many requests or one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reuse {
    /// Connections stay open across requests (the usual benchmark).
    #[default]
    KeepAlive,
    /// A new connection (and TLS handshake) per request, to measure what
    /// connecting costs; `resumption` reuses TLS sessions (tickets or IDs)
    /// so that every handshake after the first is abbreviated.
    NewConnection { resumption: bool },
}

/// The transport settings of a run; the default is plain HTTP/1.1 keep-alive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transport {
    pub protocol: Protocol,
    /// Required with TLS, refused without it.
    pub trust: Option<Trust>,
    /// The name sent in SNI and checked against the certificate (the URL's
    /// host); None: the target's IP address.
    pub server_name: Option<String>,
    pub reuse: Reuse,
    /// HTTP/2: streams kept busy per connection, each a closed-loop
    /// "virtual connection" (concurrency = connections x streams); 1 for HTTP/1.1.
    pub streams: usize,
}

impl Default for Transport {
    fn default() -> Self {
        Transport {
            protocol: Protocol::Http1,
            trust: None,
            server_name: None,
            reuse: Reuse::KeepAlive,
            streams: 1,
        }
    }
}

impl Transport {
    /// Whether this is the plain HTTP/1.1 keep-alive path of old.
    pub fn is_plain(&self) -> bool {
        *self == Transport::default()
    }

    /// What [`LoadConfig::validate`] refuses about the transport, in words
    /// that say which setting to change.
    pub(crate) fn problem(&self, config: &LoadConfig) -> Option<String> {
        let p = self.protocol;
        if self.streams == 0 {
            return Some("streams must be at least 1".into());
        }
        if self.streams > 1 && !p.is_h2() {
            return Some(format!(
                "{} streams per connection need HTTP/2 (--h2 or --h2c): HTTP/1.1 has one \
                 request in flight per connection; raise the connections instead",
                self.streams
            ));
        }
        if self.streams > 1 && matches!(self.reuse, Reuse::NewConnection { .. }) {
            return Some(
                "a new connection per request carries one stream: drop --streams or \
                 --new-connections"
                    .into(),
            );
        }
        match (&self.trust, p.uses_tls()) {
            (Some(_), false) => {
                return Some(format!(
                    "a CA file or --insecure is for TLS, but {} does not use TLS: use an \
                     https:// URL (with --h2 for HTTP/2 over TLS) or drop --ca/--insecure",
                    p.name()
                ));
            }
            (None, true) => {
                return Some(
                    "TLS needs to know what to trust: give --ca FILE (the PEM of the CA that \
                     signed the server's certificate) or --insecure"
                        .into(),
                );
            }
            _ => {}
        }
        if let Some(name) = &self.server_name
            && rustls_pki_types::ServerName::try_from(name.as_str()).is_err()
        {
            return Some(format!(
                "TLS server name {name:?} is neither a DNS name nor an IP address"
            ));
        }
        if p.is_h2() && config.requests.iter().any(|r| r.check.is_some()) {
            return Some(
                "answer checks (`expect`) are read from HTTP/1.1 answers only: measure \
                 HTTP/2 without them"
                    .into(),
            );
        }
        if p.is_h2()
            && config
                .requests
                .iter()
                .any(|r| crate::load::http::dynamic::DynamicRequest::of(r, "h").is_some())
        {
            return Some(
                "`seq`/`rand` placeholders in a path or body are sent over HTTP/1.1 only for \
                 now: drop --h2/--h2c or the placeholders"
                    .into(),
            );
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::config::RequestSpec;

    fn with(transport: Transport) -> Result<(), String> {
        let mut c = LoadConfig::closed("127.0.0.1:1".parse().unwrap(), RequestSpec::get("/"), 2);
        c.transport = transport;
        c.validate().map_err(|e| e.to_string())
    }

    #[test]
    fn combinations_that_cannot_work_are_refused_with_the_flag_to_change() {
        let ca = || Some(Trust::CaFile("ca.pem".into()));
        with(Transport::default()).unwrap();
        let streams = with(Transport {
            streams: 4,
            ..Transport::default()
        });
        assert!(streams.unwrap_err().contains("need HTTP/2 (--h2 or --h2c)"));
        let h2c_ca = with(Transport {
            protocol: Protocol::H2c,
            trust: ca(),
            ..Transport::default()
        });
        assert!(h2c_ca.unwrap_err().contains("h2c does not use TLS"));
        let no_trust = with(Transport {
            protocol: Protocol::Https,
            ..Transport::default()
        });
        assert!(no_trust.unwrap_err().contains("--ca FILE"));
        let per_request = with(Transport {
            protocol: Protocol::H2,
            trust: ca(),
            streams: 2,
            reuse: Reuse::NewConnection { resumption: true },
            ..Transport::default()
        });
        assert!(per_request.unwrap_err().contains("one stream"));
        with(Transport {
            protocol: Protocol::H2,
            trust: ca(),
            streams: 8,
            ..Transport::default()
        })
        .unwrap();
    }
}
