//! The `runner` contract service (see `../CONTRACT.md`) on axum + tokio.
//!
//! `main.rs` only reads the environment, builds the tokio runtime and calls
//! [`serve`]; everything a request touches lives in this crate so the tests
//! drive the very same router over a real socket. The microservices
//! scenarios live in their own modules: [`orders`] (the order API, with a
//! typed fast path for valid orders in `orders_fast`),
//! [`products`] (CRUD on PostgreSQL), [`dashboard`] (the fan-out), with the
//! request-body rules they share in [`body_rules`] and their environment in
//! [`scenario_settings`].
//!
//! The release profile uses `panic = "abort"`: a panic in a handler would kill
//! the whole service. No handler path indexes, unwraps or allocates an
//! unbounded amount from request input (sizes are checked before any
//! allocation), so bad input can only produce a 4xx answer.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Instant;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use serde::Serialize;

pub mod body_rules;
pub mod dashboard;
pub mod metrics;
pub mod orders;
mod orders_fast;
pub mod products;
pub mod scenario_settings;
pub mod transport;

use scenario_settings::ScenarioSettings;
pub use transport::Transport;

/// Largest accepted `size` for `/api/generated/{size}`.
pub const MAX_SIZE: u32 = 1_048_576;
/// `language` in every answer.
pub const LANGUAGE: &str = "rust";
/// The rustc that built this binary (`rustc --version`, captured by build.rs).
pub const RUNTIME: &str = env!("RUSTC_VERSION");
/// `runtimeInfo.serverModel`.
pub const SERVER_MODEL: &str = "tokio multi-thread";
/// `runtimeInfo.parallelismSource`.
pub const PARALLELISM_SOURCE: &str = "TOKIO_WORKERS";

const APPLICATION_JSON: HeaderValue = HeaderValue::from_static("application/json");

const READY_BODY: &str = r#"{"status":"READY"}"#;
const NOT_FOUND_BODY: &str = r#"{"error":"not found"}"#;
const METHOD_NOT_ALLOWED_BODY: &str = r#"{"error":"method not allowed"}"#;
const SIZE_NOT_INTEGER_BODY: &str = r#"{"error":"size must be a decimal integer"}"#;
const SIZE_OUT_OF_RANGE_BODY: &str = r#"{"error":"size must be between 1 and 1048576"}"#;
const VALUE_NOT_UTF8_BODY: &str = r#"{"error":"value must be valid percent-encoded UTF-8"}"#;
const INTERNAL_ERROR_BODY: &str = r#"{"error":"internal error"}"#;

// ---------------------------------------------------------------------------
// Settings (environment)
// ---------------------------------------------------------------------------

/// Everything the service reads from the environment, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// `HOST` (extension, default 127.0.0.1).
    pub host: IpAddr,
    /// `PORT` (default 8080; 0 picks a free port).
    pub port: u16,
    /// `WORK_FACTOR` (integer >= 1, default 1).
    pub work_factor: u32,
    /// `LOG_REQUESTS` (true/false, default false).
    pub log_requests: bool,
    /// `METRICS` (true/false, default false): count every request, serve /metrics.
    pub metrics: bool,
    /// `TOKIO_WORKERS` (integer >= 1, default = `cpus`).
    pub workers: usize,
    /// CPUs this process may use (`std::thread::available_parallelism`,
    /// which honours the affinity mask and cgroup CPU quota).
    pub cpus: usize,
    /// The microservices scenarios: database, pool, downstreams, deadline.
    pub scenarios: ScenarioSettings,
    /// `TLS_CERT_FILE`, `TLS_KEY_FILE`, `HTTP2`: TLS, h2c or plain (default).
    pub transport: Transport,
}

impl Settings {
    /// Reads the process environment.
    pub fn from_env() -> Result<Self, String> {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self::from_lookup(|name| std::env::var(name).ok(), cpus)
    }

