//! CRUD on products. Always: the 503s of a service without a database, with
//! one that refuses connections and with one that never answers (the 5 s
//! acquire limit, not a hang). With ../contract/test-deps.sh started: every
//! `products` step of ../contract/microservices.json in order on a freshly
//! seeded table, and the pool holding DB_POOL_SIZE connections from start.

mod common;

use std::time::{Duration, Instant};

use serde_json::Value;

const ENDPOINTS: [(&str, &str, &str); 4] = [
    ("GET", "/api/products/1", ""),
    ("GET", "/api/products?limit=3", ""),
    ("POST", "/api/products", r#"{"name":"x","priceCents":1,"stock":1}"#),
    ("PUT", "/api/products/1", r#"{"name":"x","priceCents":1,"stock":1}"#),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_database_every_product_endpoint_is_a_503() {
    let server = common::start(&[]).await;
    let mut client = server.client().await;
    for (method, path, body) in ENDPOINTS {
        let answer = client.request(method, path, body.as_bytes()).await;
        answer.check_framing(path);
        assert_eq!(
            (answer.status, answer.json()["error"].clone()),
            (503, "no database configured".into()),
            "{method} {path}"
        );
    }
    assert_eq!(client.get("/health").await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_refuses_connections_is_a_503_and_the_service_stays_up() {
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("postgresql://bench:bench@127.0.0.1:{port}/bench");
    let server = common::start(&[("DATABASE_URL", &url), ("DB_POOL_SIZE", "2")]).await;
    let store = server.state.products.as_ref().expect("store");
    assert!(store.open_all().await.is_err(), "opening the pool against a closed port must fail");
    let mut client = server.client().await;
    for (method, path, body) in ENDPOINTS {
        let answer = client.request(method, path, body.as_bytes()).await;
        assert_eq!(
            (answer.status, answer.json()["error"].clone()),
            (503, "database unavailable".into()),
            "{method} {path}"
        );
    }
    // The body is still checked first on PUT and POST.
    assert_eq!(client.request("POST", "/api/products", b"{}").await.status, 422);
    assert_eq!(client.get("/api/generated/7").await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_never_answers_is_a_503_after_the_acquire_limit_not_a_hang() {
    // Accepts connections and never says a word.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let silent = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let url = format!("postgresql://bench:bench@127.0.0.1:{port}/bench?connect_timeout=30");
    let server = common::start(&[("DATABASE_URL", &url), ("DB_POOL_SIZE", "1")]).await;
    let started = Instant::now();
    let answer = server.client().await.get("/api/products/1").await;
    let took = started.elapsed();
    assert_eq!((answer.status, answer.json()["error"].clone()), (503, "database unavailable".into()));
    // 5 s by the contract; the bounds only say "it waited, then it stopped waiting".
    assert!(took >= Duration::from_secs(4) && took < Duration::from_secs(25), "took {took:?}");
    silent.abort();
}

/// One test, not two: the steps reseed the table, which would race with
/// any other test reading it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_product_step_against_a_fresh_seed_on_a_pool_open_from_the_start() {
    let Some(deps) = common::deps("products vectors") else { return };
    deps.reset_database();
    let name = format!("axum-products-test-{}", std::process::id());
    let url = format!("{}?application_name={name}", deps.database_url);
    let server = common::start(&[("DATABASE_URL", &url), ("DB_POOL_SIZE", "4")]).await;
    assert_eq!(server.open_database().await, 4);
    let (observer, connection) =
        tokio_postgres::connect(&deps.database_url, tokio_postgres::NoTls).await.expect("connect");
    tokio::spawn(connection);
    let open_connections = || async {
        let row = observer
            .query_one("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", &[&name])
            .await
            .expect("count");
        row.get::<_, i64>(0)
    };
    assert_eq!(open_connections().await, 4, "all DB_POOL_SIZE connections open before any request");

    let vectors = common::vectors();
    let steps = vectors["products"].as_array().expect("products");
    let mut client = server.client().await;
    for step in steps {
        let name = step["name"].as_str().expect("name");
        let method = step["method"].as_str().expect("method");
        let path = step["path"].as_str().expect("path");
        let body = step.get("body").and_then(Value::as_str).unwrap_or("");
        let status = step["status"].as_u64().expect("status") as u16;
        let answer = client.request(method, path, body.as_bytes()).await;
        answer.check_framing(name);
        assert_eq!(answer.status, status, "{name}: {method} {path}: {}", answer.text());
        let got = answer.json();
        match status {
            200 | 201 => assert_eq!(got, step["response"], "{name}"),
            422 => assert_eq!(got["invalid"], step["response"]["invalid"], "{name}: {got}"),
            404 if path.starts_with("/api/products/") => assert_eq!(got["error"], "product not found", "{name}"),
            _ => assert!(got["error"].as_str().is_some_and(|e| !e.is_empty()), "{name}: {got}"),
        }
    }
    assert!(steps.len() >= 20, "only {} steps", steps.len());
    assert_eq!(open_connections().await, 4, "the requests reused the pool's connections");
}
