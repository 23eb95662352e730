//! A serde `Deserializer` over the loose tree ([`crate::spec::tree::Node`]).
//!
//! Reading the typed model from the tree, rather than straight from the text,
//! gives every serde error its field path and position, and lets
//! [`read_all`] keep going after an error: the offending node is pruned and
//! the read repeated, so one `validate` run lists every unknown key and every
//! wrong value instead of stopping at the first.
use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

use crate::spec::tree::{Key, Kind, Node, Pos};

/// Why a node could not be read into its typed field.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadErrorKind {
    UnknownField {
        field: String,
        expected: Vec<&'static str>,
    },
    UnknownVariant {
        variant: String,
        expected: Vec<&'static str>,
    },
    MissingField(&'static str),
    /// `expected` is serde's description of the wanted type.
    InvalidType {
        expected: String,
    },
    InvalidValue {
        expected: String,
    },
    Custom(String),
}

/// A read error, located once the deserializer of the failing node sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadError {
    pub kind: ReadErrorKind,
    /// Field path from the root; empty until located.
    pub path: Vec<String>,
    pub pos: Pos,
    /// What the failing node holds, in words ("the string \"x\"").
    pub found: String,
    located: bool,
}

impl ReadError {
    fn new(kind: ReadErrorKind) -> Self {
        ReadError {
            kind,
            path: Vec::new(),
            pos: Pos::default(),
            found: String::new(),
            located: false,
        }
    }

    fn at(mut self, path: &[String], node_pos: Pos, found: impl FnOnce() -> String) -> Self {
        if !self.located {
            self.located = true;
            self.path = path.to_vec();
            self.pos = node_pos;
            self.found = found();
        }
        self
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{:?} at {}", self.kind, self.path.join("."))
    }
}

impl std::error::Error for ReadError {}

impl de::Error for ReadError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        ReadError::new(ReadErrorKind::Custom(msg.to_string()))
    }
    fn invalid_type(_: de::Unexpected, exp: &dyn de::Expected) -> Self {
        ReadError::new(ReadErrorKind::InvalidType {
            expected: exp.to_string(),
        })
    }
    fn invalid_value(_: de::Unexpected, exp: &dyn de::Expected) -> Self {
        ReadError::new(ReadErrorKind::InvalidValue {
            expected: exp.to_string(),
        })
    }
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        ReadError::new(ReadErrorKind::UnknownField {
            field: field.to_owned(),
            expected: expected.to_vec(),
        })
    }
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        ReadError::new(ReadErrorKind::UnknownVariant {
            variant: variant.to_owned(),
            expected: expected.to_vec(),
        })
    }
    fn missing_field(field: &'static str) -> Self {
        ReadError::new(ReadErrorKind::MissingField(field))
    }
}

/// Reads `T` from the tree, collecting every error it can.
///
/// After each error the failing node is removed (an unknown key, a wrong
/// value, a bad list item) and the read is repeated. A missing required field
/// ends the loop: nothing can be pruned to fix it. Errors caused by an
/// earlier pruning (the field now missing) are not reported twice.
///
/// Returns the value read from the pruned tree when there is one (so later
/// checks can still run on the rest of the spec) and the errors.
pub fn read_all<T: DeserializeOwned>(root: &Node) -> (Option<T>, Vec<ReadError>) {
    const MAX_ROUNDS: usize = 64;
    let mut tree = root.clone();
    let mut errors: Vec<ReadError> = Vec::new();
    for _ in 0..MAX_ROUNDS {
        match T::deserialize(NodeDe {
            node: &tree,
            path: Vec::new(),
        }) {
            Ok(value) => return (Some(value), errors),
            Err(error) => {
                if let ReadErrorKind::MissingField(field) = &error.kind {
                    let mut path = error.path.clone();
                    path.push((*field).to_owned());
                    let pruned_before = errors.iter().any(|e| e.path == path);
                    if !pruned_before {
                        errors.push(error);
                    }
                    return (None, errors);
                }
                let pruned = !error.path.is_empty() && prune(&mut tree, &error.path);
                errors.push(error);
                if !pruned {
                    return (None, errors);
                }
            }
        }
    }
    (None, errors)
}

