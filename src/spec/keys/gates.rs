//! The `gates:` section: the thresholds by which a measured cell is judged
//! `suspect` or `failed` (see [`crate::plan::Gates`] for the defaults and
//! docs/spec.md for what each gate means). Each gate can be turned off with
//! `off`, for hosts where it says nothing (a shared CI host always makes the
//! generator wait).
use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, de::value::MapAccessDeserializer};

use crate::spec::values::HumanDuration;

/// Thresholds of the cell gates; every field is optional (defaults in docs/spec.md).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with errors, generator_wait, latency_floor, littles_law"
)]
pub struct GatesSpec {
    pub errors: Option<ErrorGateSpec>,
    /// Share of the window the generator's threads waited for a CPU above
    /// which a cell is suspect (default 0.10), or `off`.
    pub generator_wait: Option<Threshold>,
    /// A p50 inside `from..to`, or a quarter of the answers there, from a
    /// service that was nearly idle: the Nagle + delayed-ACK floor. Or `off`.
    pub latency_floor: Option<Switch<LatencyFloorSpec>>,
    /// Closed loop: largest relative gap between the connections and
    /// throughput x mean latency (Little's law) before a cell is suspect
    /// (default 0.10), or `off`.
    pub littles_law: Option<Threshold>,
}

/// Error rate (errors / all answered requests) above which a cell is judged.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with suspect, failed")]
pub struct ErrorGateSpec {
    /// Default 0.001 (0.1%), or `off`.
    pub suspect: Option<Threshold>,
    /// Default 0.05 (5%), or `off`.
    pub failed: Option<Threshold>,
}

/// The latency band and the service CPU share per request of the latency floor gate.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with from, to, max_service_cpus"
)]
pub struct LatencyFloorSpec {
    /// Default `36ms`.
    pub from: Option<HumanDuration>,
    /// Default `48ms`.
    pub to: Option<HumanDuration>,
    /// CPUs the service used during the window (its CPU-seconds / seconds)
    /// below which it counts as idle while the requests waited (default 0.25).
    pub max_service_cpus: Option<f64>,
}

/// A share from 0 to 1, or `off`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Threshold {
    Off,
    At(f64),
}

/// A gate's settings, or `off`.
#[derive(Debug, Clone, PartialEq)]
pub enum Switch<T> {
    Off,
    On(T),
}

const OFF: &str = "off";

/// YAML 1.1 reads a bare `off` (and `no`) as the boolean false: that is `off`
/// too; `true` means nothing here.
fn off_from_bool<E: de::Error>(v: bool, expected: &dyn de::Expected) -> Result<(), E> {
    if v {
        Err(E::invalid_type(de::Unexpected::Bool(v), expected))
    } else {
        Ok(())
    }
}

impl<'de> Deserialize<'de> for Threshold {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Threshold;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a share from 0 to 1 (0.05 = 5%) or `off`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Threshold, E> {
                if v == OFF {
                    Ok(Threshold::Off)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(v), &self))
                }
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Threshold, E> {
                off_from_bool(v, &self).map(|()| Threshold::Off)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Threshold, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Threshold, E> {
                self.visit_f64(v as f64)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Threshold, E> {
                if (0.0..=1.0).contains(&v) {
                    Ok(Threshold::At(v))
                } else {
                    Err(E::invalid_value(de::Unexpected::Float(v), &self))
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Threshold {
    fn schema_name() -> Cow<'static, str> {
        "Threshold".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A share from 0 to 1 (0.05 = 5%), or `off`",
            "anyOf": [
                { "type": "number", "minimum": 0, "maximum": 1 },
                { "const": "off" }
            ]
        })
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Switch<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Switch<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of the gate's settings, or `off`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Switch<T>, E> {
                if v == OFF {
                    Ok(Switch::Off)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(v), &self))
                }
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Switch<T>, E> {
                off_from_bool(v, &self).map(|()| Switch::Off)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Switch<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Switch::On)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<T: JsonSchema> JsonSchema for Switch<T> {
    fn schema_name() -> Cow<'static, str> {
        format!("Switch_{}", T::schema_name()).into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let settings = generator.subschema_for::<T>();
        json_schema!({
            "anyOf": [ settings, { "const": "off" } ]
        })
    }
}

/// Checks across the gate fields: the `failed` error rate not below the
/// `suspect` one, a latency band that is not empty.
pub fn check_gates(gates: &GatesSpec, out: &mut Vec<crate::spec::validate::Finding>) {
    use crate::spec::validate::Finding;
    if let Some(errors) = &gates.errors
        && let (Some(Threshold::At(suspect)), Some(Threshold::At(failed))) =
            (errors.suspect, errors.failed)
        && failed < suspect
    {
        out.push(Finding {
            field: "gates.errors.failed".into(),
            message: format!(
                "the error rate that fails a cell ({failed}) is below the one that makes it suspect ({suspect})"
            ),
            help: "make `failed` at least `suspect`, e.g. `errors: { suspect: 0.001, failed: 0.05 }`"
                .into(),
        });
    }
    if let Some(Switch::On(floor)) = &gates.latency_floor {
        if let (Some(from), Some(to)) = (floor.from, floor.to)
            && to.0 <= from.0
        {
            out.push(Finding {
                field: "gates.latency_floor.to".into(),
                message: format!(
                    "the latency floor band is empty: `to` ({:?}) is not above `from` ({:?})",
                    to.0, from.0
                ),
                help: "e.g. `latency_floor: { from: 36ms, to: 48ms }`".into(),
            });
        }
        if let Some(cpus) = floor.max_service_cpus
            && !(cpus.is_finite() && cpus >= 0.0)
        {
            out.push(Finding {
                field: "gates.latency_floor.max_service_cpus".into(),
                message: format!("max_service_cpus {cpus} is not a number of CPUs"),
                help: "e.g. `max_service_cpus: 0.25` (a quarter of one CPU)".into(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gates_of(yaml: &str) -> GatesSpec {
        let text = format!(
            "experiment: {{ name: g }}\nruntimes: {{ a: {{ start: ./a }} }}\n\
             workload: {{ path: /x }}\nload: {{ connections: 1 }}\nmeasure: {{ duration: 1s }}\n{yaml}"
        );
        let loaded = crate::spec::from_text(text, std::path::Path::new("g.yaml"))
            .unwrap_or_else(|e| panic!("{e}"));
        loaded.spec.gates.unwrap()
    }

    #[test]
    fn a_bare_off_turns_a_gate_off_though_yaml_reads_it_as_false() {
        let g = gates_of("gates: { latency_floor: off, generator_wait: off, littles_law: 0.2 }\n");
        assert_eq!(g.latency_floor, Some(Switch::Off));
        assert_eq!(g.generator_wait, Some(Threshold::Off));
        assert_eq!(g.littles_law, Some(Threshold::At(0.2)));
    }

    #[test]
    fn a_gate_map_is_read_field_by_field() {
        let g = gates_of("gates:\n  errors: { suspect: 0.01 }\n  latency_floor: { to: 60ms }\n");
        assert_eq!(g.errors.unwrap().suspect, Some(Threshold::At(0.01)));
        let Some(Switch::On(floor)) = g.latency_floor else {
            panic!("latency_floor not read")
        };
        assert_eq!(floor.to.unwrap().0, std::time::Duration::from_millis(60));
        assert_eq!(floor.from, None);
    }
}
