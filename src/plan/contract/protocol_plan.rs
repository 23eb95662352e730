//! What a cell's load speaks (`load.protocol`, `streams`, `connection`,
//! `resumption`, `tls`), part of the Plan contract. Left at plain
//! HTTP/1.1 with kept connections it is not written into plan.json, so
//! the plans of specs that never name a protocol stay as they were.
use std::path::PathBuf;

use serde::Serialize;

use crate::spec::keys::protocol::ProtocolName;

/// The protocol of a cell's requests: the load generator's own type.
pub use crate::load::Protocol;

impl From<ProtocolName> for Protocol {
    fn from(name: ProtocolName) -> Protocol {
        match name {
            ProtocolName::Http1 => Protocol::Http1,
            ProtocolName::Https => Protocol::Https,
            ProtocolName::H2 => Protocol::H2,
            ProtocolName::H2c => Protocol::H2c,
        }
    }
}

/// A runtime's `protocols` as every spec had them before the key existed.
pub fn only_http1(protocols: &[Protocol]) -> bool {
    protocols == [Protocol::Http1]
}

/// How connections are used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case", tag = "connection")]
pub enum Reuse {
    /// One connection serves many requests (the default).
    #[default]
    KeepAlive,
    /// A new connection per request; over TLS a handshake per request,
    /// abbreviated when `resumption` is on.
    New { resumption: bool },
}

/// Whose certificates the generator accepts over TLS.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case", tag = "trust", content = "file")]
pub enum Trust {
    /// Only the run's own CA (made per run, [`crate::certs`]).
    #[default]
    RunCa,
    /// Only the CA certificates in this PEM file (`load.tls.ca`).
    CaFile(PathBuf),
    /// Any certificate (`load.tls.verify: false`); the report says so.
    Unverified,
}

/// A cell's transport as the generator applies it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProtocolPlan {
    pub protocol: Protocol,
    /// HTTP/2 streams per connection (1 otherwise).
    pub streams: u32,
    #[serde(flatten)]
    pub reuse: Reuse,
    /// Over TLS only (`RunCa` otherwise).
    #[serde(flatten)]
    pub trust: Trust,
}

impl Default for ProtocolPlan {
    fn default() -> ProtocolPlan {
        ProtocolPlan {
            protocol: Protocol::Http1,
            streams: 1,
            reuse: Reuse::KeepAlive,
            trust: Trust::RunCa,
        }
    }
}

impl ProtocolPlan {
    /// Plain HTTP/1.1 on kept connections: what every spec meant before
    /// `load.protocol` existed (and is left out of plan.json).
    pub fn is_plain(&self) -> bool {
        self.protocol == Protocol::Http1 && self.reuse == Reuse::KeepAlive
    }

    /// In words for `runner plan` and the report's conditions, e.g.
    /// `h2 (4 streams per connection)`, `https, a new connection per
    /// request (full handshakes)`, `https, certificate not verified`.
    pub fn words(&self) -> String {
        let mut out = self.protocol.key().to_owned();
        let mut parts = Vec::new();
        if self.protocol.is_h2() {
            let s = if self.streams == 1 { "" } else { "s" };
            parts.push(format!("{} stream{s} per connection", self.streams));
        }
        if let Reuse::New { resumption } = self.reuse {
            parts.push(match (self.protocol.uses_tls(), resumption) {
                (false, _) => "a new connection per request".to_owned(),
                (true, true) => "a new connection per request (resumed handshakes)".to_owned(),
                (true, false) => "a new connection per request (full handshakes)".to_owned(),
            });
        }
        if self.protocol.uses_tls() {
            match &self.trust {
                Trust::RunCa => {}
                Trust::CaFile(file) => parts.push(format!("trusting {}", file.display())),
                Trust::Unverified => parts.push("certificate not verified".to_owned()),
            }
        }
        if !parts.is_empty() {
            out.push_str(&format!(" ({})", parts.join(", ")));
        }
        out
    }
}