/// Removes the node at `path` (a map entry or a list item). False if absent.
fn prune(node: &mut Node, path: &[String]) -> bool {
    let Some((last, parents)) = path.split_last() else {
        return false;
    };
    let mut node = node;
    for segment in parents {
        let next = match &mut node.kind {
            Kind::Map(entries) => entries
                .iter_mut()
                .find(|(k, _)| &k.text == segment)
                .map(|(_, v)| v),
            Kind::Seq(items) => segment.parse::<usize>().ok().and_then(|i| items.get_mut(i)),
            _ => None,
        };
        match next {
            Some(child) => node = child,
            None => return false,
        }
    }
    match &mut node.kind {
        Kind::Map(entries) => {
            let before = entries.len();
            entries.retain(|(k, _)| &k.text != last);
            entries.len() < before
        }
        Kind::Seq(items) => match last.parse::<usize>() {
            Ok(i) if i < items.len() => {
                items.remove(i);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// Deserializes one node; `path` is its field path from the root.
struct NodeDe<'a> {
    node: &'a Node,
    path: Vec<String>,
}

impl NodeDe<'_> {
    fn locate(&self, e: ReadError) -> ReadError {
        e.at(&self.path, self.node.pos, || self.node.kind.describe())
    }

    /// A scalar written for a string field: numbers and booleans are taken
    /// as their text (`GOMAXPROCS: 2` means "2").
    fn scalar_text(&self) -> Option<String> {
        match &self.node.kind {
            Kind::Str(s) => Some(s.clone()),
            Kind::Int(i) => Some(i.to_string()),
            Kind::Float(f) => Some(f.to_string()),
            Kind::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }
}

macro_rules! forward_to_any {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
            self.deserialize_any(visitor)
        })*
    };
}

impl<'de> de::Deserializer<'de> for NodeDe<'_> {
    type Error = ReadError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        let result = match &self.node.kind {
            Kind::Null => visitor.visit_unit(),
            Kind::Bool(b) => visitor.visit_bool(*b),
            Kind::Int(i) => visitor.visit_i64(*i),
            Kind::Float(f) => visitor.visit_f64(*f),
            Kind::Str(s) => visitor.visit_str(s),
            Kind::Seq(items) => visitor.visit_seq(SeqDe {
                items,
                index: 0,
                path: &self.path,
            }),
            Kind::Map(entries) => visitor.visit_map(MapDe {
                entries,
                index: 0,
                path: &self.path,
            }),
        };
        result.map_err(|e| self.locate(e))
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        let result = match self.scalar_text() {
            Some(text) => visitor.visit_string(text),
            None => return self.deserialize_any(visitor),
        };
        result.map_err(|e| self.locate(e))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.node.kind {
            Kind::Null => visitor.visit_none().map_err(|e| self.locate(e)),
            _ => {
                let pos = self.node.pos;
                let describe = self.node.kind.describe();
                let path = self.path.clone();
                visitor
                    .visit_some(self)
                    .map_err(|e| e.at(&path, pos, || describe))
            }
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        let pos = self.node.pos;
        let describe = self.node.kind.describe();
        let path = self.path.clone();
        visitor
            .visit_newtype_struct(self)
            .map_err(|e| e.at(&path, pos, || describe))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        let result = match &self.node.kind {
            Kind::Str(s) => visitor.visit_enum(UnitVariant(s.clone())),
            _ => Err(de::Error::invalid_type(
                de::Unexpected::Other("non-string"),
                &visitor,
            )),
        };
        result.map_err(|e| self.locate(e))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        visitor.visit_unit()
    }

    forward_to_any! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_f32
        deserialize_f64 deserialize_char deserialize_bytes deserialize_byte_buf deserialize_unit
        deserialize_seq deserialize_map deserialize_identifier deserialize_i128 deserialize_u128
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        v: V,
    ) -> Result<V::Value, ReadError> {
        self.deserialize_any(v)
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, v: V) -> Result<V::Value, ReadError> {
        self.deserialize_any(v)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        v: V,
    ) -> Result<V::Value, ReadError> {
        self.deserialize_any(v)
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, ReadError> {
        // Only a map is a struct in a spec (serde would also take a list).
        match self.node.kind {
            Kind::Map(_) => self.deserialize_any(v),
            _ => Err(self.locate(de::Error::invalid_type(
                de::Unexpected::Other("non-map"),
                &v,
            ))),
        }
    }
}

