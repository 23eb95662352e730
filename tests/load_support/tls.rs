//! TLS and HTTP/2 test servers for the load generator's protocol tests, on
//! 127.0.0.1 with an ephemeral port, each on its own thread and runtime,
//! stopped on drop; certificates made here by rcgen into a temp dir.
#![allow(dead_code)] // each test crate uses a subset

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use rcgen::{BasicConstraints, Certificate, CertificateParams, DnType, IsCa, KeyPair};
use rustls::ServerConfig;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use tokio::net::TcpListener;

/// A throwaway CA; its PEM in `ca_file` (a temp dir removed on drop).
pub struct TestCa {
    pub ca_file: PathBuf,
    cert: Certificate,
    key: KeyPair,
    _dir: tempfile::TempDir,
}

/// A server certificate chain and its key.
pub struct ServerCert {
    pub chain: Vec<CertificateDer<'static>>,
    pub key: PrivateKeyDer<'static>,
}

impl TestCa {
    pub fn new(name: &str) -> TestCa {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let cert = params.self_signed(&key).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let ca_file = dir.path().join("ca.pem");
        std::fs::write(&ca_file, cert.pem()).unwrap();
        TestCa {
            ca_file,
            cert,
            key,
            _dir: dir,
        }
    }

    /// A certificate for 127.0.0.1 and localhost; `expired`: valid in 2000 only.
    pub fn server_cert(&self, expired: bool) -> ServerCert {
        let key = KeyPair::generate().unwrap();
        let mut params =
            CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
        params
            .distinguished_name
            .push(DnType::CommonName, "localhost");
        if expired {
            params.not_before = rcgen::date_time_ymd(2000, 1, 1);
            params.not_after = rcgen::date_time_ymd(2000, 12, 31);
        }
        let cert = params.signed_by(&key, &self.cert, &self.key).unwrap();
        ServerCert {
            chain: vec![cert.der().clone()],
            key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        }
    }
}

/// What the server speaks.
pub enum Speaks {
    /// TLS with these ALPN protocols; HTTP/2 when `h2` is chosen, else HTTP/1.1.
    Tls {
        cert: ServerCert,
        alpn: Vec<&'static [u8]>,
    },
    /// TLS whose first handshake (the generator's check before the run)
    /// shows `good`, every later one `bad`: failures during a run.
    TlsGoodOnce { good: ServerCert, bad: ServerCert },
    /// HTTP/1.1 without TLS (hyper: answers a ClientHello with a 400).
    Plain,
    /// HTTP/2 without TLS (prior knowledge).
    H2c,
}

/// Server settings beyond the protocol.
#[derive(Clone, Default)]
pub struct Options {
    /// HTTP/2: the SETTINGS_MAX_CONCURRENT_STREAMS announced.
    pub max_streams: Option<u32>,
    /// Hold every answer until this many requests were in flight at once
    /// (or 5 s passed): makes "the generator reached N" an awaited event.
    pub hold_until_in_flight: Option<u64>,
    /// Freeze as `Behavior::Freeze` does (`period`, `freeze`, `offset`
    /// from the server's start): an answer due in a freeze waits for its end.
    pub freeze: Option<(Duration, Duration, Duration)>,
}

/// A TLS server (ALPN `h2` and `http/1.1`) that freezes as the plain
/// freeze tests' server does: 1 s of every 5, from 2 s after its start.
pub fn freezing_server(ca: &TestCa) -> ProtoServer {
    let options = Options {
        freeze: Some((
            Duration::from_secs(5),
            Duration::from_secs(1),
            Duration::from_secs(2),
        )),
        ..Options::default()
    };
    let speaks = Speaks::Tls {
        cert: ca.server_cert(false),
        alpn: vec![b"h2", b"http/1.1"],
    };
    ProtoServer::start(speaks, options)
}

/// Moves an open-loop run at 2000 req/s over `protocol`, trusting `ca`:
/// HTTPS/1.1 on 40 connections, HTTP/2 on 20 connections x 2 streams (the
/// same 40 requests in flight at most).
pub fn open_loop_over(
    config: &mut runner::load::LoadConfig,
    protocol: runner::load::Protocol,
    ca: &TestCa,
) {
    let (connections, streams) = match protocol {
        runner::load::Protocol::H2 | runner::load::Protocol::H2c => (20, 2),
        _ => (40, 1),
    };
    config.arrival = runner::load::Arrival::Open {
        rate: 2000.0,
        connections,
        ramp: None,
    };
    config.transport = runner::load::Transport {
        protocol,
        trust: Some(runner::load::Trust::CaFile(ca.ca_file.clone())),
        streams,
        ..runner::load::Transport::default()
    };
}

