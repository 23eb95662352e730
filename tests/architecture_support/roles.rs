//! The role folders of a stage, declared in docs/ARCHITECTURE.md as
//!
//! ```text
//! role folders of exec, lowest first:
//!   rules, record
//! < site
//! < steps
//! ```
//!
//! one layer per line (the lines after the first start with `<`), each name
//! a folder of the stage or a file at its root (without `.rs`; `mod.rs` is
//! the stage's facade and is not named). A file may import its own folder
//! and the names on lower layers; names on one layer may not import each
//! other.
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::modules::Edge;

const HEADER_START: &str = "role folders of ";
const HEADER_END: &str = ", lowest first:";

/// Per stage, its declared layers of role folders, lowest first.
pub type RoleOrders = BTreeMap<String, Vec<Vec<String>>>;

/// Every `role folders of <stage>, lowest first:` declaration in `markdown`.
pub fn from_markdown(markdown: &str) -> Result<RoleOrders, String> {
    let mut out = RoleOrders::new();
    let mut lines = markdown.lines().map(str::trim).peekable();
    while let Some(line) = lines.next() {
        let Some(stage) = line
            .strip_prefix(HEADER_START)
            .and_then(|rest| rest.strip_suffix(HEADER_END))
        else {
            continue;
        };
        let mut layers: Vec<Vec<String>> = Vec::new();
        while let Some(next) = lines.peek() {
            let layer = match next.strip_prefix('<') {
                Some(rest) if !layers.is_empty() => rest,
                None if layers.is_empty() && !next.is_empty() && !next.starts_with("```") => next,
                _ => break,
            };
            layers.push(
                layer
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect(),
            );
            lines.next();
        }
        if layers.is_empty() {
            return Err(format!("the role folders of {stage} name no layer"));
        }
        let mut seen = BTreeSet::new();
        if let Some(twice) = layers.iter().flatten().find(|n| !seen.insert(*n)) {
            return Err(format!("{stage}: `{twice}` is declared twice"));
        }
        if out.insert(stage.to_string(), layers).is_some() {
            return Err(format!("the role folders of {stage} are declared twice"));
        }
    }
    Ok(out)
}

/// The role folder (or root file) of a file of `stage`: `src/exec/site/local.rs`
/// -> `site`, `src/exec/error.rs` -> `error`; `None` for the stage's mod.rs
/// and files of other stages.
pub fn role_of<'a>(stage: &str, file: &'a str) -> Option<&'a str> {
    let rest = file
        .strip_prefix("src/")?
        .strip_prefix(stage)?
        .strip_prefix('/')?;
    match rest.split_once('/') {
        Some((folder, _)) => Some(folder),
        None if rest == "mod.rs" => None,
        None => rest.strip_suffix(".rs"),
    }
}

/// An import across role folders against the declared order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleViolation {
    pub edge: Edge,
    pub rule: String,
}

impl fmt::Display for RoleViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {} (reaches {}): {}",
            self.edge.from, self.edge.line, self.edge.path, self.edge.to, self.rule
        )
    }
}

/// The edges of `stage` that go against its `layers`, and the names the
/// declaration misses or invents (`present`: the stage's folders and root
/// files as found on disk).
pub fn check(
    stage: &str,
    layers: &[Vec<String>],
    present: &BTreeSet<String>,
    edges: &[Edge],
) -> Vec<String> {
    let layer_of = |name: &str| layers.iter().position(|l| l.iter().any(|n| n == name));
    let mut out = Vec::new();
    for name in present {
        if layer_of(name).is_none() {
            out.push(format!(
                "src/{stage}/{name}: not in the role folders of {stage} in docs/ARCHITECTURE.md; add it to its layer"
            ));
        }
    }
    for name in layers.iter().flatten() {
        if !present.contains(name) {
            out.push(format!(
                "docs/ARCHITECTURE.md names `{name}` among the role folders of {stage}, but src/{stage}/ has no such folder or file"
            ));
        }
    }
    for edge in edges {
        let (Some(from), Some(to)) = (role_of(stage, &edge.from), role_of(stage, &edge.to)) else {
            continue;
        };
        if from == to {
            continue;
        }
        let (Some(own), Some(theirs)) = (layer_of(from), layer_of(to)) else {
            continue;
        };
        let rule = match theirs.cmp(&own) {
            std::cmp::Ordering::Less => continue,
            std::cmp::Ordering::Equal => format!(
                "{from} and {to} share a layer of {stage}'s role folders, so neither may import the other"
            ),
            std::cmp::Ordering::Greater => format!(
                "{to} is above {from} in {stage}'s role folders; move what both need below {from}"
            ),
        };
        out.push(
            RoleViolation {
                edge: edge.clone(),
                rule,
            }
            .to_string(),
        );
    }
    out
}
