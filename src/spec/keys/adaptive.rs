//! The spec's adaptive designs: `repeats` as a fixed count or a range with
//! a target interval width, `warmup.cell` as a duration or `auto`.
//!
//! Both accept two YAML shapes, so each has a hand-written `Deserialize`
//! (like the other shapes in [`crate::spec::values`]) whose error names both.
use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use crate::spec::values::{HELP_SEPARATOR, HumanDuration};
use crate::units::{DURATION_HELP, parse_duration};

/// `repeats: 5` (every configuration exactly 5 times),
/// `repeats: { min: 3, max: 10, target_ci: 3% }` (repeats are added to a
/// configuration until its 95% interval is that narrow, or `max` is reached)
/// or `repeats: { min: 3, max: 10, until: decided }` (repeats go on, round
/// after round, for the runtimes whose findings are still open).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RepeatsSpec {
    Fixed(u32),
    Adaptive(AdaptiveRepeatsSpec),
}

impl Default for RepeatsSpec {
    fn default() -> Self {
        RepeatsSpec::Fixed(1)
    }
}

/// The adaptive form of `repeats`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with min, max and target_ci or until (e.g. { min: 3, max: 10, target_ci: 3% })"
)]
pub struct AdaptiveRepeatsSpec {
    /// Repeats every configuration gets (at least 2: an interval needs two).
    pub min: u32,
    /// Repeats a configuration gets at most.
    pub max: u32,
    /// The half-width of the 95% interval of the configuration's mean
    /// throughput, relative to it (`3%`), at which no more repeats are added.
    #[serde(default)]
    pub target_ci: Option<Percent>,
    /// `decided`: after each round, the runtimes whose findings
    /// (docs/findings.md) on throughput, CPU per request and memory are all
    /// settled get no more repeats.
    #[serde(default)]
    pub until: Option<UntilSpec>,
}

/// What adaptive repeats go on until (`until:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum UntilSpec {
    /// Every finding of the runtime is decided, within 5%, or out of reach by `max`.
    Decided,
}