/// What the server saw.
#[derive(Default)]
pub struct Seen {
    pub requests: AtomicU64,
    pub connections: AtomicU64,
    pub in_flight: AtomicU64,
    pub max_in_flight: AtomicU64,
}

pub struct ProtoServer {
    pub addr: SocketAddr,
    pub seen: Arc<Seen>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The ring provider, as the generator uses.
#[allow(deprecated)] // see src/load/net/tls_config.rs
pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn tls_config(cert: ServerCert, alpn: Vec<&'static [u8]>) -> Arc<ServerConfig> {
    let mut config = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(cert.chain, cert.key)
        .unwrap();
    config.alpn_protocols = alpn.into_iter().map(|p| p.to_vec()).collect();
    Arc::new(config)
}

impl ProtoServer {
    pub fn start(speaks: Speaks, options: Options) -> ProtoServer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Seen::default());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let seen2 = seen.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = TcpListener::from_std(listener).unwrap();
                let (most, _) = tokio::sync::watch::channel(0u64);
                let most = Arc::new(most);
                let h2c = matches!(speaks, Speaks::H2c);
                let tls = match speaks {
                    Speaks::Tls { cert, alpn } => {
                        Some(tokio_rustls::TlsAcceptor::from(tls_config(cert, alpn)))
                    }
                    Speaks::TlsGoodOnce { good, bad } => {
                        Some(tokio_rustls::TlsAcceptor::from(good_once(good, bad)))
                    }
                    _ => None,
                };
                let origin = std::time::Instant::now();
                let accept = async {
                    loop {
                        let (tcp, _) = listener.accept().await.unwrap();
                        seen2.connections.fetch_add(1, Ordering::Relaxed);
                        let _ = tcp.set_nodelay(true);
                        let (seen, most, options, tls) =
                            (seen2.clone(), most.clone(), options.clone(), tls.clone());
                        tokio::spawn(async move {
                            let freeze = options.freeze.map(|f| (origin, f));
                            let service = service_fn(move |_req| {
                                let (seen, most) = (seen.clone(), most.clone());
                                let hold = options.hold_until_in_flight;
                                async move {
                                    if let Some((origin, (period, freeze, offset))) = freeze {
                                        wait_out_freeze(origin, period, freeze, offset).await;
                                    }
                                    answer(seen, most, hold).await
                                }
                            });
                            let Some(tls) = tls else {
                                return serve(TokioIo::new(tcp), h2c, &options, service).await;
                            };
                            let Ok(stream) = tls.accept(tcp).await else {
                                return;
                            };
                            let h2 = stream.get_ref().1.alpn_protocol() == Some(b"h2");
                            serve(TokioIo::new(stream), h2, &options, service).await;
                        });
                    }
                };
                tokio::select! {
                    _ = accept => {}
                    _ = stopped => {}
                }
            });
        });
        ProtoServer {
            addr,
            seen,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    pub fn requests(&self) -> u64 {
        self.seen.requests.load(Ordering::Relaxed)
    }

    pub fn connections(&self) -> u64 {
        self.seen.connections.load(Ordering::Relaxed)
    }

    pub fn max_in_flight(&self) -> u64 {
        self.seen.max_in_flight.load(Ordering::Relaxed)
    }
}

impl Drop for ProtoServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn serve<I, S>(io: I, h2: bool, options: &Options, service: S)
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
    S: hyper::service::Service<
            hyper::Request<hyper::body::Incoming>,
            Response = hyper::Response<Full<Bytes>>,
            Error = std::convert::Infallible,
        > + Send
        + 'static,
    S::Future: Send + 'static,
{
    if h2 {
        let mut builder = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
        if let Some(max) = options.max_streams {
            builder.max_concurrent_streams(max);
        }
        let _ = builder.serve_connection(io, service).await;
    } else {
        let _ = hyper::server::conn::http1::Builder::new()
            .serve_connection(io, service)
            .await;
    }
}

