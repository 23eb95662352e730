//! The stage order declared in docs/ARCHITECTURE.md and the check of a
//! crate's `crate::` paths against it.
#![allow(dead_code)]
pub mod imports;
pub mod modules;
pub mod roles;

use std::collections::BTreeSet;
use std::fmt;

use imports::{CratePath, crate_paths};

/// What opens the declaration inside a ```text block of ARCHITECTURE.md.
pub const ORDER_HEADER: &str = "stage order, lowest first:";
/// The line naming stages any stage may import ("none" for none).
pub const SHARED_HEADER: &str = "imported by every stage:";

/// The declared order: layers from the lowest up. A stage may import its
/// own modules, stages on lower layers and shared stages; stages on the same
/// layer may not import each other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageOrder {
    pub layers: Vec<Vec<String>>,
    pub shared: Vec<String>,
}

impl StageOrder {
    /// The order in the ```text block of `markdown` that starts with
    /// [`ORDER_HEADER`]: one layer per line, the lines after the first
    /// starting with `<`, stages on a line separated by commas, then the
    /// [`SHARED_HEADER`] line.
    pub fn from_markdown(markdown: &str) -> Result<StageOrder, String> {
        let mut lines = markdown.lines().map(str::trim);
        lines
            .by_ref()
            .find(|l| *l == ORDER_HEADER)
            .ok_or_else(|| format!("no line `{ORDER_HEADER}` (in a ```text block)"))?;
        let mut layers = Vec::new();
        for line in lines.take_while(|l| !l.starts_with("```")) {
            if line.is_empty() {
                continue;
            }
            if let Some(shared) = line.strip_prefix(SHARED_HEADER) {
                let shared = match shared.trim() {
                    "none" => Vec::new(),
                    list => names(list),
                };
                let order = StageOrder { layers, shared };
                return order.checked();
            }
            let layer = match line.strip_prefix('<') {
                Some(rest) => rest,
                None if layers.is_empty() => line,
                None => return Err(format!("`{line}`: a layer above the first starts with `<`")),
            };
            layers.push(names(layer));
        }
        Err(format!(
            "the stage order ends without a `{SHARED_HEADER}` line"
        ))
    }

    fn checked(self) -> Result<StageOrder, String> {
        let mut seen = BTreeSet::new();
        for stage in self.layers.iter().flatten().chain(&self.shared) {
            if !seen.insert(stage) {
                return Err(format!("stage `{stage}` is declared twice"));
            }
        }
        Ok(self)
    }

    /// Every stage the order names.
    pub fn stages(&self) -> BTreeSet<&str> {
        self.layers
            .iter()
            .flatten()
            .chain(&self.shared)
            .map(String::as_str)
            .collect()
    }

    fn layer_of(&self, stage: &str) -> Option<usize> {
        self.layers
            .iter()
            .position(|l| l.iter().any(|s| s == stage))
    }

    /// Why `from` may not import `to`, or `None` when it may.
    pub fn refusal(&self, from: &str, to: &str) -> Option<String> {
        if from == to || self.shared.iter().any(|s| s == to) {
            return None;
        }
        let (Some(own), Some(theirs)) = (self.layer_of(from), self.layer_of(to)) else {
            return Some(format!(
                "`{to}` or `{from}` is not in the stage order; declare it"
            ));
        };
        match theirs.cmp(&own) {
            std::cmp::Ordering::Less => None,
            std::cmp::Ordering::Equal => Some(format!(
                "{from} and {to} share a layer of the stage order, so neither may import the other"
            )),
            std::cmp::Ordering::Greater => {
                let below: Vec<&str> = self.layers[..own]
                    .iter()
                    .flatten()
                    .map(String::as_str)
                    .collect();
                Some(format!(
                    "{to} is above {from} in the stage order; {from} may import only {}",
                    if below.is_empty() {
                        "itself".to_string()
                    } else {
                        below.join(", ")
                    }
                ))
            }
        }
    }
}

fn names(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

/// The stage a file under src/ belongs to (`src/plan/cell.rs` -> `plan`,
/// `src/preflight.rs` -> `preflight`); `None` for the crate roots.
pub fn stage_of(relative: &str) -> Option<&str> {
    let rest = relative.strip_prefix("src/")?;
    match rest.split_once('/') {
        Some((dir, _)) => Some(dir),
        None if rest == "lib.rs" || rest == "main.rs" => None,
        None => rest.strip_suffix(".rs"),
    }
}

/// An import against the order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub file: String,
    pub import: CratePath,
    /// The source line, trimmed.
    pub text: String,
    pub rule: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: `{}` (crate::{}): {}",
            self.file, self.import.line, self.text, self.import.path, self.rule
        )
    }
}

/// Every `crate::` path in `files` (path relative to the crate root, text)
/// that runs against `order`.
pub fn violations(order: &StageOrder, files: &[(String, String)]) -> Vec<Violation> {
    let mut out = Vec::new();
    for (file, text) in files {
        let Some(from) = stage_of(file) else { continue };
        for import in crate_paths(text) {
            if let Some(rule) = order.refusal(from, import.stage()) {
                let line = text.lines().nth(import.line - 1).unwrap_or_default();
                out.push(Violation {
                    file: file.clone(),
                    text: line.trim().to_string(),
                    import,
                    rule,
                });
            }
        }
    }
    out
}