    /// Validates settings from any lookup (tests pass a map). An empty value
    /// counts as unset; any other invalid value is an error, never a default.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>, cpus: usize) -> Result<Self, String> {
        let get = |name: &str| get(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let host = match get("HOST") {
            None => IpAddr::V4(Ipv4Addr::LOCALHOST),
            Some(v) => v.parse().map_err(|_| format!("HOST={v:?} is not an IP address"))?,
        };
        let port = match get("PORT") {
            None => 8080,
            Some(v) => v.parse::<u16>().map_err(|_| format!("PORT={v:?} is not a port number (0-65535)"))?,
        };
        let work_factor = match get("WORK_FACTOR") {
            None => 1,
            Some(v) => match v.parse::<u32>() {
                Ok(n) if n >= 1 => n,
                _ => return Err(format!("WORK_FACTOR={v:?} must be an integer >= 1")),
            },
        };
        let flag = |name: &str| match get(name) {
            None => Ok(false),
            Some(v) => match v.to_ascii_lowercase().as_str() {
                "true" | "1" => Ok(true),
                "false" | "0" => Ok(false),
                _ => Err(format!("{name}={v:?} must be true or false")),
            },
        };
        let log_requests = flag("LOG_REQUESTS")?;
        let metrics = flag("METRICS")?;
        let workers = match get("TOKIO_WORKERS") {
            None => cpus,
            Some(v) => match v.parse::<usize>() {
                Ok(n) if (1..=4096).contains(&n) => n,
                _ => return Err(format!("TOKIO_WORKERS={v:?} must be an integer between 1 and 4096")),
            },
        };
        let scenarios = ScenarioSettings::from_lookup(get)?;
        let transport = Transport::from_lookup(get)?;
        Ok(Settings { host, port, work_factor, log_requests, metrics, workers, cpus, scenarios, transport })
    }
}

// ---------------------------------------------------------------------------
// The work
// ---------------------------------------------------------------------------

/// The result of the contract's work on one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Work {
    pub uppercase: String,
    pub lowercase: String,
    pub reversed: String,
    pub hash: u32,
    pub work_score: u32,
}

/// The contract's work: ASCII-only case mapping, code-point reversal, CRC-32
/// of the input, and one CRC-32 over `uppercase + lowercase + reversed`
/// repeated `work_factor` times (the stream is fed piecewise to one hasher,
/// which is the same CRC as hashing the concatenation, without building it).
pub fn work(input: &str, work_factor: u32) -> Work {
    let uppercase = input.to_ascii_uppercase();
    let lowercase = input.to_ascii_lowercase();
    let mut reversed = String::with_capacity(input.len());
    reversed.extend(input.chars().rev());
    let hash = crc32fast::hash(input.as_bytes());
    let mut hasher = crc32fast::Hasher::new();
    for _ in 0..work_factor {
        hasher.update(uppercase.as_bytes());
        hasher.update(lowercase.as_bytes());
        hasher.update(reversed.as_bytes());
    }
    Work { uppercase, lowercase, reversed, hash, work_score: hasher.finalize() }
}

/// The input of `/api/generated/{size}`: "Helidon" for 7, else `size` x's.
pub fn generated_input(size: u32) -> String {
    if size == 7 { "Helidon".to_owned() } else { "x".repeat(size as usize) }
}

/// Why a `size` path segment was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeError {
    /// Empty, or a character other than an ASCII digit (signs, dots, spaces).
    NotInteger,
    /// A decimal integer outside 1..=1,048,576 (including overflowing ones).
    OutOfRange,
}

/// Parses `size`: ASCII digits only (leading zeros allowed), 1..=MAX_SIZE.
pub fn parse_size(s: &str) -> Result<u32, SizeError> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(SizeError::NotInteger);
    }
    match s.parse::<u32>() {
        Ok(n) if (1..=MAX_SIZE).contains(&n) => Ok(n),
        _ => Err(SizeError::OutOfRange), // only overflow can fail on all-digit input
    }
}

// ---------------------------------------------------------------------------
// State and answers
// ---------------------------------------------------------------------------

/// `runtimeInfo` in `/health` and in every work answer.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeInfo {
    pub cpus: usize,
    pub parallelism: usize,
    pub parallelism_source: &'static str,
    /// No runtime-level memory limit in Rust: always null.
    pub memory_limit: Option<String>,
    pub server_model: &'static str,
    /// `"off"` or the TLS library (CONTRACT.md, "TLS and HTTP/2").
    pub tls: &'static str,
    /// The protocols served on PORT.
    pub protocols: &'static [&'static str],
}

