//! Small value types of the spec that accept more than one YAML shape:
//! durations (`250ms`), ports (`auto` or a number), numbers-or-templates,
//! axis values and the one-or-many workload.
//!
//! Each has a hand-written `Deserialize` whose error says what is accepted,
//! and a hand-written JSON Schema saying the same to editors.
use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::model::RequestSpec;

/// A duration written with a unit: `250ms`, `5s`, `2m`, `1h`, `1.5s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HumanDuration(pub Duration);

/// Separates a message from its help in custom serde errors (see `explain`).
pub const HELP_SEPARATOR: &str = "\u{1f}help:";

/// What a duration must look like, shared by the parser error and the docs.
pub const DURATION_HELP: &str =
    "write a number followed by ms, s, m or h, e.g. 250ms, 5s, 2m, 1.5s";

/// Parses `250ms`, `5s`, `2m`, `1h`, `1.5s`. Returns a short reason on error.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(|| format!("`{text}` has no unit"))?;
    let (number, unit) = text.split_at(split);
    if number.is_empty() {
        return Err(format!("`{text}` does not start with a number"));
    }
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{number}` is not a number"))?;
    let scale = match unit {
        "ms" => 0.001,
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        other => return Err(format!("unknown unit `{other}`")),
    };
    let seconds = value * scale;
    if !seconds.is_finite() || seconds > 30.0 * 24.0 * 3600.0 {
        return Err(format!("`{text}` is longer than 30 days"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

impl<'de> Deserialize<'de> for HumanDuration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = HumanDuration;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration such as 250ms, 5s or 2m")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<HumanDuration, E> {
                parse_duration(v).map(HumanDuration).map_err(|why| {
                    E::custom(format!(
                        "invalid duration: {why}{HELP_SEPARATOR}{DURATION_HELP}"
                    ))
                })
            }
        }
        d.deserialize_str(V)
    }
}

impl JsonSchema for HumanDuration {
    fn schema_name() -> Cow<'static, str> {
        "Duration".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "pattern": "^[0-9]+(\\.[0-9]+)?(ms|s|m|h)$",
            "description": "A duration with a unit: 250ms, 5s, 2m, 1h, 1.5s",
            "examples": ["250ms", "5s", "2m"]
        })
    }
}

/// `port: auto` (a free port chosen at plan time) or a fixed port number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortSpec {
    Auto,
    Fixed(u16),
}

impl<'de> Deserialize<'de> for PortSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = PortSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("`auto` or a port number from 1 to 65535")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<PortSpec, E> {
                match v {
                    "auto" => Ok(PortSpec::Auto),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<PortSpec, E> {
                match u16::try_from(v) {
                    Ok(p) if p > 0 => Ok(PortSpec::Fixed(p)),
                    _ => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for PortSpec {
    fn schema_name() -> Cow<'static, str> {
        "Port".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "`auto` (a free port chosen at plan time) or a fixed port",
            "oneOf": [
                {"const": "auto"},
                {"type": "integer", "minimum": 1, "maximum": 65535}
            ]
        })
    }
}

/// A number, or a template rendering to one (e.g. `"{{ rate }}"` naming an axis).
#[derive(Debug, Clone, PartialEq)]
pub enum NumberOrTemplate {
    Number(f64),
    Template(String),
}

impl<'de> Deserialize<'de> for NumberOrTemplate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = NumberOrTemplate;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or a template such as \"{{ rate }}\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<NumberOrTemplate, E> {
                Ok(NumberOrTemplate::Template(v.to_owned()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<NumberOrTemplate, E> {
                Ok(NumberOrTemplate::Number(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<NumberOrTemplate, E> {
                Ok(NumberOrTemplate::Number(v))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for NumberOrTemplate {
    fn schema_name() -> Cow<'static, str> {
        "NumberOrTemplate".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A number, or a template such as \"{{ rate }}\"",
            "type": ["number", "string"]
        })
    }
}

/// An axis value as written in the spec: a number or a text. Cells carry
/// it (the plan serializes it untagged, so `128` stays `128` in plan.json).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum AxisValue {
    Int(i64),
    Float(f64),
    Text(String),
}

impl fmt::Display for AxisValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AxisValue::Int(v) => write!(f, "{v}"),
            AxisValue::Float(v) => write!(f, "{v}"),
            AxisValue::Text(v) => f.write_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for AxisValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = AxisValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or a string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<AxisValue, E> {
                Ok(AxisValue::Text(v.to_owned()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<AxisValue, E> {
                Ok(AxisValue::Int(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<AxisValue, E> {
                Ok(AxisValue::Float(v))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<AxisValue, E> {
                Ok(AxisValue::Text(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for AxisValue {
    fn schema_name() -> Cow<'static, str> {
        "AxisValue".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": ["integer", "number", "string"] })
    }
}

/// The workload: one request (a map) or several named requests (a list).
#[derive(Debug, Clone)]
pub struct Workload(pub Vec<RequestSpec>);

impl<'de> Deserialize<'de> for Workload {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Workload;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a request map (method, path, ...) or a list of them")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Workload, A::Error> {
                RequestSpec::deserialize(MapAccessDeserializer::new(map)).map(|r| Workload(vec![r]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Workload, A::Error> {
                Vec::<RequestSpec>::deserialize(SeqAccessDeserializer::new(seq)).map(Workload)
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Workload {
    fn schema_name() -> Cow<'static, str> {
        "Workload".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let one = generator.subschema_for::<RequestSpec>();
        let many = generator.subschema_for::<Vec<RequestSpec>>();
        json_schema!({ "oneOf": [one, many] })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_accept_the_documented_units() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
    }

    #[test]
    fn durations_reject_missing_or_unknown_units() {
        assert_eq!(parse_duration("5"), Err("`5` has no unit".into()));
        assert_eq!(parse_duration("5 sec"), Err("unknown unit ` sec`".into()));
        assert_eq!(
            parse_duration("ms"),
            Err("`ms` does not start with a number".into())
        );
        assert_eq!(
            parse_duration("1.2.3s"),
            Err("`1.2.3` is not a number".into())
        );
        assert!(parse_duration("99999h").is_err());
    }
}