/// Sleeps to the end of the freeze the present falls in, if it does.
async fn wait_out_freeze(
    origin: std::time::Instant,
    period: Duration,
    freeze: Duration,
    offset: Duration,
) {
    let phase = (origin.elapsed().as_nanos() % period.as_nanos()) as u64;
    let (start, end) = (
        offset.as_nanos() as u64,
        (offset + freeze).as_nanos() as u64,
    );
    if phase >= start && phase < end {
        tokio::time::sleep(Duration::from_nanos(end - phase)).await;
    }
}

async fn answer(
    seen: Arc<Seen>,
    most: Arc<tokio::sync::watch::Sender<u64>>,
    hold_until: Option<u64>,
) -> Result<hyper::Response<Full<Bytes>>, std::convert::Infallible> {
    seen.requests.fetch_add(1, Ordering::Relaxed);
    let now = seen.in_flight.fetch_add(1, Ordering::Relaxed) + 1;
    let max = seen
        .max_in_flight
        .fetch_max(now, Ordering::Relaxed)
        .max(now);
    most.send_if_modified(|m| {
        let grew = max > *m;
        *m = (*m).max(max);
        grew
    });
    if let Some(n) = hold_until {
        let mut rx = most.subscribe();
        let _ = tokio::time::timeout(Duration::from_secs(5), rx.wait_for(|m| *m >= n)).await;
    }
    seen.in_flight.fetch_sub(1, Ordering::Relaxed);
    Ok(hyper::Response::new(Full::new(Bytes::from_static(
        b"hello over tls\n",
    ))))
}

/// An h2c server (the `h2` crate, no hyper) that misbehaves on purpose.
#[derive(Clone, Copy)]
pub enum Misbehave {
    /// Resets every request's stream (RST_STREAM INTERNAL_ERROR).
    ResetStreams,
    /// Answers a PING, then sends GOAWAY (ENHANCE_YOUR_CALM) on the first request.
    GoAway,
    /// Answers each connection's first request, then ends the connection
    /// gracefully (GOAWAY NO_ERROR), as a server with a request limit does.
    OneRequestPerConnection,
}

impl ProtoServer {
    pub fn misbehaving(how: Misbehave) -> ProtoServer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Seen::default());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let seen2 = seen.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = TcpListener::from_std(listener).unwrap();
                let accept = async {
                    loop {
                        let (tcp, _) = listener.accept().await.unwrap();
                        seen2.connections.fetch_add(1, Ordering::Relaxed);
                        let seen = seen2.clone();
                        tokio::spawn(async move {
                            let Ok(mut conn) = h2::server::handshake(tcp).await else {
                                return;
                            };
                            while let Some(Ok((_req, mut respond))) = conn.accept().await {
                                let n = seen.requests.fetch_add(1, Ordering::Relaxed);
                                match how {
                                    Misbehave::OneRequestPerConnection => {
                                        let _ = n;
                                        let answer = hyper::Response::new(());
                                        if let Ok(mut body) = respond.send_response(answer, false) {
                                            let _ =
                                                body.send_data(Bytes::from_static(b"one\n"), true);
                                        }
                                        conn.graceful_shutdown();
                                    }
                                    Misbehave::ResetStreams => {
                                        respond.send_reset(h2::Reason::INTERNAL_ERROR)
                                    }
                                    Misbehave::GoAway => {
                                        conn.abrupt_shutdown(h2::Reason::ENHANCE_YOUR_CALM)
                                    }
                                }
                            }
                        });
                    }
                };
                tokio::select! {
                    _ = accept => {}
                    _ = stopped => {}
                }
            });
        });
        ProtoServer {
            addr,
            seen,
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

/// Shows one certificate on the first handshake, another on the rest.
#[derive(Debug)]
struct GoodOnce {
    good: Arc<CertifiedKey>,
    bad: Arc<CertifiedKey>,
    served: AtomicU64,
}

impl ResolvesServerCert for GoodOnce {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let first = self.served.fetch_add(1, Ordering::Relaxed) == 0;
        Some(if first { &self.good } else { &self.bad }.clone())
    }
}

fn good_once(good: ServerCert, bad: ServerCert) -> Arc<ServerConfig> {
    let certified = |c: ServerCert| {
        let key = rustls::crypto::ring::sign::any_supported_type(&c.key).unwrap();
        Arc::new(CertifiedKey::new(c.chain, key))
    };
    let resolver = GoodOnce {
        good: certified(good),
        bad: certified(bad),
        served: AtomicU64::new(0),
    };
    let mut config = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(resolver));
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
}
