//! Contract tests: every vector of ../contract/vectors.json (generated,
//! strings, errors) through the real router, served by `serve` on an
//! ephemeral 127.0.0.1 port and spoken to over plain HTTP/1.1 keep-alive.

use std::collections::HashMap;
use std::net::SocketAddr;

use rust_axum_service::{AppState, Settings, SizeError, generated_input, parse_size, serve, work};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

fn vectors() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../contract/vectors.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    serde_json::from_str(&text).expect("vectors.json is JSON")
}

fn settings(work_factor: u32, log_requests: bool) -> Settings {
    let mut env = HashMap::new();
    env.insert("PORT", "0".to_string());
    env.insert("WORK_FACTOR", work_factor.to_string());
    env.insert("LOG_REQUESTS", log_requests.to_string());
    env.insert("TOKIO_WORKERS", "2".to_string());
    Settings::from_lookup(|k| env.get(k).cloned(), 4).expect("valid settings")
}

/// A running in-process service; stops (gracefully) when dropped.
struct Server {
    addr: SocketAddr,
    _stop: oneshot::Sender<()>,
}

async fn start(work_factor: u32, log_requests: bool) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let state = AppState::leak(&settings(work_factor, log_requests));
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve(listener, state, async move {
        let _ = stopped.await;
    }));
    Server { addr, _stop: stop }
}

struct Answer {
    status: u16,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }
}

/// A minimal HTTP/1.1 client on one keep-alive connection; it insists on an
/// explicit Content-Length (the contract forbids chunked answers).
struct Client {
    stream: BufReader<TcpStream>,
}

impl Client {
    async fn connect(addr: SocketAddr) -> Client {
        Client { stream: BufReader::new(TcpStream::connect(addr).await.expect("connect")) }
    }

