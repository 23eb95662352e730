//! `POST /api/orders/calculate` (../CONTRACT.md, "Microservices"): the
//! CPU-bound order API. [`validate`] turns a parsed body into an [`Order`]
//! or the contract's 422, [`price`] applies the pricing rules in integer
//! cents (the same integer steps as `contract/microservices.py`), and the
//! answer is serialised by serde in the contract's member order. Valid
//! orders reach [`price`] through the typed fast path of `orders_fast`
//! first; [`validate`] judges every other body.

use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;
use serde_json::Value;

use crate::body_rules::{self, FieldPath, Invalid, TypeMismatch, Violations};

/// Most lines an order may have.
pub const MAX_ITEMS: usize = 100;

/// `customer.region`, which sets the tax rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    Us,
    Eu,
    Uk,
    Apac,
}

impl Region {
    /// The region named exactly (case-sensitive) by `s`.
    pub fn parse(s: &str) -> Option<Region> {
        match s {
            "US" => Some(Region::Us),
            "EU" => Some(Region::Eu),
            "UK" => Some(Region::Uk),
            "APAC" => Some(Region::Apac),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Region::Us => "US",
            Region::Eu => "EU",
            Region::Uk => "UK",
            Region::Apac => "APAC",
        }
    }

    /// Tax rate in basis points (1/100 of a percent).
    pub fn tax_basis_points(self) -> i64 {
        match self {
            Region::Us => 725,
            Region::Eu | Region::Uk => 2000,
            Region::Apac => 1000,
        }
    }
}

/// A line's `discountCode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscountCode {
    Save10,
    Save25,
    /// 10% off, only on a line of at least 10 units.
    Bulk10,
}

impl DiscountCode {
    pub fn parse(s: &str) -> Option<DiscountCode> {
        match s {
            "SAVE10" => Some(DiscountCode::Save10),
            "SAVE25" => Some(DiscountCode::Save25),
            "BULK10" => Some(DiscountCode::Bulk10),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DiscountCode::Save10 => "SAVE10",
            DiscountCode::Save25 => "SAVE25",
            DiscountCode::Bulk10 => "BULK10",
        }
    }

    /// Percent off a line of `quantity` units (a valid `BULK10` below 10
    /// units gives nothing).
    pub fn percent(self, quantity: i64) -> i64 {
        match self {
            DiscountCode::Save10 => 10,
            DiscountCode::Save25 => 25,
            DiscountCode::Bulk10 if quantity >= 10 => 10,
            DiscountCode::Bulk10 => 0,
        }
    }
}

/// A valid order, borrowing its strings from the parsed body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order<'a> {
    pub order_id: &'a str,
    pub customer_id: &'a str,
    pub region: Region,
    pub items: Vec<Item<'a>>,
}

/// One valid line of an order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item<'a> {
    pub sku: &'a str,
    pub quantity: i64,
    pub unit_price_cents: i64,
    pub discount: Option<DiscountCode>,
}

pub(crate) fn is_id(s: &str) -> bool {
    body_rules::matches_class(s, 64, |b| b.is_ascii_alphanumeric() || b == b'-')
}

pub(crate) fn is_sku(s: &str) -> bool {
    body_rules::matches_class(s, 32, |b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-')
}

const ID_RULE: &str = "must match ^[A-Za-z0-9-]{1,64}$";

/// The contract's rules over a parsed body: every value error collected, a
/// wrong type reported alone.
pub fn validate(body: &Value) -> Result<Order<'_>, Invalid> {
    let mut violations = Violations::default();
    let root = body_rules::object(body, FieldPath::Root)?;
    let order_id =
        body_rules::required_string(root, "orderId", FieldPath::Member("orderId"), is_id, ID_RULE, &mut violations)?;
    let mut customer = (None, None);
    if let Some(c) = body_rules::required_object(root, "customer", FieldPath::Member("customer"), &mut violations)? {
        let id_path = FieldPath::Nested("customer", "id");
        customer.0 = body_rules::required_string(c, "id", id_path, is_id, ID_RULE, &mut violations)?;
        let region_path = FieldPath::Nested("customer", "region");
        customer.1 = body_rules::required_string(
            c,
            "region",
            region_path,
            |s| Region::parse(s).is_some(),
            "must be one of US, EU, UK, APAC",
            &mut violations,
        )?
        .and_then(Region::parse);
    }
    let mut items = Vec::new();
    if let Some(lines) = body_rules::required_array(root, "items", FieldPath::Member("items"), &mut violations)? {
        if (1..=MAX_ITEMS).contains(&lines.len()) {
            items.reserve_exact(lines.len());
            for (i, line) in lines.iter().enumerate() {
                if let Some(item) = validate_item(line, i, &mut violations)? {
                    items.push(item);
                }
            }
        } else {
            violations.add(FieldPath::Member("items"), "must hold 1 to 100 items");
        }
    }
    match (order_id, customer) {
        (Some(order_id), (Some(customer_id), Some(region))) if violations.is_empty() => {
            Ok(Order { order_id, customer_id, region, items })
        }
        _ => Err(Invalid::Values(violations)),
    }
}

