//! What the load generator speaks to a service: `load.protocol` (plain
//! HTTP/1.1, HTTPS/1.1, HTTP/2 over TLS or h2c), the HTTP/2 streams per
//! connection, connection reuse and TLS resumption, and whom to trust
//! (`load.tls`); a runtime's `protocols` says which of them its server
//! offers, so a cell asking another is refused before anything runs.
use schemars::JsonSchema;
use serde::Deserialize;

/// A protocol as a runtime lists it (`protocols: [http1, https, h2]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProtocolName {
    /// Plain HTTP/1.1 (the default).
    Http1,
    /// HTTP/1.1 over TLS.
    Https,
    /// HTTP/2 over TLS, chosen by ALPN (`h2`).
    H2,
    /// HTTP/2 over plain TCP by prior knowledge.
    H2c,
}

/// `load.connection`: keep a connection for many requests, or open one
/// (and with TLS, make a handshake) per request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ConnectionSpec {
    #[default]
    KeepAlive,
    New,
}

/// `load.tls`: whom the generator trusts (default: the run's own CA, made
/// per run, see docs/spec/tls.md).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with ca, verify")]
pub struct TlsSpec {
    /// A PEM file of CA certificates to trust instead of the run's CA
    /// (relative to the spec's folder): for a server whose certificate the
    /// run does not make.
    pub ca: Option<String>,
    /// `false`: accept any certificate (the report says it was not verified).
    pub verify: Option<bool>,
}
