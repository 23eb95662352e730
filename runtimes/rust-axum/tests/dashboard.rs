//! The dashboard fan-out. Always: against three small in-process
//! downstreams (axum on ephemeral ports) that answer, fail, hang or send
//! junk as a test asks: the aggregate, the 502 naming the failed downstream,
//! the deadline, the cancellation of the other calls on a failure, and the
//! keep-alive reuse of downstream connections. With
//! ../contract/test-deps.sh started: every `dashboard` case of
//! ../contract/microservices.json against the real stubs.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::serve::ListenerExt;
use serde_json::{Value, json};

/// What a fake downstream does with every request.
#[derive(Clone)]
enum Behaviour {
    Answer(&'static str),
    Status(u16),
    Hang(Duration),
}

/// A fake downstream serving `GET /{route}/{id}`; counts accepted connections.
struct Fake {
    url: String,
    connections: Arc<AtomicUsize>,
}

async fn fake(route: &str, behaviour: Behaviour) -> Fake {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr: SocketAddr = listener.local_addr().expect("addr");
    let connections = Arc::new(AtomicUsize::new(0));
    let counter = connections.clone();
    let listener = listener.tap_io(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    let handler = move || {
        let behaviour = behaviour.clone();
        async move {
            let response: Response = match behaviour {
                Behaviour::Answer(body) => ([("content-type", "application/json")], body).into_response(),
                Behaviour::Status(code) => StatusCode::from_u16(code).expect("status").into_response(),
                Behaviour::Hang(how_long) => {
                    tokio::time::sleep(how_long).await;
                    "{}".into_response()
                }
            };
            response
        }
    };
    let app = Router::new().route(&format!("/{route}/{{id}}"), get(handler));
    tokio::spawn(async move { axum::serve(listener, app).await });
    Fake { url: format!("http://{addr}"), connections }
}

fn downstream_body(name: &str) -> &'static str {
    let path = format!("{}/../contract/downstream/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    Box::leak(text.into_boxed_str())
}

struct Fakes {
    profile: Fake,
    orders: Fake,
    recommendations: Fake,
}

async fn fakes(profile: Behaviour, orders: Behaviour, recommendations: Behaviour) -> Fakes {
    Fakes {
        profile: fake("profile", profile).await,
        orders: fake("orders", orders).await,
        recommendations: fake("recommendations", recommendations).await,
    }
}

fn answering() -> [Behaviour; 3] {
    ["profile", "orders", "recommendations"].map(|name| Behaviour::Answer(downstream_body(name)))
}

async fn service(fakes: &Fakes, timeout_ms: &str) -> common::Server {
    common::start(&[
        ("PROFILE_URL", &fakes.profile.url),
        ("ORDERS_URL", &fakes.orders.url),
        ("RECOMMENDATIONS_URL", &fakes.recommendations.url),
        ("DOWNSTREAM_TIMEOUT_MS", timeout_ms),
    ])
    .await
}

/// The aggregate the contract asks for, computed from the stubs' bodies.
fn expected_aggregate(user_id: u64) -> Value {
    let body = |name| serde_json::from_str::<Value>(downstream_body(name)).expect("downstream body is JSON");
    let orders = body("orders")["orders"].clone();
    let total: i64 = orders.as_array().unwrap().iter().map(|o| o["totalCents"].as_i64().unwrap()).sum();
    json!({
        "userId": user_id,
        "profile": body("profile"),
        "recentOrders": orders,
        "orderCount": orders.as_array().unwrap().len(),
        "totalSpentCents": total,
        "recommendations": body("recommendations")["items"],
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aggregates_three_answers_on_kept_alive_connections() {
    let [p, o, r] = answering();
    let fakes = fakes(p, o, r).await;
    let server = service(&fakes, "5000").await;
    let mut client = server.client().await;
    for _ in 0..5 {
        let answer = client.get("/api/dashboard/42").await;
        answer.check_framing("dashboard");
        assert_eq!(answer.status, 200, "{}", answer.text());
        assert_eq!(answer.json(), expected_aggregate(42));
    }
    for fake in [&fakes.profile, &fakes.orders, &fakes.recommendations] {
        assert_eq!(
            fake.connections.load(Ordering::SeqCst),
            1,
            "{}: one pooled connection for 5 sequential calls",
            fake.url
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_downstream_is_a_502_naming_it() {
    let [p, _, r] = answering();
    let fakes = fakes(p, Behaviour::Status(500), r).await;
    let server = service(&fakes, "5000").await;
    let answer = server.client().await.get("/api/dashboard/42").await;
    answer.check_framing("502");
    assert_eq!(answer.status, 502);
    assert_eq!(answer.json(), json!({"error": "downstream failed", "downstream": "orders", "reason": "status 500"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_that_is_not_the_expected_json_is_a_502() {
    let [p, o, _] = answering();
    let fakes = fakes(p, o, Behaviour::Answer(r#"{"items": {"not": "an array"}}"#)).await;
    let server = service(&fakes, "5000").await;
    let answer = server.client().await.get("/api/dashboard/42").await;
    assert_eq!(
        (answer.status, answer.json()["downstream"].clone()),
        (502, "recommendations".into()),
        "{}",
        answer.text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_downstream_past_the_deadline_is_a_502_timeout() {
    let [_, o, r] = answering();
    let fakes = fakes(Behaviour::Hang(Duration::from_secs(30)), o, r).await;
    let server = service(&fakes, "300").await;
    let started = Instant::now();
    let answer = server.client().await.get("/api/dashboard/7").await;
    let took = started.elapsed();
    assert_eq!(
        answer.json(),
        json!({"error": "downstream failed", "downstream": "profile", "reason": "timeout after 300 ms"})
    );
    assert_eq!(answer.status, 502);
    // The deadline, not the 30 s hang (wide bounds: the host is busy).
    assert!(took >= Duration::from_millis(290) && took < Duration::from_secs(15), "took {took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_failure_cancels_the_other_calls() {
    // Profile and recommendations hang far past everything; orders fails at
    // once: the 502 must not wait for the hanging calls nor the 20 s deadline.
    let hang = Behaviour::Hang(Duration::from_secs(60));
    let fakes = fakes(hang.clone(), Behaviour::Status(503), hang).await;
    let server = service(&fakes, "20000").await;
    let started = Instant::now();
    let answer = server.client().await.get("/api/dashboard/7").await;
    let took = started.elapsed();
    assert_eq!((answer.status, answer.json()["downstream"].clone()), (502, "orders".into()));
    assert!(took < Duration::from_secs(10), "took {took:?}: the failure did not cancel the other calls");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_connections_are_a_502_and_bad_ids_a_404() {
    let closed = format!("http://{}", std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap());
    let server =
        common::start(&[("PROFILE_URL", &closed), ("ORDERS_URL", &closed), ("RECOMMENDATIONS_URL", &closed)]).await;
    let mut client = server.client().await;
    let answer = client.get("/api/dashboard/42").await;
    let body = answer.json();
    assert_eq!(answer.status, 502, "{body}");
    assert!(["profile", "orders", "recommendations"].contains(&body["downstream"].as_str().unwrap_or("")), "{body}");
    assert!(body["reason"].as_str().is_some_and(|r| r.contains("request failed")), "{body}");
    for path in ["/api/dashboard/042", "/api/dashboard/0", "/api/dashboard/abc", "/api/dashboard/-1"] {
        assert_eq!(client.get(path).await.status, 404, "{path}");
    }
    let post = client.request("POST", "/api/dashboard/42", b"").await;
    assert_eq!((post.status, post.headers.get("allow").map(String::as_str)), (405, Some("GET,HEAD")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_downstreams_the_dashboard_is_a_503() {
    let server = common::start(&[]).await;
    let answer = server.client().await.get("/api/dashboard/42").await;
    answer.check_framing("503");
    assert_eq!((answer.status, answer.json()["error"].clone()), (503, "no downstreams configured".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_dashboard_case_against_the_stubs() {
    let Some(deps) = common::deps("dashboard vectors") else { return };
    let server = common::start(&[
        ("PROFILE_URL", &deps.profile_url),
        ("ORDERS_URL", &deps.orders_url),
        ("RECOMMENDATIONS_URL", &deps.recommendations_url),
        ("DOWNSTREAM_TIMEOUT_MS", "1000"),
    ])
    .await;
    let vectors = common::vectors();
    let cases = vectors["dashboard"]["cases"].as_array().expect("dashboard cases");
    let mut client = server.client().await;
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let method = case.get("method").and_then(Value::as_str).unwrap_or("GET");
        let path = case["path"].as_str().expect("path");
        let answer = client.request(method, path, b"").await;
        answer.check_framing(name);
        assert_eq!(answer.status as u64, case["status"].as_u64().unwrap(), "{name}: {}", answer.text());
        let got = answer.json();
        if let Some(expected) = case.get("response").and_then(Value::as_object) {
            for (key, value) in expected {
                assert_eq!(&got[key], value, "{name}: {key}");
            }
        }
    }
    assert!(cases.len() >= 5, "only {} cases", cases.len());
}
