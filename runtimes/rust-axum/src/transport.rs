//! How the service serves PORT (CONTRACT.md, "TLS and HTTP/2"): plain
//! HTTP/1.1 (`axum::serve`), TLS with ALPN `h2` and `http/1.1` (rustls with
//! the ring provider, `TLS_CERT_FILE` and `TLS_KEY_FILE`), or h2c beside
//! HTTP/1.1 (`HTTP2=h2c`). TLS and h2c connections are served by hyper-util's
//! auto builder, which tells HTTP/2 from HTTP/1.1 by the connection preface.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpListener;

/// The transport, read and checked at start.
#[derive(Debug, Clone)]
pub enum Transport {
    Plain,
    H2c,
    Tls(Arc<ServerConfig>),
}

impl PartialEq for Transport {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Transport::Plain, Transport::Plain) | (Transport::H2c, Transport::H2c) => true,
            (Transport::Tls(a), Transport::Tls(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for Transport {}

impl Transport {
    /// Reads `TLS_CERT_FILE`, `TLS_KEY_FILE` and `HTTP2` (trimmed, empty =
    /// unset) and loads the key pair now, so that a half-configured or
    /// unreadable TLS setup stops the service at start instead of serving
    /// plain HTTP by default. Every error names the variable and the file.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Transport, String> {
        let h2c = match get("HTTP2") {
            None => false,
            Some(v) if v == "h2c" => true,
            Some(v) => return Err(format!("HTTP2={v:?} is not h2c (HTTP/2 over TLS needs no setting)")),
        };
        let (cert_file, key_file) = match (get("TLS_CERT_FILE"), get("TLS_KEY_FILE")) {
            (None, None) => return Ok(if h2c { Transport::H2c } else { Transport::Plain }),
            (Some(cert), Some(key)) => (cert, key),
            (cert, key) => {
                return Err(format!("TLS_CERT_FILE={cert:?}, TLS_KEY_FILE={key:?}: set both or neither"));
            }
        };
        if h2c {
            return Err(format!("HTTP2=h2c with TLS_CERT_FILE={cert_file:?}: h2c is HTTP/2 without TLS"));
        }
        let read =
            |name: &str, file: &str| std::fs::read(file).map_err(|e| format!("{name}={file:?}: cannot read it ({e})"));
        let cert_pem = read("TLS_CERT_FILE", &cert_file)?;
        let key_pem = read("TLS_KEY_FILE", &key_file)?;
        let chain = CertificateDer::pem_slice_iter(&cert_pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("TLS_CERT_FILE={cert_file:?}: not a PEM certificate chain ({e})"))?;
        if chain.is_empty() {
            return Err(format!("TLS_CERT_FILE={cert_file:?}: no certificate in it"));
        }
        let key = PrivateKeyDer::from_pem_slice(&key_pem)
            .map_err(|e| format!("TLS_KEY_FILE={key_file:?}: not a PEM private key ({e})"))?;
        // ring, named rather than the process default: aws-lc-rs (whose
        // provider rustls now prefers for its post-quantum key exchange, hence
        // the deprecation) needs cmake and nasm to build, which a clean machine
        // may lack. The runner's load generator uses ring too.
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        // with_single_cert also checks that the key is the first certificate's.
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .and_then(|b| b.with_no_client_auth().with_single_cert(chain, key))
            .map_err(|e| format!("TLS_CERT_FILE={cert_file:?}, TLS_KEY_FILE={key_file:?}: {e}"))?;
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(Transport::Tls(Arc::new(config)))
    }

    /// `runtimeInfo.tls`.
    pub fn tls_name(&self) -> &'static str {
        match self {
            Transport::Tls(_) => "rustls 0.23",
            _ => "off",
        }
    }

    /// `runtimeInfo.protocols`.
    pub fn protocols(&self) -> &'static [&'static str] {
        match self {
            Transport::Plain => &["http/1.1"],
            Transport::H2c => &["h2c", "http/1.1"],
            Transport::Tls(_) => &["h2", "http/1.1"],
        }
    }
}

/// How long a TLS handshake may take (as a request's headers may in Go's
/// service: a slow client is not a reason to hold a socket forever).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// Serves `router` over TLS or h2c on `listener` until `shutdown`, then lets
/// open connections finish their requests (HTTP/2: GOAWAY; HTTP/1.1: close
/// after the answer in flight). TCP_NODELAY is set on the TCP socket, under
/// TLS too.
pub(crate) async fn serve_auto(
    listener: TcpListener,
    router: Router,
    tls: Option<Arc<ServerConfig>>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    let builder = auto::Builder::new(TokioExecutor::new());
    let graceful = GracefulShutdown::new();
    // Tells connections still in their TLS handshake that the server stops:
    // they hold a graceful watcher, which the shutdown would wait for.
    let (stopping_tx, stopping) = tokio::sync::watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let tcp = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => tcp,
                // Out of file descriptors and the like: the listener is
                // still good; back off instead of spinning (as axum::serve).
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = tcp.set_nodelay(true); // harmless if it fails: Nagle stays on
        let service = TowerToHyperService::new(router.clone());
        let builder = builder.clone();
        let watcher = graceful.watcher();
        let acceptor = acceptor.clone();
        let mut stopping = stopping.clone();
        tokio::spawn(async move {
            // A failed handshake or a connection error ends this connection only.
            match acceptor {
                Some(acceptor) => {
                    // A client that never finishes its handshake holds the
                    // connection for HANDSHAKE_TIMEOUT at most, and never
                    // past the start of the shutdown.
                    let handshake = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp));
                    let tls = tokio::select! {
                        done = handshake => match done {
                            Ok(Ok(tls)) => tls,
                            _ => return,
                        },
                        _ = stopping.wait_for(|stop| *stop) => return,
                    };
                    let conn = builder.serve_connection_with_upgrades(TokioIo::new(tls), service).into_owned();
                    let _ = watcher.watch(conn).await;
                }
                None => {
                    let conn = builder.serve_connection_with_upgrades(TokioIo::new(tcp), service).into_owned();
                    let _ = watcher.watch(conn).await;
                }
            }
        });
    }
    drop(listener);
    let _ = stopping_tx.send(true);
    graceful.shutdown().await;
    Ok(())
}
