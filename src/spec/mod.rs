//! Stage `spec`: YAML text -> a checked, typed [`LoadedSpec`].
//!
//! Entry point: [`load`]`(path) -> Result<LoadedSpec, SpecErrors>`
//! ([`from_text`] for text already in memory).
//!
//! Steps, each collecting every problem it can before giving up:
//! 1. [`source`]: read the file (4 MiB cap checked before reading, UTF-8),
//!    parse it with serde-saphyr under a budget into a loose tree with
//!    positions ([`tree`]); report duplicate keys.
//! 2. [`de`]: read the typed [`model::Spec`] from the tree, pruning and
//!    retrying after each error so that all unknown keys and bad values are
//!    listed, with "did you mean" hints ([`explain`]).
//! 3. [`extends`]: resolve runtime inheritance.
//! 4. [`validate`]: checks across fields (names, axes, modes, rules).
//!
//! Templates are checked by [`crate::plan::build`], which renders each one
//! for every cell; `runner validate` runs both.
//!
//! Paths in the spec (`dir`, `results`, report templates) are relative to
//! the folder holding the spec file.
pub mod de;
pub mod error;
pub mod explain;
pub mod extends;
pub mod keys;
pub mod model;
pub mod source;
pub mod tree;
pub mod validate;
pub mod values;

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use sha2::{Digest, Sha256};

pub use error::{Problem, SpecErrors};
use extends::ExtendsError;
pub use model::{RuntimeSpec, Spec};
use tree::{Node, Pos};

/// A spec read and checked, with what later stages need to point back at it.
#[derive(Debug, Clone)]
pub struct LoadedSpec {
    /// The path as the user gave it (used in messages).
    pub path: PathBuf,
    /// The folder relative paths in the spec are resolved against (absolute).
    pub base_dir: PathBuf,
    /// The file's text, exactly as read (exec copies it into the run directory).
    pub text: String,
    /// sha256 of the text, hex.
    pub sha256: String,
    /// The spec as written.
    pub spec: Spec,
    /// Runtimes with `extends` applied, in spec order.
    pub runtimes: IndexMap<String, RuntimeSpec>,
    /// Per runtime, its ancestors through `extends`, nearest first.
    pub ancestors: IndexMap<String, Vec<String>>,
    /// Per scenario (`scenarios:`), its load: the spec's `load` with the
    /// scenario's keys written over it.
    pub scenario_loads: IndexMap<String, model::LoadSpec>,
    tree: Node,
}

/// Reads, parses and checks the spec at `path`.
pub fn load(path: &Path) -> Result<LoadedSpec, SpecErrors> {
    let shown = path.display().to_string();
    let text = source::read_text(path, &shown).map_err(SpecErrors::one)?;
    from_text(text, path)
}

/// Parses and checks spec `text` as if read from `path` (which names the
/// file in messages and anchors relative paths); [`load`] without the file.
pub fn from_text(text: String, path: &Path) -> Result<LoadedSpec, SpecErrors> {
    let shown = path.display().to_string();
    let mut tree = source::parse_tree(&text, &shown).map_err(SpecErrors::one)?;
    let mut problems = Vec::new();
    let mut duplicates = Vec::new();
    source::take_duplicates(&mut tree, &mut Vec::new(), &mut duplicates);
    for (field, pos, first) in duplicates {
        let key = field.last().cloned().unwrap_or_default();
        let what = if field.len() == 2 && field[0] == "runtimes" {
            "runtime name"
        } else {
            "key"
        };
        problems.push(
            Problem::new(
                &shown,
                format!(
                    "duplicate {what} `{key}` (first written at {}:{})",
                    first.line, first.col
                ),
            )
            .at(pos)
            .field(field.join("."))
            .help("a key may appear once per map: remove or rename one of them"),
        );
    }
    let (spec, read_errors) = de::read_all::<Spec>(&tree);
    problems.extend(
        read_errors
            .iter()
            .map(|e| explain::explain(e, &shown, &tree)),
    );
    // Checks still run on what could be read, except on the fields already
    // reported (their value was dropped, so a check would only echo that).
    let pruned: Vec<String> = read_errors.iter().map(|e| e.path.join(".")).collect();
    let Some(mut spec) = spec else {
        return Err(SpecErrors { problems });
    };
    let axis_clash = keys::scenarios::add_axis(&mut spec);
    let scenario_loads = keys::scenarios::merged_loads(&tree, &spec);
    let resolved = match extends::resolve(&spec.runtimes) {
        Ok(r) => r,
        Err(errors) => {
            for e in errors {
                problems.push(extends_problem(&e, &spec, &tree, &shown));
            }
            return Err(SpecErrors { problems });
        }
    };
    let sha256 = hex::encode(Sha256::digest(text.as_bytes()));
    let base_dir = absolute(path.parent().unwrap_or(Path::new("")));
    let loaded = LoadedSpec {
        path: path.to_path_buf(),
        base_dir,
        text,
        sha256,
        runtimes: resolved.runtimes,
        ancestors: resolved.ancestors,
        spec,
        scenario_loads,
        tree,
    };
    let findings = validate::check(&loaded.spec, &loaded.runtimes)
        .into_iter()
        .chain(axis_clash)
        .chain(keys::scenarios::check_scenarios(
            &loaded.spec,
            &loaded.scenario_loads,
        ));
    for f in findings {
        let echoes = pruned.iter().any(|p| related(p, &f.field));
        if !echoes {
            problems.push(loaded.problem(&f.field, f.message).help(f.help));
        }
    }
    if problems.is_empty() {
        Ok(loaded)
    } else {
        Err(SpecErrors { problems })
    }
}

