//! The loose YAML tree: every node with its source position.
//!
//! The spec is parsed in two steps. First serde-saphyr turns the text into
//! this untyped tree (syntax errors, duplicate keys and budget breaches are
//! caught here, with their positions). The typed model is then read from the
//! tree by [`crate::spec::de`], which knows each node's path and position, so
//! every later error can say `file:line:col` and `runtimes.x.health.timeout`,
//! and several problems can be reported in one pass.
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

/// A 1-based line and column in the spec file (0:0 = unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: u64,
    pub col: u64,
}

impl Pos {
    fn of<T>(spanned: &Spanned<T>) -> Pos {
        Pos {
            line: spanned.referenced.line(),
            col: spanned.referenced.column(),
        }
    }
}

/// One YAML node and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub pos: Pos,
    pub kind: Kind,
}

/// A YAML value as the core schema resolves it.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    /// Entries in file order; keys are rendered as text.
    Map(Vec<(Key, Node)>),
}

/// A mapping key and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub pos: Pos,
    pub text: String,
}

impl Kind {
    /// What the user wrote, in words, for "expected X, found Y" messages.
    pub fn describe(&self) -> String {
        match self {
            Kind::Null => "nothing (null)".into(),
            Kind::Bool(b) => format!("the boolean `{b}`"),
            Kind::Int(i) => format!("the integer `{i}`"),
            Kind::Float(f) => format!("the number `{f}`"),
            Kind::Str(s) => format!("the string \"{}\"", s.escape_debug()),
            Kind::Seq(_) => "a list".into(),
            Kind::Map(_) => "a map".into(),
        }
    }
}

impl Node {
    /// The entry `key` of a map node.
    pub fn get(&self, key: &str) -> Option<(&Key, &Node)> {
        match &self.kind {
            Kind::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.text == key)
                .map(|(k, v)| (k, v)),
            _ => None,
        }
    }

    /// Follows a dotted path of keys and list indices (`runtimes.go.build.0`).
    /// Returns the deepest node reached and whether the whole path was found.
    pub fn lookup(&self, path: &[String]) -> (Pos, bool) {
        let mut node = self;
        for (i, segment) in path.iter().enumerate() {
            let next = match &node.kind {
                Kind::Map(_) => node.get(segment).map(|(k, v)| {
                    // The last segment points at the key itself: that is where
                    // the user should look (`timout:`), not at its value.
                    if i + 1 == path.len() {
                        (k.pos, v)
                    } else {
                        (v.pos, v)
                    }
                }),
                Kind::Seq(items) => segment
                    .parse::<usize>()
                    .ok()
                    .and_then(|ix| items.get(ix))
                    .map(|v| (v.pos, v)),
                _ => None,
            };
            match next {
                Some((pos, _)) if i + 1 == path.len() => return (pos, true),
                Some((_, child)) => node = child,
                None => return (node.pos, false),
            }
        }
        (node.pos, true)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Kind;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Kind, E> {
        Ok(Kind::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Kind, E> {
        Ok(Kind::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Kind, E> {
        Ok(i64::try_from(v)
            .map(Kind::Int)
            .unwrap_or(Kind::Float(v as f64)))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Kind, E> {
        Ok(i64::try_from(v)
            .map(Kind::Int)
            .unwrap_or(Kind::Float(v as f64)))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Kind, E> {
        Ok(i64::try_from(v)
            .map(Kind::Int)
            .unwrap_or(Kind::Float(v as f64)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Kind, E> {
        Ok(Kind::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Kind, E> {
        Ok(Kind::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Kind, E> {
        Ok(Kind::Str(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Kind, E> {
        Ok(Kind::Str(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_none<E>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }
    fn visit_unit<E>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Kind, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Kind::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Node>()? {
            let text = match key.kind {
                Kind::Str(s) => s,
                Kind::Int(i) => i.to_string(),
                Kind::Float(f) => f.to_string(),
                Kind::Bool(b) => b.to_string(),
                Kind::Null => "null".into(),
                Kind::Seq(_) | Kind::Map(_) => {
                    return Err(de::Error::custom(
                        "a map key must be a plain value, not a list or map",
                    ));
                }
            };
            let value = map.next_value::<Node>()?;
            entries.push((Key { pos: key.pos, text }, value));
        }
        Ok(Kind::Map(entries))
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Inner(Kind);
        impl<'de> Deserialize<'de> for Inner {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(NodeVisitor).map(Inner)
            }
        }
        let spanned = Spanned::<Inner>::deserialize(d)?;
        let pos = Pos::of(&spanned);
        Ok(Node {
            pos,
            kind: spanned.value.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_positions_of_nested_nodes_and_keys() {
        let root: Node = serde_saphyr::from_str("a:\n  bb: [1, x]\n  c: 2.5\n").unwrap();
        let (pos, found) = root.lookup(&["a".into(), "bb".into()]);
        assert!(found);
        assert_eq!(pos, Pos { line: 2, col: 3 });
        let (pos, _) = root.lookup(&["a".into(), "bb".into(), "1".into()]);
        assert_eq!(pos, Pos { line: 2, col: 11 });
        let (_, v) = root.get("a").unwrap();
        assert!(matches!(v.get("c").unwrap().1.kind, Kind::Float(f) if f == 2.5));
    }
}