fn validate_item<'a>(line: &'a Value, i: usize, violations: &mut Violations) -> Result<Option<Item<'a>>, TypeMismatch> {
    let item = body_rules::object(line, FieldPath::Element("items", i))?;
    let path = |key| FieldPath::ElementMember("items", i, key);
    let sku =
        body_rules::required_string(item, "sku", path("sku"), is_sku, "must match ^[A-Z0-9-]{1,32}$", violations)?;
    let quantity = body_rules::required_integer(
        item,
        "quantity",
        path("quantity"),
        (1, 1000),
        "must be between 1 and 1000",
        violations,
    )?;
    let unit_price_cents = body_rules::required_integer(
        item,
        "unitPriceCents",
        path("unitPriceCents"),
        (0, 10_000_000),
        "must be between 0 and 10000000",
        violations,
    )?;
    let code = body_rules::optional_string(item, "discountCode", path("discountCode"))?;
    let discount = code.and_then(DiscountCode::parse);
    if code.is_some() && discount.is_none() {
        violations.add(path("discountCode"), "must be one of SAVE10, SAVE25, BULK10");
    }
    Ok(match (sku, quantity, unit_price_cents) {
        (Some(sku), Some(quantity), Some(unit_price_cents)) => Some(Item { sku, quantity, unit_price_cents, discount }),
        _ => None,
    })
}

/// `a * n / d` rounded half up on non-negative integers (every `d` is even).
/// The contract's bounds keep `a * n` below 2 * 10^15, far inside `i64`.
pub fn share(amount: i64, numerator: i64, denominator: i64) -> i64 {
    (amount * numerator + denominator / 2) / denominator
}

/// The tiered order discount on the items total (after line discounts).
pub fn order_discount_percent(items_total_cents: i64) -> i64 {
    match items_total_cents {
        100_000.. => 10,
        50_000.. => 5,
        10_000.. => 2,
        _ => 0,
    }
}

/// The answer of a valid order, members in the contract's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PricedOrder<'a> {
    pub order_id: &'a str,
    pub customer_id: &'a str,
    pub region: &'static str,
    pub lines: Vec<PricedLine<'a>>,
    pub item_count: i64,
    pub items_total_cents: i64,
    pub order_discount_percent: i64,
    pub order_discount_cents: i64,
    pub tax_rate_basis_points: i64,
    pub tax_cents: i64,
    pub total_cents: i64,
}

/// One priced line (`discountCode` is `null` without a code).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PricedLine<'a> {
    pub sku: &'a str,
    pub quantity: i64,
    pub unit_price_cents: i64,
    pub subtotal_cents: i64,
    pub discount_code: Option<&'static str>,
    pub discount_cents: i64,
    pub total_cents: i64,
}

