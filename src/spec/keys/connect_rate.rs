//! `load.connect_rate`: how fast the generator opens its connections before
//! a run (`2000/s`, or a bare number of connections per second), so that
//! 10,000 connections reach the service paced instead of all at once.
use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserialize, Deserializer, Visitor};

use crate::spec::values::HELP_SEPARATOR;

/// Connections per second, above 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConnectRate(pub f64);

const CONNECT_RATE_HELP: &str =
    "write connections per second above 0, e.g. `connect_rate: 2000/s` (the default)";

impl ConnectRate {
    fn of<E: de::Error>(v: f64, text: &str) -> Result<ConnectRate, E> {
        if v.is_finite() && v > 0.0 {
            Ok(ConnectRate(v))
        } else {
            Err(E::custom(format!(
                "`{text}` is not a connect rate above 0{HELP_SEPARATOR}{CONNECT_RATE_HELP}"
            )))
        }
    }
}

impl<'de> Deserialize<'de> for ConnectRate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = ConnectRate;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("connections per second such as 2000/s")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ConnectRate, E> {
                let number = v.trim();
                let number = number.strip_suffix("/s").unwrap_or(number).trim();
                match number.parse::<f64>() {
                    Ok(n) => ConnectRate::of(n, v),
                    Err(_) => Err(E::custom(format!(
                        "`{v}` is not a connect rate{HELP_SEPARATOR}{CONNECT_RATE_HELP}"
                    ))),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ConnectRate, E> {
                ConnectRate::of(v as f64, &v.to_string())
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ConnectRate, E> {
                ConnectRate::of(v as f64, &v.to_string())
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<ConnectRate, E> {
                ConnectRate::of(v, &v.to_string())
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for ConnectRate {
    fn schema_name() -> Cow<'static, str> {
        "ConnectRate".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": ["string", "number"],
            "pattern": "^[0-9]+\\.?[0-9]*(/s)?$",
            "description": "Connections opened per second before a run: 2000/s, 500",
            "examples": ["2000/s"]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::value::{Error, F64Deserializer, StrDeserializer};

    #[test]
    fn reads_per_second_rates_and_refuses_zero() {
        let read = |text: &str| ConnectRate::deserialize(StrDeserializer::<Error>::new(text));
        assert_eq!(read("2000/s").unwrap(), ConnectRate(2000.0));
        assert_eq!(read("500").unwrap(), ConnectRate(500.0));
        assert!(read("0/s").unwrap_err().to_string().contains("above 0"));
        assert!(
            read("fast")
                .unwrap_err()
                .to_string()
                .contains("connect_rate: 2000/s")
        );
        let n = ConnectRate::deserialize(F64Deserializer::<Error>::new(250.0)).unwrap();
        assert_eq!(n, ConnectRate(250.0));
    }
}