struct SeqDe<'a> {
    items: &'a [Node],
    index: usize,
    path: &'a [String],
}

impl<'de> SeqAccess<'de> for SeqDe<'_> {
    type Error = ReadError;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, ReadError> {
        let Some(node) = self.items.get(self.index) else {
            return Ok(None);
        };
        let mut path = self.path.to_vec();
        path.push(self.index.to_string());
        self.index += 1;
        seed.deserialize(NodeDe { node, path }).map(Some)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len() - self.index)
    }
}

struct MapDe<'a> {
    entries: &'a [(Key, Node)],
    index: usize,
    path: &'a [String],
}

impl<'de> MapAccess<'de> for MapDe<'_> {
    type Error = ReadError;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ReadError> {
        let Some((key, _)) = self.entries.get(self.index) else {
            return Ok(None);
        };
        let mut path = self.path.to_vec();
        path.push(key.text.clone());
        let text: serde::de::value::StrDeserializer<ReadError> =
            key.text.as_str().into_deserializer();
        seed.deserialize(text)
            .map(Some)
            .map_err(|e| e.at(&path, key.pos, || format!("the key `{}`", key.text)))
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, ReadError> {
        let (key, node) = &self.entries[self.index];
        self.index += 1;
        let mut path = self.path.to_vec();
        path.push(key.text.clone());
        seed.deserialize(NodeDe { node, path })
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len() - self.index)
    }
}

/// A unit enum variant written as a plain string (`mode: closed`).
struct UnitVariant(String);

impl<'de> EnumAccess<'de> for UnitVariant {
    type Error = ReadError;
    type Variant = Self;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), ReadError> {
        let name: serde::de::value::StrDeserializer<ReadError> =
            self.0.as_str().into_deserializer();
        let value = seed.deserialize(name)?;
        Ok((value, self))
    }
}

impl<'de> VariantAccess<'de> for UnitVariant {
    type Error = ReadError;
    fn unit_variant(self) -> Result<(), ReadError> {
        Ok(())
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _: T) -> Result<T::Value, ReadError> {
        Err(de::Error::custom("this variant needs a value"))
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, ReadError> {
        Err(de::Error::custom("this variant needs a value"))
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, ReadError> {
        Err(de::Error::custom("this variant needs a value"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        timeout: u32,
        #[serde(default)]
        name: String,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        #[allow(dead_code)]
        inner: Inner,
        list: Vec<u32>,
    }

    fn tree(yaml: &str) -> Node {
        serde_saphyr::from_str(yaml).unwrap()
    }

    #[test]
    fn collects_every_unknown_key_and_bad_item_with_paths() {
        let (value, errors) = read_all::<Outer>(&tree(
            "inner:\n  timout: 1\n  timeout: 2\n  nam: x\nlist: [1, x, 3]\n",
        ));
        assert_eq!(value.unwrap().list, [1, 3], "the rest is still read");
        let paths: Vec<String> = errors.iter().map(|e| e.path.join(".")).collect();
        assert_eq!(paths, ["inner.timout", "inner.nam", "list.1"]);
        assert_eq!(errors[0].pos, Pos { line: 2, col: 3 });
        assert!(
            matches!(&errors[0].kind, ReadErrorKind::UnknownField { field, .. } if field == "timout")
        );
        assert_eq!(errors[2].found, "the string \"x\"");
    }

    #[test]
    fn a_pruned_required_field_is_not_reported_again_as_missing() {
        let (_, errors) = read_all::<Outer>(&tree("inner:\n  timeout: x\nlist: []\n"));
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].path.join("."), "inner.timeout");
    }

    #[test]
    fn a_missing_field_names_its_parent() {
        let (value, errors) = read_all::<Outer>(&tree("list: []\n"));
        assert!(value.is_none());
        assert_eq!(errors[0].kind, ReadErrorKind::MissingField("inner"));
        assert!(errors[0].path.is_empty());
    }
}
