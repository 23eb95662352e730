//! The run's certificates checked the way a client checks them: a real TLS
//! handshake (rustls) on 127.0.0.1, trusting only the run's CA.
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, ServerConfig, ServerConnection};

use super::*;

/// ring, as the load generator uses it (docs/load.md says why: it builds
/// with a C compiler alone); rustls 0.23.48 deprecates it for lacking the
/// post-quantum key exchange, which these checks of the certificates do not need.
#[allow(deprecated)]
fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Serves one handshake with `certs` on 127.0.0.1 and answers "ok".
fn serve_once(certs: &RunCertificates) -> (u16, std::thread::JoinHandle<()>) {
    let chain: Vec<CertificateDer<'static>> =
        CertificateDer::pem_slice_iter(certs.files.cert_pem.as_bytes())
            .collect::<Result<_, _>>()
            .unwrap();
    let key = PrivateKeyDer::from_pem_slice(certs.files.key_pem.as_bytes()).unwrap();
    let config = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = std::thread::spawn(move || {
        let (mut tcp, _) = listener.accept().unwrap();
        let mut conn = ServerConnection::new(Arc::new(config)).unwrap();
        let mut tls = rustls::Stream::new(&mut conn, &mut tcp);
        let mut byte = [0u8; 1];
        // A client that refused the certificate closes: nothing to answer.
        if tls.read_exact(&mut byte).is_ok() {
            let _ = tls.write_all(b"ok");
            conn.send_close_notify();
            let _ = conn.complete_io(&mut tcp);
        }
    });
    (port, handle)
}

/// Connects to `port` as `name`, trusting only `ca_pem`; the answer or the error.
fn fetch(port: u16, name: &str, ca_pem: &str) -> Result<String, String> {
    let mut roots = RootCertStore::empty();
    for ca in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
        roots.add(ca.unwrap()).unwrap();
    }
    let config = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let server = ServerName::try_from(name.to_string()).unwrap();
    let mut conn = ClientConnection::new(Arc::new(config), server).unwrap();
    let mut tcp = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut tls = rustls::Stream::new(&mut conn, &mut tcp);
    tls.write_all(b"?").map_err(|e| e.to_string())?;
    let mut answer = String::new();
    tls.read_to_string(&mut answer).map_err(|e| e.to_string())?;
    Ok(answer)
}

#[test]
fn a_client_trusting_only_the_run_ca_accepts_the_server_by_ip_and_by_name() {
    let certs = issue("tls-test", &[]).unwrap();
    for name in ["127.0.0.1", "localhost"] {
        let (port, server) = serve_once(&certs);
        assert_eq!(
            fetch(port, name, &certs.files.ca_pem).unwrap(),
            "ok",
            "as {name}"
        );
        server.join().unwrap();
    }
}

#[test]
fn another_run_ca_is_not_trusted() {
    let certs = issue("tls-test", &[]).unwrap();
    let other = issue("tls-test", &[]).unwrap();
    let (port, server) = serve_once(&certs);
    let error = fetch(port, "127.0.0.1", &other.files.ca_pem).unwrap_err();
    assert!(error.contains("UnknownIssuer"), "{error}");
    server.join().unwrap();
}

#[test]
fn a_name_the_certificate_does_not_cover_is_refused() {
    let certs = issue("tls-test", &[]).unwrap();
    let (port, server) = serve_once(&certs);
    let error = fetch(port, "example.invalid", &certs.files.ca_pem).unwrap_err();
    assert!(error.contains("not valid for name"), "{error}");
    server.join().unwrap();
}

#[test]
fn a_service_host_is_named_once_beside_the_local_names() {
    let certs = issue("tls-test", &["10.77.0.2".into(), "localhost".into()]).unwrap();
    assert_eq!(certs.names, ["127.0.0.1", "localhost", "::1", "10.77.0.2"]);
}

#[test]
fn the_key_never_shows_in_debug_output() {
    let certs = issue("tls-test", &[]).unwrap();
    let shown = format!("{certs:?}");
    assert!(!shown.contains("PRIVATE KEY"), "{shown}");
    assert!(certs.files.key_pem.contains("BEGIN PRIVATE KEY"));
}

#[test]
fn a_name_that_is_neither_an_address_nor_a_dns_name_is_refused_by_name() {
    let error = issue("tls-test", &["bad name ü".into()]).unwrap_err();
    assert!(error.to_string().contains("`bad name ü`"), "{error}");
}
