//! `METRICS=true`: every request counted and timed in a Prometheus registry
//! (the `prometheus` crate), exposed in the text format on `GET /metrics`.
//! With `false` nothing is registered and no layer is installed, so the
//! default configuration pays nothing, like the study's metrics-off variant.

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use prometheus::{Encoder, HistogramOpts, HistogramVec, IntCounterVec, Opts, Registry, TextEncoder};

/// The route label of a request no route matched (404s, bad paths).
const UNMATCHED: &str = "none";

/// The service's registry with its request counter and latency histogram.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: IntCounterVec,
    latency: HistogramVec,
}

impl Metrics {
    /// A fresh registry with `http_requests_total{route,status}` and
    /// `http_request_duration_seconds{route}`.
    pub fn new() -> Metrics {
        let registry = Registry::new();
        let requests = IntCounterVec::new(
            Opts::new("http_requests_total", "Requests served, by route pattern and status."),
            &["route", "status"],
        )
        .expect("static metric definition");
        let latency = HistogramVec::new(
            HistogramOpts::new("http_request_duration_seconds", "Time to the response, by route pattern.")
                .buckets(prometheus::exponential_buckets(0.00005, 2.0, 16).expect("static buckets")),
            &["route"],
        )
        .expect("static metric definition");
        registry.register(Box::new(requests.clone())).expect("registered once");
        registry.register(Box::new(latency.clone())).expect("registered once");
        Metrics { registry, requests, latency }
    }

    fn observe(&self, route: &str, status: StatusCode, seconds: f64) {
        self.requests.with_label_values(&[route, status.as_str()]).inc();
        self.latency.with_label_values(&[route]).observe(seconds);
    }

    /// The registry in the Prometheus text exposition format.
    pub fn render(&self) -> Vec<u8> {
        let mut out = Vec::new();
        // Encoding gathered families into a Vec cannot fail.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut out);
        out
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

/// The layer: counts and times every request under its route pattern.
pub async fn count_request(State(metrics): State<&'static Metrics>, request: Request, next: Next) -> Response {
    let start = Instant::now();
    let route = request.extensions().get::<MatchedPath>().map(|p| p.as_str().to_owned());
    let response = next.run(request).await;
    metrics.observe(route.as_deref().unwrap_or(UNMATCHED), response.status(), start.elapsed().as_secs_f64());
    response
}

/// `GET /metrics` (outside the counting layer: reading it is not a request
/// of the contract).
pub async fn metrics_page(State(metrics): State<&'static Metrics>) -> Response {
    let mut response = metrics.render().into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"));
    response
}
