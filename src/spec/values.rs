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

use crate::spec::model::RequestSpec;
use crate::units::{DURATION_HELP, parse_duration};

/// A duration: `250ms`, `5s`, `2m`, `1h`, `1.5s`, `10` (seconds); the rules
/// are [`crate::units::parse_duration`]'s, shared with `runner load`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HumanDuration(pub Duration);

/// Separates a message from its help in custom serde errors (see `explain`).
pub const HELP_SEPARATOR: &str = "\u{1f}help:";

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
            "type": ["string", "number"],
            "pattern": "^\\s*([0-9]+\\.?[0-9]*|\\.[0-9]+)(us|µs|ms|s|m|h)?\\s*$",
            "minimum": 0,
            "description": "A duration: 250ms, 5s, 2m, 1h, 1.5s, 250us; a bare number is seconds",
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

/// The schema of an environment variable's value: YAML gives `4` and
/// `false` as numbers and booleans, and runner takes their text (the spec's
/// reader reads a scalar as a string), so the schema accepts all three
/// rather than refuse what runner runs (`env: { WORK_FACTOR: 10 }`).
pub struct EnvValue;

impl JsonSchema for EnvValue {
    fn schema_name() -> Cow<'static, str> {
        "EnvValue".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": ["string", "number", "boolean"],
            "description": "A variable's value; a number or boolean is passed as its text"
        })
    }
}

/// The schema of `load.protocol`: one of the protocols the generator
/// speaks, or a template (the `protocol` axis), so that an editor refuses
/// `http3` as `runner validate` does.
pub struct ProtocolOrTemplate;

impl JsonSchema for ProtocolOrTemplate {
    fn schema_name() -> Cow<'static, str> {
        "ProtocolOrTemplate".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                { "enum": ["http1", "https", "h2", "h2c"] },
                { "type": "string", "pattern": "\\{\\{" }
            ],
            "description": "http1 (default), https, h2 (HTTP/2 over TLS), h2c, or a template such as \"{{ protocol }}\""
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec reads durations with `runner load`'s rules: a bare number is
    /// seconds, `us` is a unit (the parser's own rules: crate::units).
    #[test]
    fn spec_durations_take_bare_seconds_and_microseconds() {
        let yaml = "experiment: { name: t }\n\
                    runtimes: { py: { start: ./server, health: { path: /, interval: 250us } } }\n\
                    workload: { path: / }\n\
                    load: { connections: 1 }\n\
                    measure: { duration: 5 }\n";
        let loaded = crate::spec::from_text(yaml.into(), std::path::Path::new("t.yaml"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            loaded.spec.measure.duration,
            Some(HumanDuration(Duration::from_secs(5)))
        );
        let health = loaded.runtimes["py"].health.as_ref().unwrap();
        assert_eq!(
            health.interval,
            Some(HumanDuration(Duration::from_micros(250)))
        );
    }
}
