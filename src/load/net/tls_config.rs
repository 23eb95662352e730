//! The rustls client configuration of a run: the ring provider, the trust
//! (a CA file's certificates only, or nothing verified), ALPN by protocol,
//! session resumption on or off.
//!
//! Built once per run and shared by every worker (an `Arc`), so all
//! connections draw on one session cache: with resumption, a connection
//! opened after another has finished its handshake resumes its session.

use std::sync::Arc;

use rustls::client::Resumption;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};

use crate::load::error::LoadError;
use crate::load::transport::{Protocol, Reuse, Transport, Trust};

/// The key exchange groups offered, first preferred (the key share sent).
const KX_PREFERENCE: &[&dyn rustls::crypto::SupportedKxGroup] = &[
    rustls::crypto::ring::kx_group::X25519,
    rustls::crypto::ring::kx_group::SECP256R1,
    rustls::crypto::ring::kx_group::SECP384R1,
];

/// What a TLS connection of the run needs: the configuration and the name
/// sent in SNI and checked against the certificate.
#[derive(Clone)]
pub struct TlsSetup {
    pub config: Arc<ClientConfig>,
    pub name: ServerName<'static>,
}

/// Builds the run's TLS client from its transport settings; `ip` is the
/// server name when none is given. None for a protocol without TLS.
pub fn tls_setup(
    transport: &Transport,
    ip: std::net::IpAddr,
) -> Result<Option<TlsSetup>, LoadError> {
    let Some(trust) = (transport.protocol.uses_tls())
        .then_some(transport.trust.as_ref())
        .flatten()
    else {
        return Ok(None);
    };
    // ring, not aws-lc-rs: aws-lc-rs needs cmake and nasm to build, which a
    // clean machine may lack. rustls 0.23.48 deprecates ring's provider for
    // its lack of post-quantum key exchange (X25519MLKEM768): a loopback
    // benchmark's handshakes then use X25519, as docs/load.md says.
    #[allow(deprecated)]
    let mut provider = rustls::crypto::ring::default_provider();
    // rustls 0.23.48 lists ring's groups P-384 first, which ring computes
    // with its generic bignum code: a new-connection run spent 3x the CPU
    // per handshake of wrk (OpenSSL, X25519) and waited on the server's
    // P-384 too. X25519 first, as OpenSSL and browsers offer it.
    provider.kx_groups = KX_PREFERENCE.to_vec();
    let provider = Arc::new(provider);
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| LoadError::TlsSetup {
            what: format!("the ring provider offers no TLS version: {e}"),
        })?;
    let mut config = match trust {
        Trust::CaFile(path) => {
            let certs = CertificateDer::pem_file_iter(path)
                .and_then(|it| it.collect::<Result<Vec<_>, _>>());
            let roots = roots(certs, &path.display().to_string())?;
            builder.with_root_certificates(roots).with_no_client_auth()
        }
        Trust::CaPem(pem) => {
            let certs = CertificateDer::pem_slice_iter(pem.as_bytes()).collect();
            let roots = roots(certs, "the CA sent by the controlling runner")?;
            builder.with_root_certificates(roots).with_no_client_auth()
        }
        Trust::Insecure => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(VerifyNothing(provider)))
            .with_no_client_auth(),
    };
    config.alpn_protocols = match transport.protocol {
        Protocol::H2 => vec![b"h2".to_vec()],
        _ => vec![b"http/1.1".to_vec()],
    };
    if let Reuse::NewConnection { resumption: false } = transport.reuse {
        config.resumption = Resumption::disabled();
    }
    let name = match &transport.server_name {
        Some(n) => ServerName::try_from(n.clone()).map_err(|_| LoadError::TlsSetup {
            what: format!("TLS server name {n:?} is neither a DNS name nor an IP address"),
        })?,
        None => ServerName::IpAddress(ip.into()),
    };
    Ok(Some(TlsSetup {
        config: Arc::new(config),
        name,
    }))
}

impl TlsSetup {
    /// The same settings with a session cache of its own: the check before
    /// the run must not hand the run a session to resume.
    pub fn without_shared_sessions(&self) -> TlsSetup {
        let mut config = (*self.config).clone();
        config.resumption = Resumption::disabled();
        TlsSetup {
            config: Arc::new(config),
            name: self.name.clone(),
        }
    }
}

/// `--insecure`: accepts any certificate but still checks the handshake's
/// signatures, so the cryptographic work is what a verified one costs
/// (less the chain walk).
#[derive(Debug)]
struct VerifyNothing(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for VerifyNothing {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// The CA certificates read from `source` (a file's path, or what sent
/// them) as the only roots; an error names the source.
fn roots(
    certs: Result<Vec<CertificateDer<'static>>, rustls::pki_types::pem::Error>,
    source: &str,
) -> Result<RootCertStore, LoadError> {
    let certs = certs.map_err(|e| LoadError::TlsSetup {
        what: format!(
            "cannot read CA certificates from {source}: {e}; give a PEM file of the CA \
             that signed the server's certificate"
        ),
    })?;
    let mut roots = RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(certs);
    if added == 0 {
        return Err(LoadError::TlsSetup {
            what: format!(
                "{source} holds no usable CA certificate: give the PEM of the CA that signed \
                 the server's certificate"
            ),
        });
    }
    Ok(roots)
}