/// Shared, immutable per-process state. Leaked once at start so handlers get
/// a `&'static` (no reference counting on the hot path).
#[derive(Debug)]
pub struct AppState {
    pub work_factor: u32,
    pub log_requests: bool,
    pub runtime_info: RuntimeInfo,
    /// How [`serve`] serves the router.
    pub transport: Transport,
    health_body: Bytes,
    /// The registry when `METRICS=true`.
    pub metrics: Option<metrics::Metrics>,
    /// The products pool when `DATABASE_URL` is set.
    pub products: Option<products::ProductStore>,
    /// The fan-out's client when the downstream URLs are set.
    pub dashboard: Option<dashboard::Fanout>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Health<'a> {
    status: &'static str,
    language: &'static str,
    runtime: &'static str,
    runtime_info: &'a RuntimeInfo,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WorkAnswer<'a> {
    input: &'a str,
    uppercase: &'a str,
    lowercase: &'a str,
    reversed: &'a str,
    hash: u32,
    work_factor: u32,
    work_score: u32,
    runtime: &'static str,
    language: &'static str,
    log_enabled: bool,
    runtime_info: &'a RuntimeInfo,
}

impl AppState {
    /// Builds the state for `settings` (the health answer is serialised once).
    pub fn new(settings: &Settings) -> AppState {
        let runtime_info = RuntimeInfo {
            cpus: settings.cpus,
            parallelism: settings.workers,
            parallelism_source: PARALLELISM_SOURCE,
            memory_limit: None,
            server_model: SERVER_MODEL,
            tls: settings.transport.tls_name(),
            protocols: settings.transport.protocols(),
        };
        let health = Health { status: "UP", language: LANGUAGE, runtime: RUNTIME, runtime_info: &runtime_info };
        let health_body = Bytes::from(serde_json::to_vec(&health).unwrap_or_else(|_| b"{\"status\":\"UP\"}".to_vec()));
        AppState {
            work_factor: settings.work_factor,
            log_requests: settings.log_requests,
            runtime_info,
            transport: settings.transport.clone(),
            health_body,
            metrics: settings.metrics.then(metrics::Metrics::new),
            products: settings
                .scenarios
                .database
                .clone()
                .map(|config| products::ProductStore::new(config, settings.scenarios.db_pool_size)),
            dashboard: settings
                .scenarios
                .downstreams
                .clone()
                .map(|urls| dashboard::Fanout::new(urls, settings.scenarios.downstream_timeout)),
        }
    }

    /// [`AppState::new`], leaked to `'static` (one per process; tests leak a few).
    pub fn leak(settings: &Settings) -> &'static AppState {
        Box::leak(Box::new(AppState::new(settings)))
    }
}

/// Input size in bytes of a work request, attached to the response only when
/// request logging is on, for the log line.
#[derive(Debug, Clone, Copy)]
struct InputSize(usize);

fn json(status: StatusCode, body: impl Into<Body>) -> Response {
    let mut response = Response::new(body.into());
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, APPLICATION_JSON);
    response
}

fn static_json(status: StatusCode, body: &'static str) -> Response {
    json(status, Body::from(body))
}

/// `value` serialised as the body of a `status` answer (a 500 in the
/// impossible case that serde_json refuses it).
fn serialized(status: StatusCode, value: &impl Serialize) -> Response {
    match serde_json::to_vec(value) {
        Ok(body) => json(status, body),
        Err(_) => static_json(StatusCode::INTERNAL_SERVER_ERROR, INTERNAL_ERROR_BODY),
    }
}

fn answer(state: &AppState, input: &str) -> Response {
    let w = work(input, state.work_factor);
    let body = WorkAnswer {
        input,
        uppercase: &w.uppercase,
        lowercase: &w.lowercase,
        reversed: &w.reversed,
        hash: w.hash,
        work_factor: state.work_factor,
        work_score: w.work_score,
        runtime: RUNTIME,
        language: LANGUAGE,
        log_enabled: state.log_requests,
        runtime_info: &state.runtime_info,
    };
    // Four copies of the input plus the fixed fields; escaping (strings
    // endpoint only) may grow it, which Vec handles.
    let mut buf = Vec::with_capacity(4 * input.len() + 384);
    if serde_json::to_writer(&mut buf, &body).is_err() {
        return static_json(StatusCode::INTERNAL_SERVER_ERROR, INTERNAL_ERROR_BODY);
    }
    let mut response = json(StatusCode::OK, buf);
    if state.log_requests {
        response.extensions_mut().insert(InputSize(input.len()));
    }
    response
}

