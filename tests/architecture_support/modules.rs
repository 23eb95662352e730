//! Which file of the crate each import reaches: a file's `crate::`,
//! `super::` and `self::` paths resolved to the file that defines the item,
//! following the `pub use` re-exports of `mod.rs` files, so that an import
//! through a stage's facade (`crate::exec::Driver`) still names the file
//! behind it. The edges between files of one stage are what the cycle and
//! role-folder rules judge.
use std::collections::{BTreeMap, BTreeSet};

use super::imports::{CratePath, code_only, module_paths};

/// One import from a file to another file of the same stage.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    pub from: String,
    pub to: String,
    /// The import's line in `from`, and its path as written.
    pub line: usize,
    pub path: String,
}

/// The crate's files by module path (`["exec", "site", "local"]`).
pub struct Modules<'a> {
    by_module: BTreeMap<Vec<String>, &'a str>,
    module_of: BTreeMap<&'a str, Vec<String>>,
    /// Per `mod.rs` module: re-exported name -> the path it stands for,
    /// relative to that module (`Driver` -> `driver::Driver`).
    reexports: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
    /// Per `mod.rs` module: the modules it re-exports whole (`pub use
    /// model::*;` -> `model`), relative to it.
    globs: BTreeMap<Vec<String>, Vec<Vec<String>>>,
    texts: BTreeMap<&'a str, &'a str>,
}

/// The module path of a file under src/ (`src/exec/site/mod.rs` ->
/// `exec::site`); `None` for the crate roots.
pub fn module_of(file: &str) -> Option<Vec<String>> {
    let rest = file.strip_prefix("src/")?.strip_suffix(".rs")?;
    if rest == "lib" || rest == "main" {
        return None;
    }
    let mut segments: Vec<String> = rest.split('/').map(String::from).collect();
    if segments.last().is_some_and(|s| s == "mod") {
        segments.pop();
    }
    Some(segments)
}

impl<'a> Modules<'a> {
    pub fn new(files: &'a [(String, String)]) -> Self {
        let mut by_module = BTreeMap::new();
        let mut module_of_file = BTreeMap::new();
        let mut reexports = BTreeMap::new();
        let mut globs = BTreeMap::new();
        let mut texts = BTreeMap::new();
        for (file, text) in files {
            let Some(module) = module_of(file) else {
                continue;
            };
            texts.insert(file.as_str(), text.as_str());
            if file.ends_with("/mod.rs") {
                let mut uses = pub_uses(text);
                let whole: Vec<Vec<String>> = uses
                    .iter()
                    .filter(|(name, _)| name.starts_with('*'))
                    .map(|(_, path)| path[..path.len() - 1].to_vec())
                    .collect();
                uses.retain(|name, _| !name.starts_with('*'));
                globs.insert(module.clone(), whole);
                reexports.insert(module.clone(), uses);
            }
            by_module.insert(module.clone(), file.as_str());
            module_of_file.insert(file.as_str(), module);
        }
        Modules {
            by_module,
            module_of: module_of_file,
            reexports,
            globs,
            texts,
        }
    }

    /// The file an absolute module path (`exec::site::Local`) reaches.
    pub fn resolve(&self, path: &[String]) -> Option<&'a str> {
        self.resolve_within(path, 0)
    }

    fn resolve_within(&self, path: &[String], depth: usize) -> Option<&'a str> {
        let longest = (1..=path.len())
            .rev()
            .find(|n| self.by_module.contains_key(&path[..*n]))?;
        let module = &path[..longest];
        let file = self.by_module[module];
        // An item named through a facade: follow the re-export (bounded, in
        // case two facades name each other).
        let target = path.get(longest).filter(|_| depth < 8).and_then(|name| {
            let named = self.reexports.get(module)?.get(name).cloned();
            named.or_else(|| self.glob_source(module, name))
        });
        if let Some(target) = target {
            let mut full = module.to_vec();
            full.extend(target.iter().cloned());
            full.extend(path[longest + 1..].iter().cloned());
            if let Some(behind) = self.resolve_within(&full, depth + 1) {
                return Some(behind);
            }
        }
        Some(file)
    }

    /// The item `name` of a module re-exported whole by `module`'s mod.rs
    /// (`pub use model::*;`): found by its definition in that file.
    fn glob_source(&self, module: &[String], name: &str) -> Option<Vec<String>> {
        self.globs.get(module)?.iter().find_map(|inner| {
            let mut full = module.to_vec();
            full.extend(inner.iter().cloned());
            let text = self.texts.get(self.by_module.get(&full)?)?;
            defines(text, name).then(|| {
                let mut relative = inner.clone();
                relative.push(name.to_string());
                relative
            })
        })
    }

    /// `path` as written in `file` (`super::x::Y`), made absolute.
    pub fn absolute(&self, file: &str, path: &str) -> Option<Vec<String>> {
        let mut segments = path.split("::");
        let mut base: Vec<String> = match segments.next()? {
            "crate" => Vec::new(),
            "self" => self.module_of.get(file)?.clone(),
            "super" => {
                let mut m = self.module_of.get(file)?.clone();
                m.pop()?;
                m
            }
            _ => return None,
        };
        for segment in segments {
            if segment == "super" {
                base.pop()?;
            } else {
                base.push(segment.to_string());
            }
        }
        Some(base)
    }

    /// Every import of a file into another file of the same stage. The
    /// `pub use` lines of a `mod.rs` are its facade, not its dependencies,
    /// so a `mod.rs` gives no edges.
    pub fn edges(&self, files: &[(String, String)]) -> Vec<Edge> {
        let mut out = BTreeSet::new();
        for (file, text) in files {
            if file.ends_with("/mod.rs") {
                continue;
            }
            let Some(own) = self.module_of.get(file.as_str()) else {
                continue;
            };
            for CratePath { line, path } in module_paths(text) {
                let Some(absolute) = self.absolute(file, &path) else {
                    continue;
                };
                if absolute.first() != own.first() {
                    continue;
                }
                if let Some(to) = self.resolve(&absolute).filter(|to| to != file) {
                    out.insert(Edge {
                        from: file.clone(),
                        to: to.to_string(),
                        line,
                        path,
                    });
                }
            }
        }
        out.into_iter().collect()
    }
}

