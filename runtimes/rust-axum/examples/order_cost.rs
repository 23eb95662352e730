//! Prints what the order API's own work costs, per order, in-process (no
//! HTTP), for the vectors named on the command line (default: `simple-eu`,
//! `many-lines`, `largest`, `invalid-everything`) of
//! ../contract/microservices.json:
//!
//! - `handler us`: `orders::answer`, the handler's work (a valid order on the
//!   typed fast path, anything else through the `Value` walk);
//! - `value path us`: the `Value` walk alone (parse into a `serde_json::Value`,
//!   validate, then price and serialise, or build the 422), what every order
//!   would cost without the fast path;
//! - `typed parse us`: only parsing the body into derived structs, for scale
//!   (`-` where the typed parse refuses the body).
//!
//!     cargo run --release --example order_cost [-- NAME ...]
//!
//! A figure to read, not a test: on a busy host it varies from run to run.

use std::hint::black_box;
use std::time::{Duration, Instant};

use rust_axum_service::{body_rules, orders};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // parsed for its cost only
struct TypedOrder<'a> {
    order_id: &'a str,
    #[serde(borrow)]
    customer: TypedCustomer<'a>,
    #[serde(borrow)]
    items: Vec<TypedItem<'a>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct TypedCustomer<'a> {
    id: &'a str,
    region: &'a str,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct TypedItem<'a> {
    sku: &'a str,
    quantity: i64,
    unit_price_cents: i64,
    discount_code: Option<&'a str>,
}

fn typed(body: &[u8]) -> bool {
    serde_json::from_slice::<TypedOrder<'_>>(body).is_ok()
}

/// Seconds per call of `f` on `body`, timed over at least one second.
fn seconds_per_call<T>(body: &[u8], f: impl Fn(&[u8]) -> T) -> f64 {
    for _ in 0..1000 {
        black_box(f(black_box(body)));
    }
    let (mut n, started) = (0u64, Instant::now());
    while started.elapsed() < Duration::from_secs(1) {
        for _ in 0..100 {
            black_box(f(black_box(body)));
        }
        n += 100;
    }
    started.elapsed().as_secs_f64() / n as f64
}

/// The `Value` walk alone; returns the answer's length.
fn value_path(body: &[u8]) -> usize {
    let Ok(value) = body_rules::parse(body) else { return 0 };
    match orders::validate(&value) {
        Ok(order) => serde_json::to_vec(&orders::price(&order)).map_or(0, |v| v.len()),
        Err(invalid) => invalid.into_response().status().as_u16() as usize,
    }
}

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../contract/microservices.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    let vectors: Value = serde_json::from_str(&text).expect("microservices.json is JSON");
    let mut names: Vec<String> = std::env::args().skip(1).collect();
    if names.is_empty() {
        names = ["simple-eu", "many-lines", "largest", "invalid-everything"].map(String::from).into();
    }
    println!(
        "{:<22} {:>7} {:>11} {:>11} {:>14} {:>15}",
        "vector", "bytes", "handler us", "orders/s", "value path us", "typed parse us"
    );
    for name in names {
        let Some(case) = vectors["orders"].as_array().and_then(|c| c.iter().find(|c| c["name"] == name.as_str()))
        else {
            eprintln!("order_cost: no orders vector named {name:?} in {path}");
            std::process::exit(2);
        };
        let body = case["body"].as_str().expect("body").as_bytes();
        let per = seconds_per_call(body, |b| orders::answer(b).status());
        let value = seconds_per_call(body, value_path);
        let typed_parse =
            if typed(body) { format!("{:.2}", seconds_per_call(body, typed) * 1e6) } else { "-".to_owned() };
        println!(
            "{name:<22} {:>7} {:>11.2} {:>11.0} {:>14.2} {typed_parse:>15}",
            body.len(),
            per * 1e6,
            1.0 / per,
            value * 1e6
        );
    }
}
