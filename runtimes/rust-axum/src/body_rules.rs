//! Request bodies of the microservices scenarios (../CONTRACT.md, "Request
//! bodies, for all three scenarios"): 400 for text that is not JSON, 422
//! with the sorted paths of the invalid fields.
//!
//! Why a `serde_json::Value` walked by hand rather than `#[derive(Deserialize)]`
//! structs (with or without `serde_path_to_error`): the contract wants every
//! value error of the body collected (a derived struct stops at the first
//! missing field), wants the 400/422 split decided over the whole text (a
//! typed parse stops at the first wrong type, so a truncated body with an
//! early wrong type would be a 422 instead of a 400), and wants an array
//! where an object belongs to be a type error (derived structs also accept a
//! JSON array of their fields). Parsing to a `Value` first and checking it
//! here mirrors `contract/microservices.py` rule for rule (valid orders take
//! a typed fast path first, src/orders_fast.rs, and fall back to this walk
//! for anything else). serde_json never
//! coerces: `"2"` is a string, `2.0` and `2.5` are floats, so neither is an
//! integer here. (An integer literal beyond `u64` is read as a float by
//! serde_json and is reported as a wrong type, not as out of range.)

use std::collections::BTreeMap;
use std::fmt;

use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;
use serde_json::{Map, Value};

/// Where a field sits in a body, in the contract's notation (`$`, `a`,
/// `a.b`, `a[0]`, `a[0].b`). Only formatted when the field is invalid, so a
/// valid body costs no path strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldPath {
    /// The whole body.
    Root,
    /// A member of the body.
    Member(&'static str),
    /// A member of a member (`customer.region`).
    Nested(&'static str, &'static str),
    /// An element of an array member (`items[3]`).
    Element(&'static str, usize),
    /// A member of an element (`items[3].sku`).
    ElementMember(&'static str, usize, &'static str),
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldPath::Root => f.write_str("$"),
            FieldPath::Member(a) => f.write_str(a),
            FieldPath::Nested(a, b) => write!(f, "{a}.{b}"),
            FieldPath::Element(a, i) => write!(f, "{a}[{i}]"),
            FieldPath::ElementMember(a, i, b) => write!(f, "{a}[{i}].{b}"),
        }
    }
}

/// A field of the wrong JSON type. The contract reports it alone (the value
/// errors found so far are dropped), so walking stops at the first one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeMismatch {
    pub path: FieldPath,
    /// What the field should have been (`"a string"`, `"an integer"`, ...).
    pub expected: &'static str,
}

/// The value errors of one body: path -> why. A `BTreeMap` of `String`
/// keys is both the "each once" and the "sorted by byte order" of the
/// contract (`items[10]` before `items[2]`).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Violations {
    fields: BTreeMap<String, &'static str>,
}

impl Violations {
    /// Records that the field at `path` breaks its rule (`why` is free text).
    pub fn add(&mut self, path: FieldPath, why: &'static str) {
        self.fields.entry(path.to_string()).or_insert(why);
    }

    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The invalid paths, sorted by byte order.
    pub fn paths(&self) -> Vec<&str> {
        self.fields.keys().map(String::as_str).collect()
    }
}

/// Why a body was refused: the answer is a 422 in both cases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalid {
    WrongType(TypeMismatch),
    Values(Violations),
}

impl From<TypeMismatch> for Invalid {
    fn from(mismatch: TypeMismatch) -> Self {
        Invalid::WrongType(mismatch)
    }
}

impl Invalid {
    /// The invalid paths as the 422 answer lists them.
    pub fn paths(&self) -> Vec<String> {
        match self {
            Invalid::WrongType(m) => vec![m.path.to_string()],
            Invalid::Values(v) => v.paths().into_iter().map(str::to_owned).collect(),
        }
    }

