//! What the scenario tests share: the vectors of
//! ../contract/microservices.json, the service served on an ephemeral
//! 127.0.0.1 port with the environment a test gives it, a raw HTTP/1.1
//! keep-alive client that sends bodies and insists on `Content-Length`, and
//! the `TEST_*` variables of ../contract/test-deps.sh.
#![allow(dead_code)] // each test binary uses its own part of this module

use std::collections::HashMap;
use std::net::SocketAddr;

use rust_axum_service::{AppState, Settings, serve};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

/// ../contract/microservices.json.
pub fn vectors() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../contract/microservices.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    serde_json::from_str(&text).expect("microservices.json is JSON")
}

/// Settings from `pairs` (plus PORT=0 and two tokio workers).
pub fn settings(pairs: &[(&str, &str)]) -> Settings {
    let mut env: HashMap<String, String> = [("PORT", "0"), ("TOKIO_WORKERS", "2")]
        .iter()
        .chain(pairs)
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    env.retain(|_, v| !v.is_empty());
    Settings::from_lookup(|k| env.get(k).cloned(), 2).unwrap_or_else(|e| panic!("settings {pairs:?}: {e}"))
}

/// A running in-process service; stops (gracefully) when dropped.
pub struct Server {
    pub addr: SocketAddr,
    pub state: &'static AppState,
    _stop: oneshot::Sender<()>,
}

/// Serves the router for `pairs` on a free port (the pool is not opened:
/// see [`Server::open_database`]).
pub async fn start(pairs: &[(&str, &str)]) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let state = AppState::leak(&settings(pairs));
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve(listener, state, async move {
        let _ = stopped.await;
    }));
    Server { addr, state, _stop: stop }
}

impl Server {
    /// What `main` does before serving: opens the whole pool.
    pub async fn open_database(&self) -> usize {
        let store = self.state.products.as_ref().expect("DATABASE_URL set");
        store.open_all().await.unwrap_or_else(|e| panic!("open the pool: {e}"))
    }

    pub async fn client(&self) -> Client {
        Client::connect(self.addr).await
    }
}

/// One answer, read by [`Client::request`].
pub struct Answer {
    pub status: u16,
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Status, JSON content type and an exact Content-Length: what every answer must have.
    pub fn check_framing(&self, what: &str) {
        assert_eq!(self.headers.get("content-type").map(String::as_str), Some("application/json"), "{what}");
        assert_eq!(self.headers.get("content-length"), Some(&self.body.len().to_string()), "{what}");
    }
}

/// A minimal HTTP/1.1 client on one keep-alive connection.
pub struct Client {
    stream: BufReader<TcpStream>,
}

impl Client {
    pub async fn connect(addr: SocketAddr) -> Client {
        Client { stream: BufReader::new(TcpStream::connect(addr).await.expect("connect")) }
    }

    /// Sends `method path` with `body` (always with a Content-Length, and a
    /// Content-Type the service must not care about) and reads the answer.
    pub async fn request(&mut self, method: &str, path: &str, body: &[u8]) -> Answer {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let stream = self.stream.get_mut();
        stream.write_all(head.as_bytes()).await.expect("write head");
        stream.write_all(body).await.expect("write body");
        let mut line = String::new();
        self.stream.read_line(&mut line).await.expect("status line");
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("bad status line {line:?} for {method} {path}"));
        let mut headers = HashMap::new();
        loop {
            line.clear();
            self.stream.read_line(&mut line).await.expect("header line");
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let (k, v) = l.split_once(':').expect("header has a colon");
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
        assert!(!headers.contains_key("transfer-encoding"), "{method} {path}: chunked answer");
        let len: usize = headers
            .get("content-length")
            .unwrap_or_else(|| panic!("{method} {path}: no Content-Length"))
            .parse()
            .expect("numeric Content-Length");
        let mut body = vec![0; if method == "HEAD" { 0 } else { len }];
        self.stream.read_exact(&mut body).await.expect("body");
        Answer { status, headers, body }
    }

    pub async fn get(&mut self, path: &str) -> Answer {
        self.request("GET", path, b"").await
    }
}

/// The `TEST_*` variables of ../contract/test-deps.sh.
pub struct Deps {
    pub database_url: String,
    pub profile_url: String,
    pub orders_url: String,
    pub recommendations_url: String,
    /// The folder `test-deps.sh start` wrote (for `reset`).
    pub dir: String,
}

/// The dependencies when test-deps.sh started them; `None`, after printing
/// that `what` is skipped, when not.
pub fn deps(what: &str) -> Option<Deps> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    match (
        var("TEST_DATABASE_URL"),
        var("TEST_PROFILE_URL"),
        var("TEST_ORDERS_URL"),
        var("TEST_RECOMMENDATIONS_URL"),
        var("TEST_DEPS_DIR"),
    ) {
        (Some(database_url), Some(profile_url), Some(orders_url), Some(recommendations_url), Some(dir)) => {
            Some(Deps { database_url, profile_url, orders_url, recommendations_url, dir })
        }
        _ => {
            println!(
                "SKIPPED {what}: TEST_DATABASE_URL, TEST_*_URL and TEST_DEPS_DIR are not set \
                 (run: eval \"$(../contract/test-deps.sh start /tmp/axum-deps)\" first)"
            );
            None
        }
    }
}

impl Deps {
    /// Reseeds the products table (`test-deps.sh reset`).
    pub fn reset_database(&self) {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../contract/test-deps.sh");
        let status = std::process::Command::new(script).args(["reset", &self.dir]).status().expect("run test-deps.sh");
        assert!(status.success(), "{script} reset {} failed", self.dir);
    }
}