/// Whether one dotted path contains the other (`load` and `load.rate`).
fn related(a: &str, b: &str) -> bool {
    let inside =
        |outer: &str, inner: &str| inner == outer || inner.starts_with(&format!("{outer}."));
    inside(a, b) || inside(b, a)
}

fn extends_problem(e: &ExtendsError, spec: &Spec, tree: &Node, shown: &str) -> Problem {
    match e {
        ExtendsError::UnknownParent { runtime, parent } => {
            let field = format!("runtimes.{runtime}.extends");
            let names: Vec<&str> = spec
                .runtimes
                .keys()
                .map(String::as_str)
                .filter(|n| n != runtime)
                .collect();
            Problem::new(
                shown,
                format!("runtime `{runtime}` extends `{parent}`, which is not a runtime"),
            )
            .at(pos_of(tree, &field))
            .field(&field)
            .help(error::suggestion(parent, &names, "runtimes it can extend"))
        }
        ExtendsError::Cycle { runtime, cycle } => {
            let field = format!("runtimes.{runtime}.extends");
            Problem::new(shown, format!("`extends` cycle: {}", cycle.join(" -> ")))
                .at(pos_of(tree, &field))
                .field(&field)
                .help("a runtime cannot inherit from itself: remove one `extends` of the cycle")
        }
    }
}

fn pos_of(tree: &Node, dotted: &str) -> Pos {
    let path: Vec<String> = dotted.split('.').map(str::to_owned).collect();
    tree.lookup(&path).0
}

/// `path` made absolute against the current directory, with `.` and `..`
/// removed lexically (no symlink resolution: the folder may not exist yet).
pub fn absolute(path: &Path) -> PathBuf {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

impl LoadedSpec {
    /// Where a dotted field path is written: its position, and the path
    /// itself, or for a runtime field inherited through `extends`, the
    /// ancestor's path (`runtimes.base.start`) where the value was written.
    /// A path not in the file gives the nearest enclosing key's position.
    pub fn locate(&self, field: &str) -> (String, Pos) {
        let path: Vec<String> = field.split('.').map(str::to_owned).collect();
        let (pos, found) = self.tree.lookup(&path);
        if found {
            return (field.to_owned(), pos);
        }
        // A last key with dots of its own (`files.nginx.conf`, an env name).
        for split in (1..path.len().saturating_sub(1)).rev() {
            let mut joined = path[..split].to_vec();
            joined.push(path[split..].join("."));
            if let (pos, true) = self.tree.lookup(&joined) {
                return (field.to_owned(), pos);
            }
        }
        if path.len() > 2 && path[0] == "runtimes" {
            for ancestor in self.ancestors.get(&path[1]).into_iter().flatten() {
                let mut other = path.clone();
                other[1] = ancestor.clone();
                let (pos, found) = self.tree.lookup(&other);
                if found {
                    return (other.join("."), pos);
                }
            }
        }
        (field.to_owned(), pos)
    }

    /// A problem located at `field` in this spec.
    pub fn problem(&self, field: &str, message: impl Into<String>) -> Problem {
        let (field, pos) = self.locate(field);
        Problem::new(&self.path.display().to_string(), message)
            .at(pos)
            .field(field)
    }
}
