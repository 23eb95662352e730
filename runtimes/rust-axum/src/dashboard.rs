//! `GET /api/dashboard/{userId}` (../CONTRACT.md, "Microservices"): the
//! fan-out to three downstreams, in parallel, under one deadline.
//!
//! Concurrency: `tokio::try_join!` over the three calls, in the handler's
//! own task (no spawn). It returns on the first error and drops the other
//! two futures, which cancels their requests (hyper closes those
//! connections), so a 502 takes no longer than the failing call. The
//! deadline is one `Instant` (now + `DOWNSTREAM_TIMEOUT_MS`) shared by the
//! three calls through `tokio::time::timeout_at`: the same single deadline
//! as a `timeout` around the whole join, but the call that runs out of time
//! is the one that fails, so the 502 can name it.
//!
//! Client: hyper-util's legacy `Client` (hyper's own pooled client, on the
//! hyper and http crates axum already brings) over an `HttpConnector` with
//! `TCP_NODELAY`, HTTP/1.1 keep-alive, idle connections kept per host.
//! reqwest would add its own stack (tower layers, url, redirect and proxy
//! handling) for three GETs to fixed 127.0.0.1 URLs; nothing of it is needed.
//!
//! The answers are checked inside each call (a body that is not the
//! expected JSON fails that call at once, like a 500 would) and passed on
//! as received (`RawValue`: the bytes the downstream sent, not re-encoded).

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::time::Instant;

use crate::AppState;
use crate::body_rules;
use crate::scenario_settings::DownstreamUrls;

/// Largest downstream answer read (the stubs send a few hundred bytes).
pub const MAX_DOWNSTREAM_BODY: usize = 1 << 20;
/// How long an idle keep-alive connection to a downstream is kept.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(90);

const NO_DOWNSTREAMS_BODY: &str = r#"{"error":"no downstreams configured"}"#;
const NOT_FOUND_BODY: &str = r#"{"error":"not found"}"#;

/// One of the three downstreams, as a 502 names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Downstream {
    Profile,
    Orders,
    Recommendations,
}

impl Downstream {
    pub fn as_str(self) -> &'static str {
        match self {
            Downstream::Profile => "profile",
            Downstream::Orders => "orders",
            Downstream::Recommendations => "recommendations",
        }
    }
}

/// Why a downstream call failed (the 502's `reason`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureReason {
    /// No answer before the fan-out's deadline.
    Timeout(Duration),
    /// An answer with a status other than 2xx.
    Status(u16),
    /// No answer at all: refused, reset, closed.
    Request(String),
    /// A 2xx whose body is not the expected JSON (or is too large).
    Body(String),
}

impl std::fmt::Display for FailureReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FailureReason::Timeout(after) => write!(f, "timeout after {} ms", after.as_millis()),
            FailureReason::Status(status) => write!(f, "status {status}"),
            FailureReason::Request(why) => write!(f, "request failed: {why}"),
            FailureReason::Body(why) => write!(f, "unexpected answer: {why}"),
        }
    }
}

/// A failed call: which downstream and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub downstream: Downstream,
    pub reason: FailureReason,
}

/// The fan-out's client and targets (one per process).
#[derive(Debug)]
pub struct Fanout {
    client: Client<HttpConnector, Empty<Bytes>>,
    urls: DownstreamUrls,
    timeout: Duration,
}

/// The dashboard's answer, members in the contract's order.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Aggregate {
    pub user_id: i64,
    /// The profile answer, as received.
    pub profile: Box<RawValue>,
    /// The orders answer's `orders` array, as received.
    pub recent_orders: Box<RawValue>,
    pub order_count: usize,
    pub total_spent_cents: i64,
    /// The recommendations answer's `items` array, as received.
    pub recommendations: Box<RawValue>,
}

/// The orders answer: its `orders` array as received, plus what the
/// dashboard adds up.
struct OrdersSummary {
    orders: Box<RawValue>,
    count: usize,
    total_cents: i64,
}

impl Fanout {
    /// The pooled keep-alive client for `urls`, with `timeout` for the whole fan-out.
    pub fn new(urls: DownstreamUrls, timeout: Duration) -> Fanout {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(IDLE_TIMEOUT)
            .pool_timer(TokioTimer::new())
            .build(connector);
        Fanout { client, urls, timeout }
    }

    /// The three calls in parallel; the first failure ends the others.
    pub async fn dashboard(&self, user_id: i64) -> Result<Aggregate, Failure> {
        let deadline = Instant::now() + self.timeout;
        let profile = self.call(Downstream::Profile, &self.urls.profile, "profile", user_id, deadline, |body| {
            let profile: Box<RawValue> = serde_json::from_slice(body).map_err(|e| e.to_string())?;
            if profile.get().starts_with('{') { Ok(profile) } else { Err("the profile is not a JSON object".into()) }
        });
        let orders = self.call(Downstream::Orders, &self.urls.orders, "orders", user_id, deadline, summarize_orders);
        let recommendations = self.call(
            Downstream::Recommendations,
            &self.urls.recommendations,
            "recommendations",
            user_id,
            deadline,
            |body| {
                #[derive(Deserialize)]
                struct Recommendations {
                    items: Box<RawValue>,
                }
                let answer: Recommendations = serde_json::from_slice(body).map_err(|e| e.to_string())?;
                if answer.items.get().starts_with('[') { Ok(answer.items) } else { Err("items is not an array".into()) }
            },
        );
        let (profile, orders, recommendations) = tokio::try_join!(profile, orders, recommendations)?;
        Ok(Aggregate {
            user_id,
            profile,
            recent_orders: orders.orders,
            order_count: orders.count,
            total_spent_cents: orders.total_cents,
            recommendations,
        })
    }

