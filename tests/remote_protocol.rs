//! `runner remote` as the far end of an SSH session sees it, without SSH:
//! the real binary with its stdin and stdout as pipes, a load against a test
//! server on 127.0.0.1, a refused non-declared target, and the property the
//! whole design rests on: when stdin closes mid-load (the session dropped),
//! the process ends at once and sends nothing more.
mod common;
mod load_support;
#[path = "load_support/tls.rs"]
mod tls_support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::{Duration, Instant};

use load_support::{Behavior, TestServer};
use serde_json::{Value, json};

struct Remote {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Remote {
    fn start() -> Remote {
        let mut child = common::runner()
            .arg("remote")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("runner remote starts");
        Remote {
            stdin: child.stdin.take(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
        }
    }

    fn send(&mut self, v: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next answer that is not a progress line.
    fn answer(&mut self) -> Value {
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "runner remote ended"
            );
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["op"] != "progress" {
                return v;
            }
        }
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn load(target: &str, seconds: u64) -> Value {
    json!({
        "op": "load",
        "config": {
            "target": target, "host_header": target,
            "requests": [{ "method": "GET", "path": "/", "headers": [], "body_hex": null,
                           "expect_status": 200, "weight": null }],
            "arrival": { "kind": "closed", "connections": 2 },
            "stop": { "kind": "duration_ns", "value": seconds * 1_000_000_000 },
            "warmup_ns": 0, "timeout_ns": 2_000_000_000, "threads": 1,
            "cpu_affinity": null, "mix_seed": 1
        },
        "allowed": [],
        "start_at_unix_ns": null
    })
}

#[test]
fn hello_ping_and_a_load_whose_histograms_come_back_whole() {
    let server = TestServer::start(Behavior::Ok);
    let mut r = Remote::start();
    r.send(json!({ "op": "hello" }));
    assert_eq!(r.answer()["protocol"], 3);
    r.send(json!({ "op": "ping", "seq": 7 }));
    assert_eq!(r.answer()["seq"], 7);
    r.send(json!({ "op": "fingerprint" }));
    assert!(r.answer()["host"]["logical_cpus"].as_u64().unwrap() >= 1);
    r.send(load(&server.addr.to_string(), 1));
    let done = r.answer();
    assert_eq!(done["op"], "load_done", "{done}");
    let report = &done["report"];
    let ok = report["ok"].as_u64().unwrap();
    assert!(ok > 0, "{report}");
    // The interval log holds every histogram, and `latency` counts every ok answer.
    let hlog = report["hlog"].as_str().unwrap();
    let tags: Vec<&str> = hlog
        .lines()
        .filter_map(|l| l.strip_prefix("Tag="))
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(
        tags,
        [
            "latency",
            "service_time",
            "latency_with_timeouts",
            "request-0"
        ]
    );
    r.send(json!({ "op": "bye" }));
    let status = r.child.wait().unwrap();
    assert!(status.success(), "{status}");
}

/// A load host's run over HTTPS/1.1 and over HTTP/2: the CA crosses as its
/// PEM text (no path of this host's), the far generator trusts it alone
/// and verifies the server, and what it negotiated comes back in the report.
#[test]
fn a_tls_load_trusts_the_ca_sent_as_text_and_reports_what_it_negotiated() {
    use tls_support::{Options, ProtoServer, Speaks, TestCa};
    let ca = TestCa::new("remote test CA");
    let pem = std::fs::read_to_string(&ca.ca_file).unwrap();
    let server = ProtoServer::start(
        Speaks::Tls {
            cert: ca.server_cert(false),
            alpn: vec![b"h2", b"http/1.1"],
        },
        Options::default(),
    );
    let mut r = Remote::start();
    // 2 connections each: one request in flight on each over HTTPS/1.1, two over h2.
    for (protocol, streams, alpn) in [("https", 1, "http/1.1"), ("h2", 2, "h2")] {
        let mut request = load(&server.addr.to_string(), 1);
        request["config"]["transport"] = json!({
            "protocol": protocol,
            "trust": { "kind": "ca-pem", "pem": pem },
            "server_name": null,
            "new_connection_resumption": null,
            "streams": streams
        });
        r.send(request);
        let done = r.answer();
        assert_eq!(done["op"], "load_done", "{done}");
        let report = &done["report"];
        assert!(report["ok"].as_u64().unwrap() > 0, "{report}");
        let tls = &report["transport"]["tls"];
        assert_eq!(tls["certificate_verified"], true, "{report}");
        assert_eq!(tls["negotiated"]["alpn"], alpn, "{report}");
        // One handshake per connection: the first full, a later one full
        // or resumed from the first's ticket (whichever finished first).
        let (full, resumed) = (
            tls["handshakes_full"].as_u64().unwrap(),
            tls["handshakes_resumed"].as_u64().unwrap(),
        );
        assert!(full >= 1 && full + resumed == 2, "{report}");
    }
    // A CA that did not sign the server's certificate: every request fails
    // its handshake, named as such; nothing is accepted unverified.
    let other = TestCa::new("another CA");
    let mut request = load(&server.addr.to_string(), 1);
    request["config"]["transport"] = json!({
        "protocol": "https",
        "trust": { "kind": "ca-pem", "pem": std::fs::read_to_string(&other.ca_file).unwrap() },
        "server_name": null, "new_connection_resumption": null, "streams": 1
    });
    r.send(request);
    let answer = r.answer();
    let text = answer.to_string();
    assert!(
        text.contains("UnknownIssuer") || text.contains("unknown issuer"),
        "{text}"
    );
    assert!(
        answer["report"]["ok"].as_u64().unwrap_or(0) == 0,
        "{answer}"
    );
}

#[test]
fn a_target_that_is_not_declared_is_refused_before_any_request() {
    let mut r = Remote::start();
    r.send(load("192.0.2.1:80", 1));
    let answer = r.answer();
    assert_eq!(answer["op"], "error");
    let message = answer["message"].as_str().unwrap();
    assert!(
        message.contains("not the declared service host"),
        "{message}"
    );
}

#[test]
fn closing_stdin_mid_load_ends_the_process_at_once() {
    let server = TestServer::start(Behavior::Ok);
    let mut r = Remote::start();
    r.send(load(&server.addr.to_string(), 30));
    // Wait for the load to be under way (a progress line), then drop the "session".
    let mut line = String::new();
    r.stdout.read_line(&mut line).unwrap();
    assert!(line.contains("progress"), "{line}");
    let closed = Instant::now();
    drop(r.stdin.take());
    let gone = common::wait_for(Duration::from_secs(5), || {
        matches!(r.child.try_wait(), Ok(Some(_)))
    });
    assert!(gone, "runner remote still runs 5 s after its stdin closed");
    assert!(closed.elapsed() < Duration::from_secs(5));
    // Nothing more was sent: no load_done for a load nobody waits for.
    let mut rest = String::new();
    while r.stdout.read_line(&mut rest).unwrap_or(0) > 0 {}
    assert!(!rest.contains("load_done"), "{rest}");
}
