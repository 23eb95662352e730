//! TLS and HTTP/2 (CONTRACT.md, "TLS and HTTP/2"): the service in-process over
//! HTTPS/1.1 and h2 (ALPN) with a run-style certificate made by rcgen in a
//! temporary folder, the client trusting only its CA; h2c beside HTTP/1.1;
//! and the real binary refusing a half-configured transport at start.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::rt::{TokioExecutor, TokioIo};
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose};
use rust_axum_service::{AppState, Settings, serve};
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::sync::oneshot;

/// A temporary folder, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let dir = std::env::temp_dir().join(format!("rust-axum-tls-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }
    fn file(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes ca.pem, cert.pem and key.pem (PKCS#8) as a run makes them: a
/// throwaway CA and a server certificate for 127.0.0.1 and localhost.
fn certs(tag: &str) -> (TempDir, CertificateDer<'static>) {
    let dir = TempDir::new(tag);
    let ca_key = KeyPair::generate().expect("CA key");
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca.distinguished_name.push(DnType::CommonName, "rust-axum test CA");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign];
    let ca_cert = ca.self_signed(&ca_key).expect("CA cert");
    let key = KeyPair::generate().expect("server key");
    let params = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).expect("params");
    let cert = params.signed_by(&key, &ca_cert, &ca_key).expect("server cert");
    std::fs::write(dir.0.join("ca.pem"), ca_cert.pem()).unwrap();
    std::fs::write(dir.0.join("cert.pem"), cert.pem()).unwrap();
    std::fs::write(dir.0.join("key.pem"), key.serialize_pem()).unwrap(); // PKCS#8
    (dir, ca_cert.der().clone())
}

fn settings(pairs: &[(&str, String)]) -> Result<Settings, String> {
    let mut env: HashMap<&str, String> = HashMap::from([("PORT", "0".to_string()), ("TOKIO_WORKERS", "2".to_string())]);
    env.extend(pairs.iter().cloned());
    Settings::from_lookup(|k| env.get(k).cloned(), 2)
}

/// The service in-process on a free 127.0.0.1 port; stops when the sender drops.
async fn start(settings: Settings) -> (SocketAddr, oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let state = AppState::leak(&settings);
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve(listener, state, async move {
        let _ = stopped.await;
    }));
    (addr, stop)
}

/// A hyper client connection: HTTP/1.1 or HTTP/2.
enum Conn {
    H1(hyper::client::conn::http1::SendRequest<Empty<Bytes>>),
    H2(hyper::client::conn::http2::SendRequest<Empty<Bytes>>),
}

impl Conn {
    async fn over<T>(io: T, h2: bool) -> Conn
    where
        T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let io = TokioIo::new(io);
        if h2 {
            let (send, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io).await.expect("h2");
            tokio::spawn(conn);
            Conn::H2(send)
        } else {
            let (send, conn) = hyper::client::conn::http1::handshake(io).await.expect("http1");
            tokio::spawn(conn);
            Conn::H1(send)
        }
    }

    /// GET `path`: the status, the HTTP version and the JSON body.
    async fn get(&mut self, authority: &str, path: &str) -> (u16, hyper::Version, Value) {
        let request = hyper::Request::get(format!("https://{authority}{path}"))
            .header("host", authority)
            .body(Empty::<Bytes>::new())
            .unwrap();
        let send = async {
            match self {
                Conn::H1(s) => {
                    // HTTP/1.1 wants origin-form.
                    let (mut parts, body) = request.into_parts();
                    parts.uri = path.parse().unwrap();
                    s.send_request(hyper::Request::from_parts(parts, body)).await
                }
                Conn::H2(s) => s.send_request(request).await,
            }
        };
        let response = tokio::time::timeout(Duration::from_secs(10), send).await.expect("in 10 s").expect("answer");
        let (status, version) = (response.status().as_u16(), response.version());
        let body = response.into_body().collect().await.expect("body").to_bytes();
        (status, version, serde_json::from_slice(&body).expect("JSON"))
    }
}

/// A TLS connection to `addr` for `host`, trusting only `ca`, offering `alpn`;
/// returns it with the protocol the server chose.
async fn tls_conn(addr: SocketAddr, host: &str, ca: &CertificateDer<'static>, alpn: &[&[u8]]) -> (Conn, Vec<u8>) {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca.clone()).expect("CA");
    #[allow(deprecated)] // ring: see src/transport.rs
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    let tcp = TcpStream::connect(addr).await.expect("connect");
    let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from(host.to_string()).unwrap(), tcp)
        .await
        .expect("TLS handshake");
    let chosen = tls.get_ref().1.alpn_protocol().unwrap_or_default().to_vec();
    (Conn::over(tls, chosen == b"h2").await, chosen)
}

fn first_strings_vector() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../contract/vectors.json");
    let vectors: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("vectors")).expect("JSON");
    vectors["strings"].as_array().unwrap().iter().find(|v| v["workFactor"] == 1).unwrap().clone()
}

/// /health's transport fields and a strings vector over `conn`, answered over `version`.
async fn check_contract(conn: &mut Conn, authority: &str, version: hyper::Version, tls: &str, protocols: &[&str]) {
    let (status, got, health) = conn.get(authority, "/health").await;
    assert_eq!((status, got), (200, version), "/health");
    assert_eq!(health["runtimeInfo"]["tls"], tls);
    assert_eq!(health["runtimeInfo"]["protocols"], serde_json::json!(protocols));
    let v = first_strings_vector();
    let value = v["value"].as_str().unwrap();
    assert!(value.bytes().all(|b| b.is_ascii_alphanumeric()), "a vector usable as a raw path segment");
    let (status, got, work) = conn.get(authority, &format!("/api/strings/{value}")).await;
    assert_eq!((status, got), (200, version), "/api/strings/{value}");
    for field in ["input", "hash", "workScore"] {
        assert_eq!(work[field], v[field], "{field}");
    }
}