    /// `GET {base}/{route}/{user_id}` before `deadline`, its 2xx body read
    /// whole and checked by `parse`.
    async fn call<T>(
        &self,
        downstream: Downstream,
        base: &str,
        route: &str,
        user_id: i64,
        deadline: Instant,
        parse: impl FnOnce(&[u8]) -> Result<T, String>,
    ) -> Result<T, Failure> {
        let fail = |reason| Failure { downstream, reason };
        let uri: Uri = format!("{base}/{route}/{user_id}")
            .parse()
            .map_err(|e: axum::http::uri::InvalidUri| fail(FailureReason::Request(e.to_string())))?;
        let exchange = async {
            let response = self.client.get(uri).await.map_err(|e| FailureReason::Request(describe(&e)))?;
            if !response.status().is_success() {
                return Err(FailureReason::Status(response.status().as_u16()));
            }
            let body = Limited::new(response.into_body(), MAX_DOWNSTREAM_BODY)
                .collect()
                .await
                .map_err(|e| FailureReason::Request(format!("reading the body: {e}")))?
                .to_bytes();
            parse(&body).map_err(FailureReason::Body)
        };
        match tokio::time::timeout_at(deadline, exchange).await {
            Ok(result) => result.map_err(fail),
            Err(_) => Err(fail(FailureReason::Timeout(self.timeout))),
        }
    }
}

/// The client's error with its cause (`client error (Connect): tcp connect
/// error: Connection refused`).
fn describe(err: &hyper_util::client::legacy::Error) -> String {
    use std::error::Error;
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// `{"orders": [{"totalCents": <integer>, ...}, ...]}`: the array as
/// received, its length and the sum of its `totalCents`.
fn summarize_orders(body: &[u8]) -> Result<OrdersSummary, String> {
    #[derive(Deserialize)]
    struct Orders {
        orders: Box<RawValue>,
    }
    #[derive(Deserialize)]
    struct OrderTotal {
        #[serde(rename = "totalCents")]
        total_cents: i64,
    }
    let answer: Orders = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    let totals: Vec<OrderTotal> = serde_json::from_str(answer.orders.get()).map_err(|e| format!("orders: {e}"))?;
    let total_cents = totals
        .iter()
        .try_fold(0i64, |sum, order| sum.checked_add(order.total_cents))
        .ok_or("the orders' totalCents overflow")?;
    Ok(OrdersSummary { orders: answer.orders, count: totals.len(), total_cents })
}

/// `GET /api/dashboard/{userId}`: 200 with the aggregate, 404 for an id that
/// is not canonical, 502 naming the failed downstream, 503 unconfigured.
pub async fn dashboard(
    State(state): State<&'static AppState>,
    user_id: Result<Path<String>, PathRejection>,
) -> Response {
    #[derive(Serialize)]
    struct DownstreamFailed<'a> {
        error: &'static str,
        downstream: &'static str,
        reason: &'a str,
    }
    let Some(fanout) = &state.dashboard else {
        return crate::static_json(StatusCode::SERVICE_UNAVAILABLE, NO_DOWNSTREAMS_BODY);
    };
    let Some(user_id) = user_id.ok().and_then(|Path(id)| body_rules::canonical_id(&id)) else {
        return crate::static_json(StatusCode::NOT_FOUND, NOT_FOUND_BODY);
    };
    match fanout.dashboard(user_id).await {
        Ok(aggregate) => crate::serialized(StatusCode::OK, &aggregate),
        Err(failure) => {
            let reason = failure.reason.to_string();
            let answer = DownstreamFailed {
                error: "downstream failed",
                downstream: failure.downstream.as_str(),
                reason: &reason,
            };
            crate::serialized(StatusCode::BAD_GATEWAY, &answer)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_are_counted_and_summed_as_received() {
        let body = br#"{"orders": [{"id": "O-1", "totalCents": 2599, "status": "delivered"}, {"totalCents": 1}]}"#;
        let summary = summarize_orders(body).unwrap();
        assert_eq!((summary.count, summary.total_cents), (2, 2600));
        assert!(summary.orders.get().starts_with(r#"[{"id": "O-1""#), "{}", summary.orders.get());
        for bad in [&b"{}"[..], b"{\"orders\": {}}", b"{\"orders\": [{\"totalCents\": 1.5}]}", b"[]", b"<html>"] {
            assert!(summarize_orders(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn reasons_read_as_the_contract_shows_them() {
        assert_eq!(FailureReason::Timeout(Duration::from_millis(1000)).to_string(), "timeout after 1000 ms");
        assert_eq!(FailureReason::Status(500).to_string(), "status 500");
    }
}