    /// `422 {"error": "validation failed", "invalid": [...], "details": {...}}`.
    pub fn into_response(self) -> Response {
        #[derive(Serialize)]
        struct Answer {
            error: &'static str,
            invalid: Vec<String>,
            details: BTreeMap<String, String>,
        }
        let details: BTreeMap<String, String> = match &self {
            Invalid::WrongType(m) => [(m.path.to_string(), format!("must be {}", m.expected))].into(),
            Invalid::Values(v) => v.fields.iter().map(|(path, why)| (path.clone(), (*why).to_owned())).collect(),
        };
        let answer = Answer { error: "validation failed", invalid: self.paths(), details };
        crate::serialized(StatusCode::UNPROCESSABLE_ENTITY, &answer)
    }
}

/// A body that is not JSON at all: the contract's 400.
#[derive(Debug)]
pub struct Malformed(pub serde_json::Error);

impl Malformed {
    /// `400 {"error": "body is not JSON: <serde_json's reason at line L column C>"}`.
    pub fn into_response(self) -> Response {
        #[derive(Serialize)]
        struct Answer {
            error: String,
        }
        crate::serialized(StatusCode::BAD_REQUEST, &Answer { error: format!("body is not JSON: {}", self.0) })
    }
}

/// Parses a request body; text that is not JSON (empty, truncated, trailing
/// comma, `NaN`) is [`Malformed`].
pub fn parse(body: &[u8]) -> Result<Value, Malformed> {
    serde_json::from_slice(body).map_err(Malformed)
}

/// The value of `key` in `object`, with absent and `null` alike (`None`):
/// both are "missing" to the contract.
fn present<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|v| !v.is_null())
}

/// `value` as an object, or a type mismatch at `path`.
pub fn object(value: &Value, path: FieldPath) -> Result<&Map<String, Value>, TypeMismatch> {
    value.as_object().ok_or(TypeMismatch { path, expected: "an object" })
}

/// A required object member: `Ok(None)` (recorded) when missing.
pub fn required_object<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    path: FieldPath,
    violations: &mut Violations,
) -> Result<Option<&'a Map<String, Value>>, TypeMismatch> {
    match present(object, key) {
        None => {
            violations.add(path, "is required");
            Ok(None)
        }
        Some(v) => self::object(v, path).map(Some),
    }
}

/// A required array member: `Ok(None)` (recorded) when missing.
pub fn required_array<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    path: FieldPath,
    violations: &mut Violations,
) -> Result<Option<&'a [Value]>, TypeMismatch> {
    match present(object, key) {
        None => {
            violations.add(path, "is required");
            Ok(None)
        }
        Some(Value::Array(items)) => Ok(Some(items)),
        Some(_) => Err(TypeMismatch { path, expected: "an array" }),
    }
}

/// An optional string member: `Ok(None)` when absent or `null`.
pub fn optional_string<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    path: FieldPath,
) -> Result<Option<&'a str>, TypeMismatch> {
    match present(object, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(TypeMismatch { path, expected: "a string" }),
    }
}

/// A required string member that must satisfy `rule` (`why` says the rule):
/// `Ok(None)` when missing or breaking the rule (both recorded).
pub fn required_string<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    path: FieldPath,
    rule: impl Fn(&str) -> bool,
    why: &'static str,
    violations: &mut Violations,
) -> Result<Option<&'a str>, TypeMismatch> {
    match optional_string(object, key, path)? {
        None => {
            violations.add(path, "is required");
            Ok(None)
        }
        Some(s) if rule(s) => Ok(Some(s)),
        Some(_) => {
            violations.add(path, why);
            Ok(None)
        }
    }
}

/// A required integer member within `lo..=hi`: `Ok(None)` when missing or
/// out of range (both recorded). Only JSON integers count: a float, even
/// `2.0`, is a type mismatch, as are strings and booleans.
pub fn required_integer(
    object: &Map<String, Value>,
    key: &str,
    path: FieldPath,
    (lo, hi): (i64, i64),
    why: &'static str,
    violations: &mut Violations,
) -> Result<Option<i64>, TypeMismatch> {
    let mismatch = TypeMismatch { path, expected: "an integer" };
    match present(object, key) {
        None => {
            violations.add(path, "is required");
            Ok(None)
        }
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => match n.as_i64() {
            Some(v) if (lo..=hi).contains(&v) => Ok(Some(v)),
            _ => {
                // Out of range, including integers beyond i64 (u64 only).
                violations.add(path, why);
                Ok(None)
            }
        },
        Some(_) => Err(mismatch),
    }
}

