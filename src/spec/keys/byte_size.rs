//! Sizes in a spec: `16MiB`, `512KiB`, `1GiB`, `1MB`, or a bare number of
//! bytes. Written here (a dozen lines of parsing) rather than taken from a
//! crate so that its errors carry the spec's own help text, like durations do.
use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

use crate::spec::values::HELP_SEPARATOR;

/// A size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSize(pub u64);

pub(crate) const SIZE_HELP: &str = "write a number with a unit: B, KiB, MiB, GiB (powers of 1024) or KB, MB, GB (powers of 1000), e.g. `16MiB`";

/// Units, longest first so that `MiB` is not read as `B` after a number `Mi`.
const UNITS: &[(&str, u64)] = &[
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
    ("KB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("B", 1),
];

/// Parses `16MiB`, `1.5GiB`, `100 KB`, `4096`.
pub fn parse_byte_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (number, factor) = UNITS
        .iter()
        .find_map(|(unit, factor)| text.strip_suffix(unit).map(|n| (n.trim_end(), *factor)))
        .unwrap_or((text, 1));
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size"))?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("`{text}` is not a size"));
    }
    let bytes = value * factor as f64;
    if bytes > u64::MAX as f64 {
        return Err(format!("`{text}` is too large"));
    }
    Ok(bytes.round() as u64)
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = ByteSize;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a size such as 16MiB or 512KiB")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ByteSize, E> {
                parse_byte_size(v).map(ByteSize).map_err(|why| {
                    E::custom(format!("invalid size: {why}{HELP_SEPARATOR}{SIZE_HELP}"))
                })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ByteSize, E> {
                u64::try_from(v).map(ByteSize).map_err(|_| {
                    E::custom(format!(
                        "invalid size: {v} is negative{HELP_SEPARATOR}{SIZE_HELP}"
                    ))
                })
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ByteSize, E> {
                Ok(ByteSize(v))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for ByteSize {
    fn schema_name() -> Cow<'static, str> {
        "ByteSize".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": ["string", "integer"],
            "pattern": "^([0-9]+\\.?[0-9]*) ?(B|KiB|MiB|GiB|KB|MB|GB)?$",
            "minimum": 0,
            "description": "A size: 16MiB, 512KiB, 1GiB, 1MB; a bare number is bytes",
            "examples": ["16MiB", "512KiB"]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_units() {
        assert_eq!(parse_byte_size("16MiB"), Ok(16 << 20));
        assert_eq!(parse_byte_size("1.5 KiB"), Ok(1536));
        assert_eq!(parse_byte_size("2GB"), Ok(2_000_000_000));
        assert_eq!(parse_byte_size("4096"), Ok(4096));
        assert_eq!(parse_byte_size("10B"), Ok(10));
    }

    #[test]
    fn nonsense_is_refused() {
        assert!(parse_byte_size("lots").is_err());
        assert!(parse_byte_size("-1MiB").is_err());
        assert!(parse_byte_size("MiB").is_err());
    }
}