#[tokio::test]
async fn tls_serves_https1_and_h2_by_alpn() {
    let (dir, ca) = certs("serve");
    let settings = settings(&[("TLS_CERT_FILE", dir.file("cert.pem")), ("TLS_KEY_FILE", dir.file("key.pem"))])
        .expect("TLS settings");
    let (addr, _stop) = start(settings).await;
    let offered = ["h2", "http/1.1"];
    for host in ["127.0.0.1", "localhost"] {
        let authority = format!("{host}:{}", addr.port());
        let (mut h1, alpn) = tls_conn(addr, host, &ca, &[b"http/1.1"]).await;
        assert_eq!(alpn, b"http/1.1");
        check_contract(&mut h1, &authority, hyper::Version::HTTP_11, "rustls 0.23", &offered).await;
        let (mut h2, alpn) = tls_conn(addr, host, &ca, &[b"h2", b"http/1.1"]).await;
        assert_eq!(alpn, b"h2", "the server chose h2");
        check_contract(&mut h2, &authority, hyper::Version::HTTP_2, "rustls 0.23", &offered).await;
    }
    // TLS only: plain HTTP/1.1 on the port gets no HTTP answer.
    let mut plain = Conn::over(TcpStream::connect(addr).await.unwrap(), false).await;
    let Conn::H1(send) = &mut plain else { unreachable!() };
    let request = hyper::Request::get("/health").header("host", "127.0.0.1").body(Empty::<Bytes>::new()).unwrap();
    let answer = tokio::time::timeout(Duration::from_secs(10), send.send_request(request)).await.expect("in 10 s");
    assert!(answer.is_err(), "plain HTTP on the TLS port answered {:?}", answer.map(|r| r.status()));
}

#[tokio::test]
async fn h2c_beside_http1() {
    let (addr, _stop) = start(settings(&[("HTTP2", "h2c".to_string())]).expect("h2c settings")).await;
    let authority = format!("127.0.0.1:{}", addr.port());
    let offered = ["h2c", "http/1.1"];
    let mut h2c = Conn::over(TcpStream::connect(addr).await.unwrap(), true).await; // prior knowledge
    check_contract(&mut h2c, &authority, hyper::Version::HTTP_2, "off", &offered).await;
    let mut h1 = Conn::over(TcpStream::connect(addr).await.unwrap(), false).await;
    check_contract(&mut h1, &authority, hyper::Version::HTTP_11, "off", &offered).await;
}

#[tokio::test]
async fn plain_by_default() {
    let (addr, _stop) = start(settings(&[]).expect("settings")).await;
    let authority = format!("127.0.0.1:{}", addr.port());
    let mut h1 = Conn::over(TcpStream::connect(addr).await.unwrap(), false).await;
    check_contract(&mut h1, &authority, hyper::Version::HTTP_11, "off", &["http/1.1"]).await;
}

/// Runs the real binary with `env`, expecting a refusal at start: its exit
/// code and stderr.
fn refusal(env: &[(&str, String)]) -> (Option<i32>, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_rust-axum-service"));
    cmd.env_remove("TLS_CERT_FILE").env_remove("TLS_KEY_FILE").env_remove("HTTP2");
    cmd.env("PORT", "0").env("HOST", "127.0.0.1");
    cmd.envs(env.iter().map(|(k, v)| (k, v)));
    cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("spawn the service");
    // Bounded: a service that did not refuse is killed (by its PID) after 20 s.
    for _ in 0..200 {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut stderr = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
            return (status.code(), stderr);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("{env:?}: still running after 20 s, want a refusal at start");
}

#[test]
fn refuses_a_half_configured_transport_at_start() {
    let (dir, _) = certs("refuse");
    let (other, _) = certs("other"); // another key pair: its key is not dir's certificate's
    let (cert, key, missing) = (dir.file("cert.pem"), dir.file("key.pem"), dir.file("missing.pem"));
    // (the environment, the words its message must contain)
    type Case<'a> = (Vec<(&'a str, String)>, Vec<String>);
    let cases: Vec<Case> = vec![
        (vec![("TLS_CERT_FILE", cert.clone())], vec!["TLS_KEY_FILE".into(), cert.clone()]),
        (vec![("TLS_KEY_FILE", key.clone())], vec!["TLS_CERT_FILE".into(), key.clone()]),
        (
            vec![("TLS_CERT_FILE", missing.clone()), ("TLS_KEY_FILE", key.clone())],
            vec![format!("TLS_CERT_FILE={missing:?}")],
        ),
        (
            vec![("TLS_CERT_FILE", cert.clone()), ("TLS_KEY_FILE", missing.clone())],
            vec![format!("TLS_KEY_FILE={missing:?}")],
        ),
        (
            vec![("TLS_CERT_FILE", cert.clone()), ("TLS_KEY_FILE", other.file("key.pem"))],
            vec![cert.clone(), other.file("key.pem")],
        ),
        (vec![("HTTP2", "h2".into())], vec!["HTTP2=\"h2\"".into()]),
        (
            vec![("HTTP2", "h2c".into()), ("TLS_CERT_FILE", cert.clone()), ("TLS_KEY_FILE", key.clone())],
            vec!["HTTP2=h2c".into(), "TLS_CERT_FILE".into()],
        ),
    ];
    for (env, words) in cases {
        let (code, stderr) = refusal(&env);
        assert_eq!(code, Some(2), "{env:?}: exit code; stderr {stderr}");
        for w in words {
            assert!(stderr.contains(&w), "{env:?}: stderr names {w}: {stderr}");
        }
    }
}
