//! The order API: every `orders` vector of ../contract/microservices.json
//! through the real router on one keep-alive connection (a 200's body is
//! compared whole, a 422's `invalid` whole), and what the vectors do not
//! pin: member order, the 405, a body without a Content-Type.

mod common;

use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_order_vector_over_http() {
    let vectors = common::vectors();
    let cases = vectors["orders"].as_array().expect("orders");
    let server = common::start(&[]).await;
    let mut client = server.client().await;
    let mut statuses = std::collections::BTreeMap::new();
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let body = case["body"].as_str().expect("body");
        let status = case["status"].as_u64().expect("status") as u16;
        let answer = client.request("POST", "/api/orders/calculate", body.as_bytes()).await;
        answer.check_framing(name);
        assert_eq!(answer.status, status, "{name}: {}", answer.text());
        let got = answer.json();
        match status {
            200 => assert_eq!(got, case["response"], "{name}"),
            422 => {
                assert_eq!(got["error"], "validation failed", "{name}");
                assert_eq!(got["invalid"], case["response"]["invalid"], "{name}: {got}");
                let details: Vec<&String> = got["details"].as_object().expect("details").keys().collect();
                let invalid: Vec<&str> = got["invalid"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
                assert_eq!(details, invalid, "{name}: details name each invalid field");
            }
            _ => assert!(got["error"].as_str().is_some_and(|e| !e.is_empty()), "{name}: {got}"),
        }
        *statuses.entry(status).or_insert(0) += 1;
    }
    // The vectors cover all three answers, so this test cannot pass on an empty file.
    assert!(statuses.len() == 3 && statuses.values().all(|n| *n >= 4), "{statuses:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answer_keeps_the_contracts_member_order() {
    let vectors = common::vectors();
    let simple = vectors["orders"].as_array().unwrap().iter().find(|c| c["name"] == "simple-eu").expect("simple-eu");
    let server = common::start(&[]).await;
    let answer = server
        .client()
        .await
        .request("POST", "/api/orders/calculate", simple["body"].as_str().unwrap().as_bytes())
        .await;
    let text = answer.text();
    let order = [
        "\"orderId\"",
        "\"customerId\"",
        "\"region\"",
        "\"lines\"",
        "\"itemCount\"",
        "\"itemsTotalCents\"",
        "\"orderDiscountPercent\"",
        "\"orderDiscountCents\"",
        "\"taxRateBasisPoints\"",
        "\"taxCents\"",
    ];
    let positions: Vec<usize> =
        order.iter().map(|key| text.find(key).unwrap_or_else(|| panic!("{key} in {text}"))).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
    assert!(text.ends_with(r#""totalCents":6118}"#), "{text}");
    let line = r#"{"sku":"PEN-002","quantity":10,"unitPriceCents":150,"subtotalCents":1500,"discountCode":null,"discountCents":0,"totalCents":1500}"#;
    assert!(text.contains(line), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_methods_are_a_405_naming_post() {
    let server = common::start(&[]).await;
    let mut client = server.client().await;
    for method in ["GET", "PUT", "DELETE"] {
        let answer = client.request(method, "/api/orders/calculate", b"").await;
        answer.check_framing(method);
        assert_eq!(answer.status, 405, "{method}");
        assert_eq!(answer.json()["error"], "method not allowed");
        assert_eq!(answer.headers.get("allow").map(String::as_str), Some("POST"), "{method}");
    }
    // The existing GET routes still name their own methods.
    let answer = client.request("POST", "/api/generated/7", b"").await;
    assert_eq!((answer.status, answer.headers.get("allow").map(String::as_str)), (405, Some("GET,HEAD")));
}