// ---------------------------------------------------------------------------
// Handlers
// ---------------------------------------------------------------------------

async fn health(State(state): State<&'static AppState>) -> Response {
    json(StatusCode::OK, state.health_body.clone())
}

async fn ready() -> Response {
    static_json(StatusCode::OK, READY_BODY)
}

async fn generated(State(state): State<&'static AppState>, size: Result<Path<String>, PathRejection>) -> Response {
    let Ok(Path(size)) = size else {
        return static_json(StatusCode::BAD_REQUEST, SIZE_NOT_INTEGER_BODY);
    };
    match parse_size(&size) {
        Ok(n) => answer(state, &generated_input(n)),
        Err(SizeError::NotInteger) => static_json(StatusCode::BAD_REQUEST, SIZE_NOT_INTEGER_BODY),
        Err(SizeError::OutOfRange) => static_json(StatusCode::BAD_REQUEST, SIZE_OUT_OF_RANGE_BODY),
    }
}

async fn strings(State(state): State<&'static AppState>, value: Result<Path<String>, PathRejection>) -> Response {
    match value {
        Ok(Path(value)) => answer(state, &value),
        Err(_) => static_json(StatusCode::BAD_REQUEST, VALUE_NOT_UTF8_BODY),
    }
}

async fn not_found() -> Response {
    static_json(StatusCode::NOT_FOUND, NOT_FOUND_BODY)
}

/// The JSON 405; axum adds the route's own `Allow` header (`GET,HEAD`,
/// `POST`, `GET,HEAD,PUT`, ...) to it.
async fn method_not_allowed() -> Response {
    static_json(StatusCode::METHOD_NOT_ALLOWED, METHOD_NOT_ALLOWED_BODY)
}

/// One `tracing` line per request (installed only with LOG_REQUESTS=true, so
/// the default configuration pays nothing for it).
async fn log_request(request: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let response = next.run(request).await;
    let elapsed = start.elapsed();
    let status = response.status().as_u16();
    match response.extensions().get::<InputSize>() {
        Some(InputSize(size)) => tracing::info!(%method, %path, size, status, ?elapsed, "request"),
        None => tracing::info!(%method, %path, status, ?elapsed, "request"),
    }
    response
}

/// The service's router: the four endpoints, the three microservices
/// scenarios, JSON 404 and JSON 405. GET routes also answer HEAD (axum's default).
pub fn router(state: &'static AppState) -> Router {
    let router = Router::new()
        .route("/health", get(health))
        .route("/ready", get(ready))
        .route("/api/generated/{size}", get(generated))
        .route("/api/strings/{value}", get(strings))
        .route("/api/orders/calculate", post(orders::calculate))
        .route("/api/products", get(products::list).post(products::create))
        .route("/api/products/{id}", get(products::read).put(products::update))
        .route("/api/dashboard/{user_id}", get(dashboard::dashboard))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state);
    let router = if state.log_requests { router.layer(middleware::from_fn(log_request)) } else { router };
    match &state.metrics {
        // The counting layer wraps every route above; /metrics is added after
        // it, so reading the metrics is not counted.
        Some(metrics) => router
            .layer(middleware::from_fn_with_state(metrics, metrics::count_request))
            .route("/metrics", get(metrics::metrics_page).with_state(metrics)),
        None => router,
    }
}

/// Serves `state` on `listener` (HTTP/1.1 keep-alive, TCP_NODELAY on every
/// accepted socket; TLS or h2c as `state.transport` says) until `shutdown`
/// completes, then drains in-flight requests.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: &'static AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let tls = match &state.transport {
        Transport::Plain => {
            let listener = listener.tap_io(|tcp| {
                // Failure here is harmless (the socket still works, just with Nagle).
                let _ = tcp.set_nodelay(true);
            });
            return axum::serve(listener, router(state)).with_graceful_shutdown(shutdown).await;
        }
        Transport::H2c => None,
        Transport::Tls(config) => Some(config.clone()),
    };
    transport::serve_auto(listener, router(state), tls, shutdown).await
}
