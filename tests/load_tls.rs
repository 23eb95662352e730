//! HTTPS/1.1, HTTP/2 over TLS (ALPN h2) and h2c against real servers on
//! 127.0.0.1 (rustls + hyper, and the `h2` crate for the misbehaving ones),
//! certificates made by rcgen in a temp dir. Counts and classes only: no
//! assertion depends on the host's speed.

mod common;
#[path = "load_support/tls.rs"]
mod tls_support;

use std::time::Duration;

use runner::load::{
    Arrival, LoadConfig, LoadControl, LoadError, LoadReport, Protocol, RequestSpec, Reuse,
    StopCondition, TlsFailure, Transport, Trust, run,
};
use tls_support::{Misbehave, Options, ProtoServer, Speaks, TestCa};

const BOTH: &[&[u8]] = &[b"h2", b"http/1.1"];

fn tls_server(ca: &TestCa, alpn: &[&'static [u8]], options: Options) -> ProtoServer {
    let speaks = Speaks::Tls {
        cert: ca.server_cert(false),
        alpn: alpn.to_vec(),
    };
    ProtoServer::start(speaks, options)
}

/// `n` requests on `connections` x `streams` with `protocol`, trusting `ca`.
fn config(
    server: &ProtoServer,
    protocol: Protocol,
    ca: Option<&TestCa>,
    connections: usize,
    streams: usize,
    n: u64,
) -> LoadConfig {
    let mut c = LoadConfig::closed(server.addr, RequestSpec::get("/"), connections);
    c.stop = StopCondition::Requests(n);
    c.transport = Transport {
        protocol,
        trust: ca.map(|ca| Trust::CaFile(ca.ca_file.clone())),
        streams,
        ..Transport::default()
    };
    c
}

fn tls_of(r: &LoadReport) -> runner::load::TlsReport {
    r.transport.clone().unwrap().tls.unwrap()
}

#[test]
fn https_closed_loop_records_version_cipher_and_alpn() {
    let ca = TestCa::new("runner test CA");
    let server = tls_server(&ca, BOTH, Options::default());
    let r = run(
        &config(&server, Protocol::Https, Some(&ca), 4, 1, 200),
        &LoadControl::new(),
    )
    .unwrap();
    assert_eq!((r.ok, r.errors.total()), (200, 0), "{:?}", r.errors);
    let tls = tls_of(&r);
    let negotiated = tls.negotiated.unwrap();
    assert_eq!(negotiated.version, "TLS 1.3");
    assert!(
        negotiated.cipher_suite.starts_with("TLS13_"),
        "{negotiated:?}"
    );
    assert_eq!(negotiated.alpn.as_deref(), Some("http/1.1"));
    assert_eq!(negotiated.key_exchange.as_deref(), Some("X25519"));
    assert!(tls.certificate_verified);
    assert_eq!(tls.server_name, "127.0.0.1");
    // Keep-alive: one handshake per connection (the check before the run
    // is not counted).
    assert_eq!(tls.handshakes_full + tls.handshakes_resumed, 4);
    assert_eq!(server.connections(), 5);
    let json = serde_json::to_value(r.summary()).unwrap();
    assert_eq!(json["transport"]["tls"]["negotiated"]["version"], "TLS 1.3");
    assert_eq!(json["transport"]["protocol"], "http/1.1 over tls");
}

#[test]
fn https_open_loop_keeps_the_exact_schedule() {
    let ca = TestCa::new("runner test CA");
    let server = tls_server(&ca, BOTH, Options::default());
    let mut c = config(&server, Protocol::Https, Some(&ca), 4, 1, 1);
    c.arrival = Arrival::Open {
        rate: 400.0,
        connections: 4,
        ramp: None,
    };
    c.stop = StopCondition::Duration(Duration::from_secs(1));
    c.warmup = Duration::from_millis(200);
    let r = run(&c, &LoadControl::new()).unwrap();
    let s = r.schedule.clone().unwrap();
    assert_eq!(s.scheduled, 400);
    assert_eq!(r.errors.total(), 0, "{:?}", r.errors);
    assert!(r.ok <= s.sent && r.ok + 4 >= s.sent, "{} of {s:?}", r.ok);
}

#[test]
fn h2_keeps_connections_times_streams_in_flight() {
    let ca = TestCa::new("runner test CA");
    let hold = Options {
        hold_until_in_flight: Some(16),
        ..Options::default()
    };
    let server = tls_server(&ca, BOTH, hold);
    let r = run(
        &config(&server, Protocol::H2, Some(&ca), 2, 8, 300),
        &LoadControl::new(),
    )
    .unwrap();
    assert_eq!((r.ok, r.errors.total()), (300, 0), "{:?}", r.errors);
    assert_eq!(server.max_in_flight(), 16);
    let t = r.transport.clone().unwrap();
    assert_eq!(
        t.tls.unwrap().negotiated.unwrap().alpn.as_deref(),
        Some("h2")
    );
    let h2 = t.h2.unwrap();
    assert_eq!(h2.streams_per_connection, 8);
    assert_eq!(h2.client_initial_stream_window, 1 << 20);
    assert_eq!(t.warning, None);
}

#[test]
fn a_server_stream_limit_below_streams_is_reported() {
    let ca = TestCa::new("runner test CA");
    let capped = Options {
        max_streams: Some(4),
        ..Options::default()
    };
    let server = tls_server(&ca, BOTH, capped);
    let r = run(
        &config(&server, Protocol::H2, Some(&ca), 1, 8, 100),
        &LoadControl::new(),
    )
    .unwrap();
    assert_eq!((r.ok, r.errors.total()), (100, 0), "{:?}", r.errors);
    assert!(server.max_in_flight() <= 4);
    let t = r.transport.unwrap();
    assert_eq!(t.h2.unwrap().server_max_concurrent_streams, Some(4));
    let warning = t.warning.unwrap();
    assert!(
        warning.contains("at most 4 concurrent streams"),
        "{warning}"
    );
}

#[test]
fn h2c_closed_and_open_loop() {
    let server = ProtoServer::start(Speaks::H2c, Options::default());
    let r = run(
        &config(&server, Protocol::H2c, None, 2, 4, 200),
        &LoadControl::new(),
    )
    .unwrap();
    assert_eq!((r.ok, r.errors.total()), (200, 0), "{:?}", r.errors);
    let t = r.transport.unwrap();
    assert_eq!((t.protocol.as_str(), t.tls.is_none()), ("h2c", true));
    // Open loop: each of the 2 x 4 stream slots has its own schedule.
    let mut c = config(&server, Protocol::H2c, None, 2, 4, 1);
    c.arrival = Arrival::Open {
        rate: 400.0,
        connections: 2,
        ramp: None,
    };
    c.stop = StopCondition::Duration(Duration::from_secs(1));
    c.warmup = Duration::from_millis(200);
    let r = run(&c, &LoadControl::new()).unwrap();
    assert_eq!(r.schedule.clone().unwrap().scheduled, 400);
    assert_eq!(r.errors.total(), 0, "{:?}", r.errors);
}

#[test]
fn new_connections_resume_sessions_unless_told_not_to() {
    let ca = TestCa::new("runner test CA");
    let server = tls_server(&ca, BOTH, Options::default());
    for (resumption, full, resumed) in [(true, 1, 19), (false, 20, 0)] {
        let mut c = config(&server, Protocol::Https, Some(&ca), 1, 1, 20);
        c.transport.reuse = Reuse::NewConnection { resumption };
        let r = run(&c, &LoadControl::new()).unwrap();
        assert_eq!((r.ok, r.errors.total()), (20, 0), "{:?}", r.errors);
        let tls = tls_of(&r);
        assert_eq!(
            (tls.handshakes_full, tls.handshakes_resumed),
            (full, resumed),
            "resumption {resumption}"
        );
    }
    // Two runs of 20 requests, each with its check before it.
    assert_eq!(server.connections(), 42);
}

fn refused(c: &LoadConfig) -> LoadError {
    run(c, &LoadControl::new()).unwrap_err()
}

fn tls_failure(e: &LoadError) -> TlsFailure {
    match e {
        LoadError::TlsHandshake { failure, .. } => *failure,
        other => panic!("not a TLS handshake error: {other}"),
    }
}

#[test]
fn bad_certificates_are_told_apart() {
    let ca = TestCa::new("runner test CA");
    let other = TestCa::new("another CA");
    let server = tls_server(&ca, BOTH, Options::default());
    let e = refused(&config(&server, Protocol::Https, Some(&other), 1, 1, 5));
    assert_eq!(tls_failure(&e), TlsFailure::UnknownIssuer);
    assert!(e.to_string().contains("--ca"), "{e}");
    let expired = ProtoServer::start(
        Speaks::Tls {
            cert: ca.server_cert(true),
            alpn: BOTH.to_vec(),
        },
        Options::default(),
    );
    let e = refused(&config(&expired, Protocol::Https, Some(&ca), 1, 1, 5));
    assert_eq!(tls_failure(&e), TlsFailure::Expired);
    assert!(e.to_string().contains("expired"), "{e}");
    let mut c = config(&server, Protocol::Https, Some(&ca), 1, 1, 5);
    c.transport.server_name = Some("example.com".into());
    assert_eq!(tls_failure(&refused(&c)), TlsFailure::NameMismatch);
    assert_eq!(server.requests(), 0);
}

/// Past the check before the run, a failed handshake is one more error
/// class: counted, one per request that needed a connection.
#[test]
fn handshakes_failing_during_a_run_are_counted_as_their_class() {
    let ca = TestCa::new("runner test CA");
    let speaks = Speaks::TlsGoodOnce {
        good: ca.server_cert(false),
        bad: ca.server_cert(true),
    };
    let server = ProtoServer::start(speaks, Options::default());
    let r = run(
        &config(&server, Protocol::Https, Some(&ca), 2, 1, 10),
        &LoadControl::new(),
    )
    .unwrap();
    assert_eq!(r.ok, 0);
    assert_eq!(
        (r.errors.tls_handshake, r.errors.total()),
        (10, 10),
        "{:?}",
        r.errors
    );
    assert_eq!(r.connect.failed, 2);
    assert!(
        r.errors
            .by_class()
            .contains(&("TLS handshake failed".to_string(), 10))
    );
    assert_eq!(server.requests(), 0);
}

#[test]
fn insecure_verifies_nothing_and_says_so() {
    let ca = TestCa::new("runner test CA");
    let expired = ProtoServer::start(
        Speaks::Tls {
            cert: ca.server_cert(true),
            alpn: BOTH.to_vec(),
        },
        Options::default(),
    );
    let mut c = config(&expired, Protocol::H2, None, 1, 2, 20);
    c.transport.trust = Some(Trust::Insecure);
    let r = run(&c, &LoadControl::new()).unwrap();
    assert_eq!((r.ok, r.errors.total()), (20, 0), "{:?}", r.errors);
    assert!(!tls_of(&r).certificate_verified);
    let text = runner::load::cli::render_text("https://127.0.0.1/", &c, &r);
    assert!(
        text.contains("certificate NOT verified (--insecure)"),
        "{text}"
    );
    assert!(text.contains("ALPN h2"), "{text}");
}

#[test]
fn a_plain_http_port_asked_for_tls_is_named() {
    let ca = TestCa::new("runner test CA");
    let plain = ProtoServer::start(Speaks::Plain, Options::default());
    let e = refused(&config(&plain, Protocol::Https, Some(&ca), 1, 1, 5));
    assert_eq!(tls_failure(&e), TlsFailure::NotTls);
    assert!(e.to_string().contains("does not speak TLS"), "{e}");
}

#[test]
fn h2_refused_in_alpn_is_an_error_not_a_fallback() {
    let ca = TestCa::new("runner test CA");
    let h1_only = tls_server(&ca, &[b"http/1.1"], Options::default());
    let e = refused(&config(&h1_only, Protocol::H2, Some(&ca), 1, 1, 5));
    assert!(matches!(e, LoadError::AlpnRefused { .. }), "{e}");
    assert!(e.to_string().contains("did not choose h2"), "{e}");
    assert_eq!(h1_only.requests(), 0);
    // h2c against an HTTP/1.1-only port.
    let plain = ProtoServer::start(Speaks::Plain, Options::default());
    let e = refused(&config(&plain, Protocol::H2c, None, 1, 1, 5));
    assert!(matches!(e, LoadError::NotH2c { .. }), "{e}");
}

#[test]
fn stream_resets_and_goaway_are_counted_apart() {
    let resets = ProtoServer::misbehaving(Misbehave::ResetStreams);
    let r = run(
        &config(&resets, Protocol::H2c, None, 1, 2, 20),
        &LoadControl::new(),
    )
    .unwrap();
    assert_eq!(r.ok, 0);
    assert_eq!(
        (r.errors.stream_reset, r.errors.goaway),
        (20, 0),
        "{:?}",
        r.errors
    );
    let goaway = ProtoServer::misbehaving(Misbehave::GoAway);
    let r = run(
        &config(&goaway, Protocol::H2c, None, 1, 1, 10),
        &LoadControl::new(),
    )
    .unwrap();
    assert_eq!(r.ok, 0);
    assert_eq!(
        (r.errors.goaway, r.errors.stream_reset),
        (10, 0),
        "{:?}",
        r.errors
    );
}

/// A graceful GOAWAY (a server's request limit per connection) fails
/// nothing: the streams it did not process are sent again on a new one.
#[test]
fn a_graceful_goaway_costs_a_new_connection_not_an_error() {
    let limited = ProtoServer::misbehaving(Misbehave::OneRequestPerConnection);
    let r = run(
        &config(&limited, Protocol::H2c, None, 1, 1, 20),
        &LoadControl::new(),
    )
    .unwrap();
    assert_eq!((r.ok, r.errors.total()), (20, 0), "{:?}", r.errors);
    assert!(limited.connections() > 2, "{}", limited.connections());
}

#[test]
fn runner_load_over_https_prints_json_and_names_what_went_wrong() {
    let ca = TestCa::new("runner test CA");
    let server = tls_server(&ca, BOTH, Options::default());
    let url = format!("https://127.0.0.1:{}/", server.addr.port());
    let out = common::runner_within(Duration::from_secs(60))
        .args(["load", &url, "--ca"])
        .arg(&ca.ca_file)
        .args(["--json", "-n", "50", "-c", "2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["requests"], 50);
    assert_eq!(json["transport"]["tls"]["certificate_verified"], true);
    assert_eq!(json["transport"]["tls"]["negotiated"]["alpn"], "http/1.1");
    let other = TestCa::new("another CA");
    let out = common::runner_within(Duration::from_secs(60))
        .args(["load", &url, "--h2", "--ca"])
        .arg(&other.ca_file)
        .args(["-n", "5"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&url) && err.contains("unknown issuer") && err.contains("--ca"),
        "{err}"
    );
}

/// Flags that cannot work together fail before anything is sent, naming
/// the flag to change (exit 1).
#[test]
fn runner_load_refuses_protocol_flags_that_do_not_fit() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["http://127.0.0.1:1/", "--h2"],
            "--h2 is HTTP/2 over TLS: give an https:// URL",
        ),
        (
            &["https://127.0.0.1:1/", "--h2c", "--insecure"],
            "--h2c is HTTP/2 without TLS",
        ),
        (
            &["http://127.0.0.1:1/", "--streams", "4"],
            "need HTTP/2 (--h2 or --h2c)",
        ),
        (&["https://127.0.0.1:1/"], "give --ca FILE"),
    ];
    for (args, said) in cases {
        let out = common::runner_within(Duration::from_secs(30))
            .arg("load")
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(said), "{args:?}: {err}");
    }
}
