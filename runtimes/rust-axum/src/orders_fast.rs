//! The order API's fast path: a valid order parsed straight into borrowed
//! `#[derive(Deserialize)]` structs, with no `serde_json::Value` in between.
//!
//! Why two paths: the `Value` walk of [`crate::orders::validate`] is what
//! the contract's 400/422 answers need (see src/body_rules.rs), but building
//! a `Value` (a map per object, a `String` per key and value) and dropping
//! it costs several times a typed parse (`cargo run --release --example
//! order_cost` prints both). Valid orders are what the benchmark sends, so
//! they take this path; anything this path does not accept as a valid order,
//! for whatever reason (not JSON, a wrong type, a `null`, a duplicate key, a
//! string with escapes that cannot be borrowed, a value out of its range),
//! goes to the `Value` walk, which alone decides every 400 and 422.
//!
//! The one rule this path must keep by hand is the contract's "an array
//! where an object belongs is a wrong type": derived structs also accept a
//! JSON array of their fields, so every object here is read through
//! [`ObjectOnly`], which asks serde_json for a map and nothing else.
//! `tests::fast_and_full_paths_agree_on_every_vector` checks that this path
//! accepts exactly the vectors that answer 200, with the same order.

use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, MapAccess, Visitor};

use crate::orders::{DiscountCode, Item, MAX_ITEMS, Order, Region, is_id, is_sku};

/// `T` read only from a JSON object (never from an array of its fields).
struct ObjectOnly<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map))
            }
        }
        deserializer.deserialize_map(ObjectVisitor(PhantomData)).map(ObjectOnly)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawOrder<'a> {
    order_id: &'a str,
    #[serde(borrow)]
    customer: ObjectOnly<RawCustomer<'a>>,
    #[serde(borrow)]
    items: Vec<ObjectOnly<RawItem<'a>>>,
}

#[derive(Deserialize)]
struct RawCustomer<'a> {
    id: &'a str,
    region: &'a str,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawItem<'a> {
    sku: &'a str,
    quantity: i64,
    unit_price_cents: i64,
    #[serde(default)]
    discount_code: Option<&'a str>,
}

/// The order in `body` when it is valid and this path can read it; `None`
/// sends the body to the full `Value` walk.
pub fn valid_order(body: &[u8]) -> Option<Order<'_>> {
    let ObjectOnly(raw) = serde_json::from_slice::<ObjectOnly<RawOrder<'_>>>(body).ok()?;
    let ObjectOnly(customer) = raw.customer;
    if !is_id(raw.order_id) || !is_id(customer.id) || !(1..=MAX_ITEMS).contains(&raw.items.len()) {
        return None;
    }
    let region = Region::parse(customer.region)?;
    let mut items = Vec::with_capacity(raw.items.len());
    for ObjectOnly(item) in raw.items {
        let discount = match item.discount_code {
            None => None,
            Some(code) => Some(DiscountCode::parse(code)?),
        };
        let in_range = (1..=1000).contains(&item.quantity) && (0..=10_000_000).contains(&item.unit_price_cents);
        if !is_sku(item.sku) || !in_range {
            return None;
        }
        items.push(Item { sku: item.sku, quantity: item.quantity, unit_price_cents: item.unit_price_cents, discount });
    }
    Some(Order { order_id: raw.order_id, customer_id: customer.id, region, items })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orders;

    #[test]
    fn fast_and_full_paths_agree_on_every_vector() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../contract/microservices.json");
        let vectors: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut fast = 0;
        for case in vectors["orders"].as_array().unwrap() {
            let (name, body) = (case["name"].as_str().unwrap(), case["body"].as_str().unwrap());
            let full = crate::body_rules::parse(body.as_bytes()).ok().and_then(|v| {
                let order = orders::validate(&v).ok()?;
                Some(serde_json::to_value(orders::price(&order)).unwrap())
            });
            let quick = valid_order(body.as_bytes()).map(|o| serde_json::to_value(orders::price(&o)).unwrap());
            assert_eq!(quick, full, "{name}");
            assert_eq!(quick.is_some(), case["status"] == 200, "{name}");
            fast += quick.is_some() as usize;
        }
        assert!(fast >= 15, "only {fast} vectors took the fast path");
    }

    #[test]
    fn arrays_where_objects_belong_leave_the_fast_path() {
        let customer_array =
            br#"{"orderId":"O","customer":["C-1","EU"],"items":[{"sku":"A","quantity":1,"unitPriceCents":1}]}"#;
        let item_array = br#"{"orderId":"O","customer":{"id":"C-1","region":"EU"},"items":[["A",1,1,null]]}"#;
        let root_array = br#"["O",{"id":"C-1","region":"EU"},[{"sku":"A","quantity":1,"unitPriceCents":1}]]"#;
        for body in [&customer_array[..], item_array, root_array] {
            assert!(valid_order(body).is_none(), "{}", String::from_utf8_lossy(body));
        }
        let ok = br#"{"orderId":"O","customer":{"id":"C-1","region":"EU"},"items":[{"sku":"A","quantity":1,"unitPriceCents":1}]}"#;
        assert!(valid_order(ok).is_some());
    }
}