/// `^[...]{1,max}$` over ASCII bytes: every byte passes `allowed` and the
/// length is 1..=max. Hand-written because the contract's patterns are one
/// character class each, which needs no regex engine.
pub fn matches_class(s: &str, max: usize, allowed: impl Fn(u8) -> bool) -> bool {
    (1..=max).contains(&s.len()) && s.bytes().all(allowed)
}

/// An id in a path segment, in its canonical form only: ASCII digits, no
/// sign, no leading zero, at most 18 digits, so at least 1 (`007`, `0`,
/// `abc`, `+1` are `None`: the caller answers 404).
pub fn canonical_id(segment: &str) -> Option<i64> {
    match canonical_integer(segment)? {
        0 => None,
        n => Some(n),
    }
}

/// A canonical non-negative integer (`0`, or digits without a leading zero),
/// at most 18 digits, so it always fits an `i64`.
pub fn canonical_integer(s: &str) -> Option<i64> {
    let canonical =
        (1..=18).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    if canonical { s.parse().ok() } else { None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_print_in_the_contracts_notation() {
        assert_eq!(FieldPath::Root.to_string(), "$");
        assert_eq!(FieldPath::Nested("customer", "region").to_string(), "customer.region");
        assert_eq!(FieldPath::Element("items", 3).to_string(), "items[3]");
        assert_eq!(FieldPath::ElementMember("items", 10, "sku").to_string(), "items[10].sku");
    }

    #[test]
    fn violations_are_unique_and_sorted_by_bytes() {
        let mut v = Violations::default();
        v.add(FieldPath::ElementMember("items", 2, "sku"), "x");
        v.add(FieldPath::ElementMember("items", 10, "sku"), "x");
        v.add(FieldPath::Member("orderId"), "x");
        v.add(FieldPath::Member("orderId"), "y");
        assert_eq!(v.paths(), ["items[10].sku", "items[2].sku", "orderId"]);
    }

    #[test]
    fn integers_are_never_coerced() {
        let body = json!({"a": 2, "b": 2.0, "c": "2", "d": true, "e": 5000, "f": 18446744073709551615u64, "g": null});
        let o = body.as_object().unwrap();
        let mut v = Violations::default();
        let int = |key: &'static str, v: &mut Violations| {
            required_integer(o, key, FieldPath::Member(key), (1, 1000), "range", v)
        };
        assert_eq!(int("a", &mut v), Ok(Some(2)));
        for key in ["b", "c", "d"] {
            assert_eq!(int(key, &mut v).unwrap_err().path, FieldPath::Member(key));
        }
        assert_eq!(int("e", &mut v), Ok(None));
        assert_eq!(int("f", &mut v), Ok(None));
        assert_eq!(int("g", &mut v), Ok(None));
        assert_eq!(int("missing", &mut v), Ok(None));
        assert_eq!(v.paths(), ["e", "f", "g", "missing"]);
    }

    #[test]
    fn canonical_ids_only() {
        assert_eq!(canonical_id("1"), Some(1));
        assert_eq!(canonical_id("999999999999999999"), Some(999_999_999_999_999_999));
        for bad in ["", "0", "007", "abc", "+1", "-1", "1.0", " 1", "1234567890123456789", "٣"] {
            assert_eq!(canonical_id(bad), None, "{bad:?}");
        }
        assert_eq!(canonical_integer("0"), Some(0));
        assert_eq!(canonical_integer("00"), None);
    }

    #[test]
    fn not_json_is_a_400() {
        for text in ["", "{", "{\"a\":1,}", "not json", "{\"a\":NaN}"] {
            let refused = parse(text.as_bytes()).unwrap_err();
            assert_eq!(refused.into_response().status(), StatusCode::BAD_REQUEST, "{text:?}");
        }
        assert_eq!(parse(b" [1] ").unwrap(), json!([1]));
    }
}
