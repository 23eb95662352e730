//! Why a TLS handshake failed, told apart from the error rustls returns:
//! an untrusted or expired certificate, a name mismatch, or a port that
//! does not speak TLS at all each need a different fix.

use std::io;

use rustls::{AlertDescription, CertificateError};

/// The kind of a failed TLS handshake (a run counts them all as one class;
/// the check before a run names the kind, see [`crate::load::LoadError`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsFailure {
    /// The certificate chain does not lead to a trusted CA.
    UnknownIssuer,
    /// The certificate is expired (or not valid yet).
    Expired,
    /// The certificate is not for the name asked for.
    NameMismatch,
    /// The server answered with something that is not TLS.
    NotTls,
    /// The server chose no protocol among those offered in ALPN.
    NoApplicationProtocol,
    /// The server sent an alert and ended the handshake.
    Refused,
    /// The connection closed before the handshake finished.
    Closed,
    /// Nothing came back to the ClientHello within the timeout.
    NoAnswer,
    /// Anything else rustls refused.
    Other,
}

impl TlsFailure {
    /// Classifies the error a `tokio_rustls` handshake returned.
    pub fn of(e: &io::Error) -> TlsFailure {
        let Some(tls) = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) else {
            return match e.kind() {
                io::ErrorKind::UnexpectedEof
                | io::ErrorKind::ConnectionReset
                | io::ErrorKind::ConnectionAborted
                | io::ErrorKind::BrokenPipe => TlsFailure::Closed,
                _ => TlsFailure::Other,
            };
        };
        match tls {
            rustls::Error::InvalidCertificate(c) => match c {
                CertificateError::UnknownIssuer | CertificateError::BadSignature => {
                    TlsFailure::UnknownIssuer
                }
                CertificateError::Expired
                | CertificateError::ExpiredContext { .. }
                | CertificateError::NotValidYet
                | CertificateError::NotValidYetContext { .. } => TlsFailure::Expired,
                CertificateError::NotValidForName
                | CertificateError::NotValidForNameContext { .. } => TlsFailure::NameMismatch,
                _ => TlsFailure::Other,
            },
            rustls::Error::InvalidMessage(_) | rustls::Error::PeerSentOversizedRecord => {
                TlsFailure::NotTls
            }
            rustls::Error::AlertReceived(AlertDescription::NoApplicationProtocol) => {
                TlsFailure::NoApplicationProtocol
            }
            rustls::Error::AlertReceived(_) => TlsFailure::Refused,
            _ => TlsFailure::Other,
        }
    }

    /// What went wrong and what to do, for a message naming the address.
    pub fn explain(self) -> &'static str {
        match self {
            TlsFailure::UnknownIssuer => {
                "the server's certificate is not signed by a trusted CA (unknown issuer): \
                 trust the CA that signed it (`--ca FILE` for runner load, `load.tls.ca` in a \
                 spec), or verify nothing (`--insecure`, `load.tls.verify: false`)"
            }
            TlsFailure::Expired => {
                "the server's certificate has expired (or is not valid yet): renew it, or \
                 verify nothing (`--insecure`, `load.tls.verify: false`)"
            }
            TlsFailure::NameMismatch => {
                "the server's certificate is not valid for the name asked for: use the URL \
                 host the certificate names, or give a certificate for it"
            }
            TlsFailure::NotTls => {
                "the port does not speak TLS (it answered with something else, plain HTTP \
                 perhaps): speak plain HTTP to it (an http:// URL, `protocol: http1`), or use \
                 the service's TLS port (in a spec: does its server read TLS_CERT_FILE?)"
            }
            TlsFailure::NoApplicationProtocol => {
                "the server offers none of the protocols asked for in ALPN: for h2 enable \
                 HTTP/2 on the server, or measure HTTP/1.1 over TLS (runner load without \
                 --h2, `protocol: https` in a spec)"
            }
            TlsFailure::Refused => {
                "the server refused the handshake with an alert: check the server's TLS \
                 versions, ciphers and whether it wants a client certificate"
            }
            TlsFailure::Closed => {
                "the server closed the connection during the handshake: does the port \
                 speak TLS?"
            }
            TlsFailure::NoAnswer => {
                "nothing came back to the TLS ClientHello within the timeout: the port \
                 likely does not speak TLS (a plain HTTP server waits for a request): speak \
                 plain HTTP to it (an http:// URL, `protocol: http1`), or use the service's \
                 TLS port"
            }
            TlsFailure::Other => {
                "the TLS handshake failed: check the server's certificate (a CA certificate \
                 served as the server's own is refused) and TLS settings, or verify nothing \
                 (`--insecure`, `load.tls.verify: false`)"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrapped(e: rustls::Error) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, e)
    }

    #[test]
    fn rustls_errors_map_to_what_the_user_must_fix() {
        let cert = |c| wrapped(rustls::Error::InvalidCertificate(c));
        assert_eq!(
            TlsFailure::of(&cert(CertificateError::UnknownIssuer)),
            TlsFailure::UnknownIssuer
        );
        assert_eq!(
            TlsFailure::of(&cert(CertificateError::Expired)),
            TlsFailure::Expired
        );
        assert_eq!(
            TlsFailure::of(&cert(CertificateError::NotValidForName)),
            TlsFailure::NameMismatch
        );
        let not_tls = rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType);
        assert_eq!(TlsFailure::of(&wrapped(not_tls)), TlsFailure::NotTls);
        let alpn = rustls::Error::AlertReceived(AlertDescription::NoApplicationProtocol);
        assert_eq!(
            TlsFailure::of(&wrapped(alpn)),
            TlsFailure::NoApplicationProtocol
        );
        let eof = io::Error::from(io::ErrorKind::UnexpectedEof);
        assert_eq!(TlsFailure::of(&eof), TlsFailure::Closed);
        assert!(TlsFailure::NotTls.explain().contains("does not speak TLS"));
    }
}
