//! METRICS=true: /metrics counts every request once, per route pattern and
//! status, and reading /metrics is not counted; METRICS=false has no /metrics.
use std::collections::HashMap;

use rust_axum_service::{AppState, Settings, serve};
use tokio::io::AsyncReadExt;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

async fn start(metrics: bool) -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let env: HashMap<&str, String> =
        [("PORT", "0".to_string()), ("METRICS", metrics.to_string()), ("TOKIO_WORKERS", "2".to_string())].into();
    let settings = Settings::from_lookup(|k| env.get(k).cloned(), 2).expect("valid settings");
    assert_eq!(settings.metrics, metrics);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve(listener, AppState::leak(&settings), async move {
        let _ = stopped.await;
    }));
    (addr, stop)
}

/// One request on its own connection (`Connection: close`): status and body.
async fn get(addr: std::net::SocketAddr, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    let head = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await.expect("write");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("status line");
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

const MIX: [&str; 7] =
    ["/api/generated/7", "/api/generated/2048", "/api/strings/hello", "/api/generated/0", "/nope", "/health", "/ready"];

/// `http_requests_total{route="...",status="..."} N` lines of the page.
fn counts(page: &str) -> HashMap<String, u64> {
    page.lines()
        .filter(|l| l.starts_with("http_requests_total{"))
        .filter_map(|l| {
            let (labels, n) = l.rsplit_once(' ')?;
            Some((labels.to_string(), n.parse().ok()?))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_is_counted_once_and_reading_metrics_is_not() {
    let (addr, _stop) = start(true).await;
    let rounds = 3;
    for _ in 0..rounds {
        for path in MIX {
            get(addr, path).await;
        }
    }
    let (status, page) = get(addr, "/metrics").await;
    assert_eq!(status, 200);
    let by = counts(&page);
    assert_eq!(by.values().sum::<u64>(), rounds * MIX.len() as u64, "{page}");
    assert_eq!(by[r#"http_requests_total{route="/api/generated/{size}",status="200"}"#], 2 * rounds, "{by:?}");
    assert_eq!(by[r#"http_requests_total{route="/api/generated/{size}",status="400"}"#], rounds, "{by:?}");
    assert_eq!(by[r#"http_requests_total{route="none",status="404"}"#], rounds, "{by:?}");
    assert!(page.contains("http_request_duration_seconds_bucket"), "{page}");
    let (_, again) = get(addr, "/metrics").await;
    assert_eq!(counts(&again).values().sum::<u64>(), rounds * MIX.len() as u64, "/metrics itself is not counted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_metrics_there_is_no_metrics_page() {
    let (addr, _stop) = start(false).await;
    let (status, body) = get(addr, "/metrics").await;
    assert_eq!((status, body.as_str()), (404, r#"{"error":"not found"}"#));
}