    async fn request(&mut self, method: &str, path: &str) -> Answer {
        let head = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n");
        self.stream.get_mut().write_all(head.as_bytes()).await.expect("write");
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

    async fn get(&mut self, path: &str) -> Answer {
        self.request("GET", path).await
    }
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
fn percent_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn check_work_answer(what: &str, answer: &Answer, vector: &Value, work_factor: u32) {
    assert_eq!(answer.status, 200, "{what}");
    assert_eq!(answer.headers.get("content-type").map(String::as_str), Some("application/json"), "{what}");
    assert_eq!(answer.headers["content-length"], answer.body.len().to_string(), "{what}");
    let got = answer.json();
    for key in ["input", "uppercase", "lowercase", "reversed", "hash", "workScore"] {
        if let Some(expected) = vector.get(key) {
            assert_eq!(got[key], *expected, "{what}: {key}");
        }
    }
    if let Some(n) = vector.get("inputLength").and_then(Value::as_u64) {
        let input = got["input"].as_str().expect("input is a string");
        assert_eq!(input.len() as u64, n, "{what}: input length");
        for key in ["uppercase", "lowercase", "reversed"] {
            assert_eq!(got[key].as_str().map(str::len), Some(input.len()), "{what}: {key} length");
        }
    }
    assert_eq!(got["workFactor"], work_factor, "{what}");
    assert_eq!(got["language"], "rust", "{what}");
    assert!(got["runtime"].as_str().is_some_and(|r| r.starts_with("rustc ")), "{what}: runtime");
    assert_eq!(got["logEnabled"], false, "{what}");
    let info = &got["runtimeInfo"];
    assert_eq!(info["cpus"], 4, "{what}");
    assert_eq!(info["parallelism"], 2, "{what}");
    assert_eq!(info["parallelismSource"], "TOKIO_WORKERS", "{what}");
    assert_eq!(info["serverModel"], "tokio multi-thread", "{what}");
    assert!(info["memoryLimit"].is_null(), "{what}");
}

fn work_factor_of(vector: &Value) -> u32 {
    vector["workFactor"].as_u64().expect("workFactor") as u32
}

#[test]
fn work_function_matches_every_vector() {
    let v = vectors();
    let mut checked = 0;
    for g in v["generated"].as_array().expect("generated") {
        let size = g["size"].as_u64().expect("size") as u32;
        let input = generated_input(size);
        let w = work(&input, work_factor_of(g));
        assert_eq!(w.hash as u64, g["hash"].as_u64().unwrap(), "generated {size}: hash");
        assert_eq!(w.work_score as u64, g["workScore"].as_u64().unwrap(), "generated {size}: workScore");
        if let Some(s) = g["uppercase"].as_str() {
            assert_eq!(w.uppercase, s);
            assert_eq!(w.lowercase, g["lowercase"].as_str().unwrap());
            assert_eq!(w.reversed, g["reversed"].as_str().unwrap());
            assert_eq!(input, g["input"].as_str().unwrap());
        }
        checked += 1;
    }
    for s in v["strings"].as_array().expect("strings") {
        let input = s["input"].as_str().expect("input");
        let w = work(input, work_factor_of(s));
        assert_eq!(w.uppercase, s["uppercase"].as_str().unwrap(), "{input}");
        assert_eq!(w.lowercase, s["lowercase"].as_str().unwrap(), "{input}");
        assert_eq!(w.reversed, s["reversed"].as_str().unwrap(), "{input}");
        assert_eq!(w.hash as u64, s["hash"].as_u64().unwrap(), "{input}");
        assert_eq!(w.work_score as u64, s["workScore"].as_u64().unwrap(), "{input}");
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} vectors");
}

#[test]
fn size_parsing_is_strict() {
    assert_eq!(parse_size("7"), Ok(7));
    assert_eq!(parse_size("0007"), Ok(7));
    assert_eq!(parse_size("1048576"), Ok(1_048_576));
    for bad in ["", "abc", "-1", "+5", " 5", "1.5", "1e3", "0x10", "٣"] {
        assert_eq!(parse_size(bad), Err(SizeError::NotInteger), "{bad:?}");
    }
    for bad in ["0", "1048577", "2000000", "4294967296", "99999999999999999999"] {
        assert_eq!(parse_size(bad), Err(SizeError::OutOfRange), "{bad:?}");
    }
}

#[test]
fn settings_refuse_bad_values_instead_of_defaulting() {
    let env = |pairs: &[(&str, &str)]| {
        let map: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Settings::from_lookup(|k| map.get(k).cloned(), 3)
    };
    let d = env(&[]).expect("defaults");
    assert_eq!((d.port, d.work_factor, d.log_requests, d.workers, d.cpus), (8080, 1, false, 3, 3));
    assert_eq!(d.host.to_string(), "127.0.0.1");
    let s = env(&[("PORT", "9000"), ("WORK_FACTOR", "10"), ("LOG_REQUESTS", "TRUE"), ("TOKIO_WORKERS", "5")]).unwrap();
    assert_eq!((s.port, s.work_factor, s.log_requests, s.workers), (9000, 10, true, 5));
    for bad in [
        [("WORK_FACTOR", "0")],
        [("WORK_FACTOR", "abc")],
        [("WORK_FACTOR", "-3")],
        [("PORT", "65536")],
        [("PORT", "http")],
        [("LOG_REQUESTS", "yes")],
        [("METRICS", "on")],
        [("TOKIO_WORKERS", "0")],
        [("HOST", "localhost:80")],
    ] {
        assert!(env(&bad).is_err(), "{bad:?} accepted");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_vector_over_http() {
    let v = vectors();
    let mut servers: HashMap<u32, Server> = HashMap::new();
    let mut cases: Vec<(String, Value)> = Vec::new();
    for g in v["generated"].as_array().unwrap() {
        cases.push((format!("/api/generated/{}", g["size"]), g.clone()));
    }
    for s in v["strings"].as_array().unwrap() {
        let value = s["value"].as_str().unwrap();
        cases.push((format!("/api/strings/{}", percent_encode(value)), s.clone()));
    }
    for (path, vector) in &cases {
        let wf = work_factor_of(vector);
        if let std::collections::hash_map::Entry::Vacant(slot) = servers.entry(wf) {
            slot.insert(start(wf, false).await);
        }
        let mut client = Client::connect(servers[&wf].addr).await;
        // Twice on the same connection: keep-alive works and answers are stable.
        for round in 0..2 {
            let answer = client.get(path).await;
            check_work_answer(&format!("GET {path} (WORK_FACTOR={wf}, round {round})"), &answer, vector, wf);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_vector_over_http_and_the_service_survives() {
    let v = vectors();
    let server = start(1, false).await;
    let mut client = Client::connect(server.addr).await;
    let mut errors: Vec<(String, String, u16)> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e.get("method").and_then(Value::as_str).unwrap_or("GET").to_string(),
                e["path"].as_str().unwrap().to_string(),
                e["status"].as_u64().unwrap() as u16,
            )
        })
        .collect();
    // The brief's extra bad requests, and a few more edges.
    for (m, p, s) in [
        ("GET", "/api/generated/2000000", 400),
        ("GET", "/api/generated/+5", 400),
        ("GET", "/api/generated/%FF", 400),
        ("GET", "/api/generated/", 404),
        ("GET", "/api/generated/7/extra", 404),
        ("GET", "/api/strings/%FF%FE", 400),
        ("POST", "/api/strings/hello", 405),
        ("PUT", "/ready", 405),
        ("POST", "/nope", 404),
    ] {
        errors.push((m.to_string(), p.to_string(), s));
    }
    for (method, path, status) in &errors {
        let answer = client.request(method, path).await;
        let what = format!("{method} {path}");
        assert_eq!(answer.status, *status, "{what}");
        assert_eq!(answer.headers.get("content-type").map(String::as_str), Some("application/json"), "{what}");
        let body = answer.json();
        assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()), "{what}: {body}");
        if *status == 404 {
            assert_eq!(body["error"], "not found", "{what}");
        }
        if *status == 405 {
            assert_eq!(body["error"], "method not allowed", "{what}");
        }
        // Still alive, on the same connection, after every bad request.
        let ok = client.get("/api/generated/7").await;
        assert_eq!(ok.status, 200, "after {what}");
        assert_eq!(ok.json()["workScore"], 3584129939u64, "after {what}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_ready_and_head() {
    let server = start(10, true).await;
    let mut client = Client::connect(server.addr).await;
    let health = client.get("/health").await;
    assert_eq!(health.status, 200);
    let h = health.json();
    assert_eq!(h["status"], "UP");
    assert_eq!(h["language"], "rust");
    assert!(h["runtime"].as_str().unwrap().starts_with("rustc 1."), "{h}");
    assert_eq!(h["runtimeInfo"]["cpus"], 4);
    assert_eq!(h["runtimeInfo"]["parallelism"], 2);
    assert_eq!(h["runtimeInfo"]["parallelismSource"], "TOKIO_WORKERS");
    assert_eq!(h["runtimeInfo"]["serverModel"], "tokio multi-thread");
    assert!(h["runtimeInfo"]["memoryLimit"].is_null());

    let ready = client.get("/ready").await;
    assert_eq!((ready.status, ready.json()), (200, serde_json::json!({"status": "READY"})));

    // HEAD is answered like GET, without a body.
    let head = client.request("HEAD", "/api/generated/128").await;
    assert_eq!(head.status, 200);
    assert!(head.headers["content-length"].parse::<usize>().unwrap() > 4 * 128);

    // With LOG_REQUESTS=true the answer says so (the log line goes to tracing).
    let answer = client.get("/api/generated/7").await;
    let a = answer.json();
    assert_eq!((a["logEnabled"].clone(), a["workFactor"].clone()), (Value::Bool(true), Value::from(10)));
    assert_eq!(a["workScore"], 4049120572u64);
}
