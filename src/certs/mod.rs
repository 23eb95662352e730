//! Stage `certs`: the certificates a run owns when its cells speak TLS.
//!
//! A run that measures HTTPS or HTTP/2 over TLS must not depend on a
//! certificate someone left on the host (it expires, its key type changes
//! the handshake's cost between two runs, its private key leaks into a
//! results folder). So each run issues its own: a throwaway CA and one
//! server certificate for the addresses the services answer on (127.0.0.1,
//! localhost, ::1 and any declared service host). The CA's private key
//! exists only in memory while it signs and is dropped at once: nothing can
//! sign another certificate with it, and only the CA's certificate (public)
//! is kept, in the run directory, for the record. The server's key goes to
//! the services through their start's scratch folder (see
//! [`crate::service`]), which is removed however the run ends.
//!
//! Keys are ECDSA P-256 with SHA-256 signatures, what rcgen makes by default
//! and what most public sites serve today; the key type is recorded
//! ([`KEY_TYPE`]) because it sets a full handshake's cost.
use std::net::IpAddr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose, SanType,
};

/// The server key's type, as recorded beside the run's CA certificate.
pub const KEY_TYPE: &str = "ECDSA P-256 (SHA-256)";

/// How long a run's certificates are valid: long enough for any run
/// (resumed ones included), short enough that a copy is worthless soon.
pub const VALIDITY: Duration = Duration::from_secs(30 * 24 * 3600);

/// Certificates are valid from this long before they were made, so a
/// service host whose clock is a little behind still accepts them.
const CLOCK_SKEW: Duration = Duration::from_secs(3600);

/// The names every run's server certificate covers.
pub const LOCAL_NAMES: [&str; 3] = ["127.0.0.1", "localhost", "::1"];

/// What a TLS start is given, in its scratch folder: the server's
/// certificate and private key, and the CA that signed it. Sent as is to a
/// service host over its SSH session (never logged there or here).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerFiles {
    /// The throwaway CA's certificate (PEM): public, kept in the run directory.
    pub ca_pem: String,
    /// The server certificate (PEM), signed by the CA.
    pub cert_pem: String,
    /// The server's private key (PKCS#8 PEM): only ever written into a
    /// start's scratch folder (mode 0600), never into the run directory.
    pub key_pem: String,
}

impl std::fmt::Debug for ServerFiles {
    /// Never prints the key, so no debug log or panic message can leak it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerFiles")
            .field("key_pem", &"<redacted>")
            .finish_non_exhaustive()
    }
}

/// What a run needs to serve and to trust TLS.
#[derive(Debug, Clone)]
pub struct RunCertificates {
    pub files: ServerFiles,
    /// The names the server certificate covers, in order.
    pub names: Vec<String>,
}

/// Why a run's certificates could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CertError {
    #[error(
        "cannot put `{name}` in the run's server certificate: {cause}; name service hosts by an \
         IP address or a DNS name"
    )]
    Name { name: String, cause: rcgen::Error },
    #[error("cannot make the run's TLS certificates ({step}): {cause}")]
    Issue {
        step: &'static str,
        cause: rcgen::Error,
    },
}

/// Issues a fresh CA and a server certificate for [`LOCAL_NAMES`] and
/// `extra_names` (a service host's address or name), valid for
/// [`VALIDITY`] from now.
pub fn issue(experiment: &str, extra_names: &[String]) -> Result<RunCertificates, CertError> {
    let issue_err = |step| move |cause| CertError::Issue { step, cause };
    let now = time::OffsetDateTime::now_utc();
    let not_before = now - CLOCK_SKEW;
    let not_after = now + VALIDITY;

    let ca_key = KeyPair::generate().map_err(issue_err("the CA's key"))?;
    let mut ca = CertificateParams::default();
    // A name of its own per run: a client shown another run's certificate
    // then says "unknown issuer", not "bad signature" of a same-named CA.
    // The end of the CA's own (random) public key makes that name.
    let id: String = (ca_key.public_key_raw().iter().rev().take(8))
        .map(|b| format!("{b:02x}"))
        .collect();
    ca.distinguished_name = name(&format!("runner run CA {experiment} {id}"));
    ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    (ca.not_before, ca.not_after) = (not_before, not_after);
    let ca_cert = ca
        .self_signed(&ca_key)
        .map_err(issue_err("the CA's certificate"))?;

    let mut names: Vec<String> = LOCAL_NAMES.iter().map(|n| n.to_string()).collect();
    for extra in extra_names {
        if !names.contains(extra) {
            names.push(extra.clone());
        }
    }
    let server_key = KeyPair::generate().map_err(issue_err("the server's key"))?;
    let mut server = CertificateParams::default();
    server.distinguished_name = name(&format!("runner service ({experiment})"));
    server.subject_alt_names = names.iter().map(|n| san(n)).collect::<Result<_, _>>()?;
    server.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    server.use_authority_key_identifier_extension = true;
    (server.not_before, server.not_after) = (not_before, not_after);
    let server_cert = server
        .signed_by(&server_key, &ca_cert, &ca_key)
        .map_err(issue_err("the server's certificate"))?;
    // `ca_key` is dropped here: nothing can be signed with it again.
    Ok(RunCertificates {
        files: ServerFiles {
            ca_pem: ca_cert.pem(),
            cert_pem: server_cert.pem(),
            key_pem: server_key.serialize_pem(),
        },
        names,
    })
}

fn name(common_name: &str) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, common_name);
    dn
}

fn san(name: &str) -> Result<SanType, CertError> {
    if let Ok(ip) = name.parse::<IpAddr>() {
        return Ok(SanType::IpAddress(ip));
    }
    let dns = name
        .to_string()
        .try_into()
        .map_err(|cause| CertError::Name {
            name: name.into(),
            cause,
        })?;
    Ok(SanType::DnsName(dns))
}

#[cfg(test)]
mod tests;
