//! Below HTTP: how a connection is made (TCP, TLS with rustls, HTTP/2
//! streams over either with the `h2` crate), why a TLS handshake failed,
//! what a run negotiated, and the check before a run that does not speak
//! plain HTTP/1.1.
pub(crate) mod client;
pub(crate) mod dial;
pub(crate) mod h2_client;
pub(crate) mod preflight;
pub(crate) mod stats;
pub(crate) mod tls_config;
pub mod tls_error;