impl<'de> Deserialize<'de> for RepeatsSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RepeatsSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a whole number of repeats, or a map { min, max, target_ci } or { min, max, until: decided }",
                )
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RepeatsSpec, E> {
                u32::try_from(v)
                    .map(RepeatsSpec::Fixed)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RepeatsSpec, E> {
                u32::try_from(v)
                    .map(RepeatsSpec::Fixed)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RepeatsSpec, A::Error> {
                AdaptiveRepeatsSpec::deserialize(MapAccessDeserializer::new(map))
                    .map(RepeatsSpec::Adaptive)
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for RepeatsSpec {
    fn schema_name() -> Cow<'static, str> {
        "Repeats".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let adaptive = generator.subschema_for::<AdaptiveRepeatsSpec>();
        json_schema!({
            "description": "How many times every configuration is measured: a fixed count, { min, max, target_ci } to add repeats until the 95% interval of its throughput is that narrow, or { min, max, until: decided } to add rounds while a runtime's findings are open",
            "oneOf": [{"type": "integer", "minimum": 1}, adaptive]
        })
    }
}

impl RepeatsSpec {
    /// Whether this is `{ until: decided }`.
    pub fn until_decided(&self) -> bool {
        matches!(self, RepeatsSpec::Adaptive(a) if a.until == Some(UntilSpec::Decided))
    }

    /// What is wrong with these repeats, as (message, help); `None`: fine.
    pub fn problem(&self) -> Option<(String, String)> {
        match *self {
            RepeatsSpec::Fixed(0) => Some((
                "repeats is 0".into(),
                "measure every configuration at least once: `repeats: 1` or more".into(),
            )),
            RepeatsSpec::Fixed(_) => None,
            RepeatsSpec::Adaptive(a) if a.min < 2 => Some((
                format!("adaptive repeats need `min` of at least 2, not {}", a.min),
                "an interval needs two repeats: write `min: 2` or more (or a fixed `repeats: 1`)"
                    .into(),
            )),
            RepeatsSpec::Adaptive(a) if a.max < a.min => Some((
                format!("`max` ({}) is below `min` ({})", a.max, a.min),
                "write `max` at least as large as `min`".into(),
            )),
            RepeatsSpec::Adaptive(a) if a.target_ci.is_some() == a.until.is_some() => Some((
                "adaptive repeats need exactly one of `target_ci` and `until`".into(),
                "write `target_ci: 3%` (each configuration until its interval is that narrow) or \
                 `until: decided` (rounds while a runtime's findings are open)"
                    .into(),
            )),
            RepeatsSpec::Adaptive(_) => None,
        }
    }
}

/// What is wrong with `warmup.max`, as (message, help): it only applies to
/// `cell: auto`, and must leave time for a window.
pub fn warmup_problem(warmup: &crate::spec::model::WarmupSpec) -> Option<(String, String)> {
    let max = warmup.max?;
    if warmup.cell != Some(CellWarmupSpec::Auto) {
        return Some((
            "`warmup.max` is set but `warmup.cell` is not `auto`".into(),
            "write `cell: auto` to end each warmup when throughput stops trending, or remove `max`"
                .into(),
        ));
    }
    (max.0 < std::time::Duration::from_secs(1)).then(|| {
        (
            format!("`warmup.max` is {:?}, shorter than one 1 s window", max.0),
            "write `max: 30s` or at least `1s`".into(),
        )
    })
}

/// A percentage written `3%` (or a bare `3`), held as a fraction (0.03).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Percent(pub f64);

const PERCENT_HELP: &str = "write a percentage above 0 and below 100, e.g. `3%`";

impl<'de> Deserialize<'de> for Percent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl V {
            fn of<E: de::Error>(v: f64, text: &str) -> Result<Percent, E> {
                if v.is_finite() && v > 0.0 && v < 100.0 {
                    Ok(Percent(v / 100.0))
                } else {
                    Err(E::custom(format!(
                        "`{text}` is not a percentage above 0 and below 100{HELP_SEPARATOR}{PERCENT_HELP}"
                    )))
                }
            }
        }
        impl Visitor<'_> for V {
            type Value = Percent;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a percentage such as 3%")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Percent, E> {
                let number = v.trim().trim_end_matches('%').trim();
                match number.parse::<f64>() {
                    Ok(n) => V::of(n, v),
                    Err(_) => Err(E::custom(format!(
                        "`{v}` is not a percentage{HELP_SEPARATOR}{PERCENT_HELP}"
                    ))),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Percent, E> {
                V::of(v as f64, &v.to_string())
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Percent, E> {
                V::of(v as f64, &v.to_string())
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Percent, E> {
                V::of(v, &v.to_string())
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Percent {
    fn schema_name() -> Cow<'static, str> {
        "Percent".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": ["string", "number"],
            "pattern": "^[0-9]+\\.?[0-9]*%?$",
            "description": "A percentage: 3%, 2.5%",
            "examples": ["3%"]
        })
    }
}

/// `warmup.cell`: a duration (`3s`), `auto`: load is applied until the
/// throughput of consecutive 1 s windows stops trending, at most
/// `warmup.max`, or `{ requests: 1000 }`: that many requests (the 2020
/// study's "warmup by 1,000 calls"), sent at the cell's load shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellWarmupSpec {
    Fixed(HumanDuration),
    Auto,
    Requests(u64),
}

/// The map form of `warmup.cell`: `{ requests: 1000 }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with requests (e.g. { requests: 1000 })"
)]
pub struct WarmupRequestsSpec {
    /// Requests sent before the cell's window (at least 1), not recorded.
    pub requests: u64,
}