/// The pricing rules, steps 1 to 5 of the contract.
pub fn price<'a>(order: &Order<'a>) -> PricedOrder<'a> {
    let lines: Vec<PricedLine<'a>> = order
        .items
        .iter()
        .map(|item| {
            let subtotal_cents = item.quantity * item.unit_price_cents;
            let percent = item.discount.map_or(0, |code| code.percent(item.quantity));
            let discount_cents = share(subtotal_cents, percent, 100);
            PricedLine {
                sku: item.sku,
                quantity: item.quantity,
                unit_price_cents: item.unit_price_cents,
                subtotal_cents,
                discount_code: item.discount.map(DiscountCode::as_str),
                discount_cents,
                total_cents: subtotal_cents - discount_cents,
            }
        })
        .collect();
    let items_total_cents: i64 = lines.iter().map(|l| l.total_cents).sum();
    let item_count = lines.iter().map(|l| l.quantity).sum();
    let order_discount_percent = order_discount_percent(items_total_cents);
    let order_discount_cents = share(items_total_cents, order_discount_percent, 100);
    let taxable = items_total_cents - order_discount_cents;
    let tax_rate_basis_points = order.region.tax_basis_points();
    let tax_cents = share(taxable, tax_rate_basis_points, 10_000);
    PricedOrder {
        order_id: order.order_id,
        customer_id: order.customer_id,
        region: order.region.as_str(),
        lines,
        item_count,
        items_total_cents,
        order_discount_percent,
        order_discount_cents,
        tax_rate_basis_points,
        tax_cents,
        total_cents: taxable + tax_cents,
    }
}

/// `POST /api/orders/calculate`: 200 with the priced order, 400 when the body
/// is not JSON, 422 when it breaks the rules. Content-Type is not checked.
/// A valid order takes the typed fast path (src/orders_fast.rs); every
/// other body is judged by the `Value` walk of [`validate`].
pub async fn calculate(body: Bytes) -> Response {
    answer(&body)
}

/// The answer to one order body (the handler's work, without the HTTP).
pub fn answer(body: &[u8]) -> Response {
    if let Some(order) = crate::orders_fast::valid_order(body) {
        return priced_answer(&order);
    }
    let value = match body_rules::parse(body) {
        Ok(value) => value,
        Err(malformed) => return malformed.into_response(),
    };
    match validate(&value) {
        Ok(order) => priced_answer(&order),
        Err(invalid) => invalid.into_response(),
    }
}

/// The 200: serialised into a buffer sized for the order, so serde_json
/// writes it without growing the buffer (a line is under 200 bytes).
fn priced_answer(order: &Order<'_>) -> Response {
    let mut body = Vec::with_capacity(320 + 200 * order.items.len());
    match serde_json::to_writer(&mut body, &price(order)) {
        Ok(()) => crate::json(StatusCode::OK, body),
        Err(_) => crate::static_json(StatusCode::INTERNAL_SERVER_ERROR, crate::INTERNAL_ERROR_BODY),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn share_rounds_half_up() {
        assert_eq!(share(5, 10, 100), 1); // 0.5
        assert_eq!(share(4, 10, 100), 0); // 0.4
        assert_eq!(share(7, 725, 10_000), 1); // 0.5075
        assert_eq!(share(1, 725, 10_000), 0); // 0.0725
    }

    #[test]
    fn the_contracts_example_prices_to_the_cent() {
        let body = json!({"orderId": "ORD-1001", "customer": {"id": "C-42", "region": "EU"},
            "items": [{"sku": "BOOK-001", "quantity": 2, "unitPriceCents": 1999, "discountCode": "SAVE10"},
                      {"sku": "PEN-002", "quantity": 10, "unitPriceCents": 150}]});
        let priced = price(&validate(&body).unwrap());
        assert_eq!((priced.lines[0].discount_cents, priced.lines[0].total_cents), (400, 3598));
        assert_eq!(priced.lines[1].discount_code, None);
        assert_eq!((priced.item_count, priced.items_total_cents, priced.order_discount_percent), (12, 5098, 0));
        assert_eq!((priced.tax_cents, priced.total_cents), (1020, 6118));
    }

    #[test]
    fn tiers_start_at_their_floor() {
        let tiers: Vec<i64> = [9_999, 10_000, 49_999, 50_000, 99_999, 100_000].map(order_discount_percent).into();
        assert_eq!(tiers, [0, 2, 2, 5, 5, 10]);
    }

    #[test]
    fn a_wrong_type_drops_the_value_errors_found_before_it() {
        let body = json!({"orderId": "", "customer": {"id": "C-1", "region": "MARS"}, "items": [{"sku": 1}]});
        assert_eq!(validate(&body).unwrap_err().paths(), ["items[0].sku"]);
    }
}
