//! A load's transport (protocol, trust, connection reuse, streams) as it
//! crosses the SSH pipe to a load host.
//!
//! The CA travels as its PEM text: it is a certificate (public), and a
//! path on the machine that sends the load means nothing on the host that
//! runs it. The private key never travels: it stays with the service.
use serde::{Deserialize, Serialize};

use crate::load::{Protocol, Reuse, Transport, Trust};
use crate::remote::error::RemoteError;

/// [`Transport`] on the wire; absent from the configuration for plain
/// HTTP/1.1 with kept connections (as a runner before TLS sent it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireTransport {
    /// `http1`, `https`, `h2` or `h2c` (the spec's names).
    pub protocol: String,
    pub trust: Option<WireTrust>,
    pub server_name: Option<String>,
    /// Absent: kept connections; present: a new connection per request,
    /// with TLS session resumption on (true) or off.
    pub new_connection_resumption: Option<bool>,
    pub streams: usize,
}

/// What the load host's generator trusts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum WireTrust {
    /// The PEM of the CA(s) to trust, read here from the run's CA file or
    /// the spec's `tls.ca`.
    CaPem { pem: String },
    /// Verify nothing (`tls: { verify: false }`).
    Insecure,
}

impl WireTransport {
    /// `None` for a plain transport; the CA file is read here.
    pub fn of(t: &Transport) -> Result<Option<WireTransport>, RemoteError> {
        if t.is_plain() {
            return Ok(None);
        }
        let trust = match &t.trust {
            None => None,
            Some(Trust::Insecure) => Some(WireTrust::Insecure),
            Some(Trust::CaPem(pem)) => Some(WireTrust::CaPem { pem: pem.clone() }),
            Some(Trust::CaFile(path)) => {
                let pem = std::fs::read_to_string(path).map_err(|cause| RemoteError::CaFile {
                    path: path.display().to_string(),
                    cause,
                })?;
                Some(WireTrust::CaPem { pem })
            }
        };
        Ok(Some(WireTransport {
            protocol: t.protocol.key().to_string(),
            trust,
            server_name: t.server_name.clone(),
            new_connection_resumption: match t.reuse {
                Reuse::KeepAlive => None,
                Reuse::NewConnection { resumption } => Some(resumption),
            },
            streams: t.streams,
        }))
    }

    /// The transport the load host's generator runs with.
    pub fn into_transport(self) -> Result<Transport, RemoteError> {
        let protocol = Protocol::parse(&self.protocol).ok_or_else(|| {
            RemoteError::protocol(format!(
                "unknown protocol `{}` in the load's transport",
                self.protocol
            ))
        })?;
        Ok(Transport {
            protocol,
            trust: self.trust.map(|t| match t {
                WireTrust::CaPem { pem } => Trust::CaPem(pem),
                WireTrust::Insecure => Trust::Insecure,
            }),
            server_name: self.server_name,
            reuse: match self.new_connection_resumption {
                None => Reuse::KeepAlive,
                Some(resumption) => Reuse::NewConnection { resumption },
            },
            streams: self.streams,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transport_crosses_with_its_ca_as_text_and_plain_stays_absent() {
        assert_eq!(WireTransport::of(&Transport::default()).unwrap(), None);
        let dir = tempfile::tempdir().unwrap();
        let ca = dir.path().join("ca.pem");
        std::fs::write(&ca, "-----BEGIN CERTIFICATE-----\n").unwrap();
        let t = Transport {
            protocol: Protocol::H2,
            trust: Some(Trust::CaFile(ca.clone())),
            server_name: Some("svc.internal".into()),
            reuse: Reuse::KeepAlive,
            streams: 4,
        };
        let wire = WireTransport::of(&t).unwrap().unwrap();
        let text = serde_json::to_string(&wire).unwrap();
        assert!(!text.contains(&ca.display().to_string()), "{text}");
        let back: WireTransport = serde_json::from_str(&text).unwrap();
        let far = back.into_transport().unwrap();
        assert_eq!(
            far.trust,
            Some(Trust::CaPem("-----BEGIN CERTIFICATE-----\n".into()))
        );
        assert_eq!(
            (far.protocol, far.streams, far.server_name.as_deref()),
            (Protocol::H2, 4, Some("svc.internal"))
        );
        let new = Transport {
            protocol: Protocol::Https,
            trust: Some(Trust::Insecure),
            reuse: Reuse::NewConnection { resumption: false },
            ..Transport::default()
        };
        let far = WireTransport::of(&new)
            .unwrap()
            .unwrap()
            .into_transport()
            .unwrap();
        assert_eq!(far, new);
    }

    #[test]
    fn an_unreadable_ca_file_names_the_file() {
        let t = Transport {
            protocol: Protocol::Https,
            trust: Some(Trust::CaFile("/nonexistent/ca.pem".into())),
            ..Transport::default()
        };
        let e = WireTransport::of(&t).unwrap_err().to_string();
        assert!(e.contains("/nonexistent/ca.pem"), "{e}");
    }
}
