//! A workload request's `expect:` beyond `status`: `min_bytes`,
//! `max_bytes`, `body_contains`, `header`. Its sizes may be templates (a
//! `payload` axis is often the size of the answer), so they are read here
//! as a size or a template, and rendered per cell by
//! [`crate::plan::keys::expect`]. What can be judged from the file alone is
//! checked here, at load, with the field's path: sizes in order, header
//! names and values that HTTP can carry, checks that need a body on an
//! answer that has none.
use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

use crate::spec::keys::byte_size::{SIZE_HELP, parse_byte_size};
use crate::spec::model::ExpectSpec;
use crate::spec::validate::{Finding, valid_header_name};
use crate::spec::values::HELP_SEPARATOR;

/// `min_bytes` / `max_bytes`: a size (`1KiB`, `1024`) or a template
/// rendered to one per cell (`"{{ payload }}"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpectSize {
    Bytes(u64),
    Template(String),
}

impl<'de> Deserialize<'de> for ExpectSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = ExpectSize;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a size such as 1KiB or 1024, or a template such as \"{{ payload }}\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ExpectSize, E> {
                if v.contains("{{") {
                    return Ok(ExpectSize::Template(v.to_owned()));
                }
                parse_byte_size(v).map(ExpectSize::Bytes).map_err(|why| {
                    E::custom(format!(
                        "invalid size: {why}{HELP_SEPARATOR}{SIZE_HELP}, or a template such as \"{{{{ payload }}}}\""
                    ))
                })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ExpectSize, E> {
                u64::try_from(v).map(ExpectSize::Bytes).map_err(|_| {
                    E::custom(format!(
                        "invalid size: {v} is negative{HELP_SEPARATOR}{SIZE_HELP}"
                    ))
                })
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ExpectSize, E> {
                Ok(ExpectSize::Bytes(v))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for ExpectSize {
    fn schema_name() -> Cow<'static, str> {
        "ExpectSize".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": ["string", "integer"],
            "minimum": 0,
            "description": "A size: 1024, 1KiB, 64KiB; or a template such as \"{{ payload }}\"",
            "examples": ["1KiB", "{{ payload }}"]
        })
    }
}

/// The checks of the `expect` of a request written at `at`
/// (`workload.expect`, `workload.2.expect`) whose method is `method`.
pub fn check_expect(at: &str, expect: &ExpectSpec, method: &str, out: &mut Vec<Finding>) {
    let field = |name: &str| format!("{at}.{name}");
    if let (Some(ExpectSize::Bytes(min)), Some(ExpectSize::Bytes(max))) =
        (&expect.min_bytes, &expect.max_bytes)
        && min > max
    {
        out.push(Finding {
            field: field("min_bytes"),
            message: format!("min_bytes ({min}) is above max_bytes ({max}): no answer can pass"),
            help: "swap them, or drop one: min_bytes is the least a correct body has".into(),
        });
    }
    if expect.body_contains.as_deref() == Some("") {
        out.push(Finding {
            field: field("body_contains"),
            message: "body_contains is empty: every answer contains it".into(),
            help: "write a piece of text every correct answer has, e.g. `</html>`".into(),
        });
    }
    let no_body = if method == "HEAD" {
        Some("a HEAD answer has no body".to_owned())
    } else if matches!(expect.status, 204 | 304) {
        Some(format!("a {} answer has no body", expect.status))
    } else {
        None
    };
    if let Some(why) = no_body {
        let needs_body = [
            (
                "min_bytes",
                matches!(expect.min_bytes, Some(ExpectSize::Bytes(n)) if n > 0),
            ),
            ("body_contains", expect.body_contains.is_some()),
        ];
        for (name, _) in needs_body.into_iter().filter(|(_, set)| *set) {
            out.push(Finding {
                field: field(name),
                message: format!("{name} can never pass: {why}"),
                help: "remove it, or check the body on a request that has one (GET)".into(),
            });
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for (name, value) in &expect.header {
        let at = format!("{at}.header.{name}");
        if !valid_header_name(name) {
            out.push(Finding {
                field: at,
                message: format!("`{name}` is not a valid HTTP header name"),
                help: "use letters, digits and `-` (e.g. `content-type`)".into(),
            });
        } else if seen.iter().any(|s| s.eq_ignore_ascii_case(name)) {
            out.push(Finding {
                field: at,
                message: format!("header `{name}` is expected twice (names ignore case)"),
                help: "keep one entry per header name".into(),
            });
        } else if value.contains(['\r', '\n']) {
            out.push(Finding {
                field: at,
                message: format!("the expected value of `{name}` has a line break"),
                help: "a header value is one line: write it without line breaks".into(),
            });
        }
        seen.push(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect(yaml: &str) -> ExpectSpec {
        serde_saphyr::from_str(yaml).unwrap()
    }

    fn fields(e: &ExpectSpec, method: &str) -> Vec<String> {
        let mut out = Vec::new();
        check_expect("workload.expect", e, method, &mut out);
        out.into_iter().map(|f| f.field).collect()
    }

    #[test]
    fn sizes_read_as_bytes_or_templates() {
        let e = expect("{ min_bytes: 1KiB, max_bytes: \"{{ payload }}\" }");
        assert_eq!(e.min_bytes, Some(ExpectSize::Bytes(1024)));
        assert_eq!(
            e.max_bytes,
            Some(ExpectSize::Template("{{ payload }}".into()))
        );
        assert!(serde_saphyr::from_str::<ExpectSpec>("{ min_bytes: lots }").is_err());
        assert!(serde_saphyr::from_str::<ExpectSpec>("{ min_bytes: -1 }").is_err());
    }

    #[test]
    fn a_good_expect_has_no_finding() {
        let e = expect(
            "{ status: 200, min_bytes: 10, max_bytes: 10, body_contains: x, \
             header: { content-type: text/plain } }",
        );
        assert!(fields(&e, "GET").is_empty());
    }

    #[test]
    fn each_bad_field_is_named() {
        let e = expect(
            "{ min_bytes: 2KiB, max_bytes: 1KiB, body_contains: \"\", \
             header: { \"bad name\": x, Content-Type: a, content-type: b } }",
        );
        assert_eq!(
            fields(&e, "GET"),
            vec![
                "workload.expect.min_bytes",
                "workload.expect.body_contains",
                "workload.expect.header.bad name",
                "workload.expect.header.content-type",
            ]
        );
    }

    #[test]
    fn body_checks_need_a_body() {
        let e = expect("{ min_bytes: 1, body_contains: x, header: { etag: a } }");
        assert_eq!(
            fields(&e, "HEAD"),
            vec!["workload.expect.min_bytes", "workload.expect.body_contains"]
        );
        let e = expect("{ status: 204, body_contains: x }");
        assert_eq!(fields(&e, "DELETE"), vec!["workload.expect.body_contains"]);
    }
}