impl<'de> Deserialize<'de> for CellWarmupSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CellWarmupSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration such as 3s, `auto`, or { requests: 1000 }")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<CellWarmupSpec, A::Error> {
                let spec = WarmupRequestsSpec::deserialize(MapAccessDeserializer::new(map))?;
                if spec.requests == 0 {
                    return Err(de::Error::custom(format!(
                        "a warmup of 0 requests warms nothing{HELP_SEPARATOR}write `requests: 1000` \
                         (or more), or leave `warmup.cell` out for no warmup"
                    )));
                }
                Ok(CellWarmupSpec::Requests(spec.requests))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<CellWarmupSpec, E> {
                if v.trim() == "auto" {
                    return Ok(CellWarmupSpec::Auto);
                }
                parse_duration(v)
                    .map(|d| CellWarmupSpec::Fixed(HumanDuration(d)))
                    .map_err(|why| {
                        E::custom(format!(
                            "invalid warmup: {why}{HELP_SEPARATOR}write `auto` or a duration; {DURATION_HELP}"
                        ))
                    })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<CellWarmupSpec, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<CellWarmupSpec, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<CellWarmupSpec, E> {
                self.visit_str(&v.to_string())
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for CellWarmupSpec {
    fn schema_name() -> Cow<'static, str> {
        "CellWarmup".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let duration = generator.subschema_for::<HumanDuration>();
        let requests = generator.subschema_for::<WarmupRequestsSpec>();
        json_schema!({
            "description": "Load before each cell, not recorded: a duration, `auto` (until the throughput of 1 s windows stops trending, at most `warmup.max`), or { requests: N } (N requests at the cell's load shape)",
            "oneOf": [{"const": "auto"}, duration, requests]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(extra: &str) -> Result<crate::spec::LoadedSpec, crate::spec::SpecErrors> {
        let yaml = format!(
            "experiment: {{ name: t }}\n\
             runtimes: {{ a: {{ start: ./a }} }}\n\
             workload: {{ path: / }}\n\
             load: {{ connections: 1 }}\n\
             measure: {{ duration: 1s }}\n{extra}"
        );
        crate::spec::from_text(yaml, std::path::Path::new("t.yaml"))
    }

    #[test]
    fn repeats_take_a_count_or_a_range_with_a_target() {
        let fixed = spec("repeats: 4\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(fixed.spec.repeats, RepeatsSpec::Fixed(4));
        let adaptive =
            spec("repeats: { min: 3, max: 10, target_ci: 3% }\n").unwrap_or_else(|e| panic!("{e}"));
        let RepeatsSpec::Adaptive(a) = adaptive.spec.repeats else {
            panic!("{:?}", adaptive.spec.repeats)
        };
        assert_eq!((a.min, a.max), (3, 10));
        assert!((a.target_ci.expect("target_ci").0 - 0.03).abs() < 1e-12);
        let wrong = spec("repeats: { min: 3, max: 10, target_ci: 300% }\n").unwrap_err();
        assert!(wrong.to_string().contains("repeats.target_ci"), "{wrong}");
        let low = spec("repeats: { min: 1, max: 10, target_ci: 3% }\n").unwrap_err();
        assert!(low.to_string().contains("min"), "{low}");
        let typo = spec("repeats: { min: 3, most: 10, target_ci: 3% }\n").unwrap_err();
        assert!(typo.to_string().contains("most"), "{typo}");
    }

    #[test]
    fn cell_warmup_is_a_duration_or_auto() {
        let auto = spec("warmup: { cell: auto, max: 20s }\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(auto.spec.warmup.cell, Some(CellWarmupSpec::Auto));
        let fixed = spec("warmup: { cell: 2s }\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            fixed.spec.warmup.cell,
            Some(CellWarmupSpec::Fixed(HumanDuration(
                std::time::Duration::from_secs(2)
            )))
        );
        let wrong = spec("warmup: { cell: soon }\n").unwrap_err();
        assert!(wrong.to_string().contains("warmup.cell"), "{wrong}");
        let stray = spec("warmup: { cell: 2s, max: 20s }\n").unwrap_err();
        assert!(stray.to_string().contains("warmup.max"), "{stray}");
    }

    #[test]
    fn cell_warmup_takes_a_request_count() {
        let count =
            spec("warmup: { cell: { requests: 1000 } }\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(count.spec.warmup.cell, Some(CellWarmupSpec::Requests(1000)));
        let zero = spec("warmup: { cell: { requests: 0 } }\n").unwrap_err();
        assert!(zero.to_string().contains("0 requests"), "{zero}");
        let typo = spec("warmup: { cell: { request: 10 } }\n").unwrap_err();
        assert!(typo.to_string().contains("request"), "{typo}");
        let stray = spec("warmup: { cell: { requests: 10 }, max: 20s }\n").unwrap_err();
        assert!(stray.to_string().contains("warmup.max"), "{stray}");
    }
}