/// The names a `mod.rs` re-exports with `pub use`, each with the path it
/// stands for (`pub use run::{RunOutcome, run};` -> `RunOutcome` ->
/// `run::RunOutcome`; `as` renames kept).
fn pub_uses(text: &str) -> BTreeMap<String, Vec<String>> {
    let code = String::from_utf8(code_only(text)).unwrap_or_default();
    let mut out = BTreeMap::new();
    for statement in code.split(';') {
        let Some(start) = statement.find("pub use ") else {
            continue;
        };
        let body: String = statement[start + "pub use ".len()..]
            .chars()
            .filter(|c| !c.is_whitespace() || *c == ' ')
            .collect();
        expand(&body.replace('\n', " "), &mut Vec::new(), &mut out);
    }
    out
}

/// Whether `text` defines a public item `name` at any depth (`pub struct
/// Plan`, `pub(crate) fn build`, `pub enum`, ...).
fn defines(text: &str, name: &str) -> bool {
    let code = String::from_utf8(code_only(text)).unwrap_or_default();
    let kinds = [
        "struct", "enum", "fn", "type", "const", "static", "trait", "mod",
    ];
    code.split("pub").skip(1).any(|rest| {
        let rest = match rest.strip_prefix('(') {
            Some(r) => r.split_once(')').map_or("", |(_, after)| after),
            None => rest,
        };
        let mut words = rest.split(|c: char| !(c.is_alphanumeric() || c == '_'));
        let mut words = words.by_ref().filter(|w| !w.is_empty());
        matches!((words.next(), words.next()), (Some(kind), Some(n)) if kinds.contains(&kind) && n == name)
    })
}

/// `a::{b, c::{d as e}}` into its leaves, each with its full path.
fn expand(tree: &str, prefix: &mut Vec<String>, out: &mut BTreeMap<String, Vec<String>>) {
    let tree = tree.trim();
    match tree.find('{') {
        Some(open) => {
            let head = tree[..open].trim().trim_end_matches("::");
            let pushed: Vec<String> = head
                .split("::")
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
            let n = pushed.len();
            prefix.extend(pushed);
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            for item in split_top_level(inner) {
                expand(item, prefix, out);
            }
            prefix.truncate(prefix.len() - n);
        }
        None => {
            let (path, alias) = match tree.split_once(" as ") {
                Some((p, a)) => (p.trim(), Some(a.trim())),
                None => (tree, None),
            };
            let mut full = prefix.clone();
            full.extend(path.split("::").map(|s| s.trim().to_string()));
            let name = alias.or(full.last().map(String::as_str)).unwrap_or("");
            if name == "*" {
                // A whole module re-exported: kept under a key no item has.
                out.insert(format!("*{}", full.join("::")), full.clone());
            } else if !name.is_empty() && name != "self" {
                out.insert(name.to_string(), full.clone());
            }
        }
    }
}

fn split_top_level(list: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&list[start..]);
    items.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

/// The groups of files that import each other in a circle (strongly
/// connected components of more than one file), each sorted, with the
/// edges inside the group.
pub fn cycles(edges: &[Edge]) -> Vec<(Vec<String>, Vec<Edge>)> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for e in edges {
        next.entry(&e.from).or_default().push(&e.to);
        next.entry(&e.to).or_default();
    }
    let reach = |start: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start];
        while let Some(n) = stack.pop() {
            for &m in &next[n] {
                if seen.insert(m.to_string()) {
                    stack.push(m);
                }
            }
        }
        seen
    };
    let reachable: BTreeMap<&str, BTreeSet<String>> = next.keys().map(|&n| (n, reach(n))).collect();
    let mut groups: Vec<Vec<String>> = Vec::new();
    for &n in next.keys() {
        if groups.iter().any(|g| g.iter().any(|f| f == n)) {
            continue;
        }
        let group: Vec<String> = next
            .keys()
            .filter(|&&m| m == n || (reachable[n].contains(m) && reachable[m].contains(n)))
            .map(|m| m.to_string())
            .collect();
        if group.len() > 1 {
            groups.push(group);
        }
    }
    groups
        .into_iter()
        .map(|g| {
            let inside = edges
                .iter()
                .filter(|e| g.contains(&e.from) && g.contains(&e.to))
                .cloned()
                .collect();
            (g, inside)
        })
        .collect()
}
