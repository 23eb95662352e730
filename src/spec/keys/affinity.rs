//! `affinity`: CPUs for the service and the load generator, or `none`.
//!
//! Left out, the plan pins the two to disjoint CPUs on hosts with at least
//! four (see `plan::pinning`); `affinity: none` keeps them unpinned there
//! too, and a map pins them as written.
use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};

use crate::spec::model::AffinitySpec;

/// What the spec says about CPU pinning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AffinitySetting {
    /// `affinity: none`: never pin, whatever the host.
    None,
    /// `affinity: { service: [...], load: [...] }`.
    Cpus(AffinitySpec),
}

impl AffinitySetting {
    /// The CPUs written in the spec, if any.
    pub fn cpus(&self) -> Option<&AffinitySpec> {
        match self {
            AffinitySetting::None => None,
            AffinitySetting::Cpus(cpus) => Some(cpus),
        }
    }
}

impl<'de> Deserialize<'de> for AffinitySetting {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AffinitySetting;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("`none` or a map with service and load CPU lists")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<AffinitySetting, E> {
                match v {
                    "none" => Ok(AffinitySetting::None),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<AffinitySetting, A::Error> {
                AffinitySpec::deserialize(MapAccessDeserializer::new(map))
                    .map(AffinitySetting::Cpus)
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for AffinitySetting {
    fn schema_name() -> Cow<'static, str> {
        "Affinity".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let cpus = generator.subschema_for::<AffinitySpec>();
        json_schema!({
            "description": "CPU pinning: `none`, or the CPUs of the service and of the load \
                generator. Left out: disjoint CPUs on hosts with 4 or more, none below.",
            "oneOf": [{"const": "none"}, cpus]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn affinity_of(line: &str) -> Result<Option<AffinitySetting>, String> {
        let yaml = format!(
            "experiment: {{ name: t }}\nruntimes: {{ a: {{ start: ./a }} }}\n\
             workload: {{ path: / }}\nmeasure: {{ duration: 1s }}\nload: {{ connections: 1 }}\n{line}"
        );
        crate::spec::from_text(yaml, std::path::Path::new("t.yaml"))
            .map(|l| l.spec.affinity)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn none_a_map_or_nothing() {
        assert_eq!(affinity_of("").unwrap(), None);
        assert_eq!(
            affinity_of("affinity: none\n").unwrap(),
            Some(AffinitySetting::None)
        );
        assert_eq!(
            affinity_of("affinity: { service: [1, 2], load: [0] }\n").unwrap(),
            Some(AffinitySetting::Cpus(AffinitySpec {
                service: vec![1, 2],
                load: vec![0]
            }))
        );
        let wrong = affinity_of("affinity: off\n").unwrap_err();
        assert!(
            wrong.contains("t.yaml:6:11") && wrong.contains("`none`"),
            "{wrong}"
        );
    }
}
