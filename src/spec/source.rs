//! Reading a spec file safely: size cap before reading, UTF-8, YAML budgets.
//!
//! A spec is a small hand-written file. Anything much bigger, or YAML that
//! expands enormously (an alias bomb), is refused in milliseconds instead of
//! eating memory: the size is checked from metadata before a byte is read,
//! and serde-saphyr's budget bounds events, aliases, nodes and depth.
use std::io::Read;
use std::path::Path;

use serde_saphyr::{Budget, DuplicateKeyPolicy, Options};

use crate::spec::error::Problem;
use crate::spec::tree::{Kind, Node, Pos};

/// Largest spec file accepted.
pub const MAX_SPEC_BYTES: u64 = 4 * 1024 * 1024;

/// Reads the file as UTF-8 text, refusing oversized, unreadable and binary files.
pub fn read_text(path: &Path, shown: &str) -> Result<String, Problem> {
    let unreadable = |e: std::io::Error| {
        Problem::new(shown, format!("cannot read the spec file: {e}"))
            .help("check the path and that you may read the file")
    };
    let meta = std::fs::metadata(path).map_err(unreadable)?;
    if meta.is_dir() {
        return Err(
            Problem::new(shown, "the spec path is a directory, not a file")
                .help("name a YAML file, e.g. experiments/2026.yaml"),
        );
    }
    if meta.len() > MAX_SPEC_BYTES {
        return Err(too_big(shown, meta.len()));
    }
    let mut bytes = Vec::new();
    let file = std::fs::File::open(path).map_err(unreadable)?;
    // The file may grow between stat and read: never read past the cap.
    file.take(MAX_SPEC_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_SPEC_BYTES {
        return Err(too_big(shown, bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let valid = std::str::from_utf8(valid).unwrap_or_default();
        let line = valid.matches('\n').count() as u64 + 1;
        let col = valid.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u64 + 1;
        Problem::new(shown, "the spec file is not valid UTF-8 text")
            .at(Pos { line, col })
            .help("save the file as UTF-8")
    })
}

fn too_big(shown: &str, len: u64) -> Problem {
    Problem::new(
        shown,
        format!("the spec file is {len} bytes, over the limit of {MAX_SPEC_BYTES} bytes (4 MiB)"),
    )
    .help("a spec is a short hand-written file: check that this is the right file")
}

/// Parses the text into the loose tree. Duplicate keys are kept here and
/// reported by [`take_duplicates`], so that all of them are listed.
pub fn parse_tree(text: &str, shown: &str) -> Result<Node, Problem> {
    if text.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with('#') || l == "---"
    }) {
        return Err(Problem::new(shown, "the spec file is empty")
            .help("write a spec: see docs/spec.md, or `runner schema` for the JSON Schema"));
    }
    let mut options = Options::default();
    options.budget = Some(budget());
    options.duplicate_keys = DuplicateKeyPolicy::PassThrough;
    options.with_snippet = false;
    options.alias_limits.max_total_replayed_events = 20_000;
    options.alias_limits.max_replay_stack_depth = 16;
    serde_saphyr::from_str_with_options::<Node>(text, options).map_err(|e| yaml_problem(&e, shown))
}

fn budget() -> Budget {
    let mut b = Budget::default();
    b.max_reader_input_bytes = Some(MAX_SPEC_BYTES as usize);
    b.max_events = 100_000;
    b.max_aliases = 1_000;
    b.max_anchors = 1_000;
    b.max_nodes = 100_000;
    b.max_depth = 32;
    b.max_documents = 1;
    b.max_total_scalar_bytes = MAX_SPEC_BYTES as usize;
    b.max_recorded_anchor_events = 20_000;
    b
}

fn yaml_problem(e: &serde_saphyr::Error, shown: &str) -> Problem {
    use serde_saphyr::Error as E;
    let pos = e
        .location()
        .map(|l| Pos {
            line: l.line(),
            col: l.column(),
        })
        .unwrap_or_default();
    // Alias and snippet wrappers only add context: look at the cause.
    let mut cause = e;
    while let E::AliasError { error, .. } | E::WithSnippet { error, .. } = cause {
        cause = error;
    }
    let text = cause.to_string();
    // serde-saphyr appends " at line X column Y"; the position has its own line.
    let text = match text.find(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    };
    let (message, help) = match cause {
        E::MultipleDocuments { .. }
        | E::Budget {
            breach: serde_saphyr::budget::BudgetBreach::Documents { .. },
            ..
        } => (
            "the spec file holds more than one YAML document".to_owned(),
            "keep one spec per file: remove the `---` and what follows",
        ),
        E::Budget { breach, .. } => (
            format!("the YAML is too large or expands too much (limit reached: {breach:?})"),
            "a spec is a short file: write values out instead of nesting aliases, or use `extends` to share settings",
        ),
        E::AliasReplayLimitExceeded { .. }
        | E::AliasExpansionLimitExceeded { .. }
        | E::AliasReplayStackDepthExceeded { .. } => (
            format!("the YAML expands too much through aliases ({text})"),
            "write values out instead of nesting aliases, or use `extends` to share settings",
        ),
        _ => (
            format!("invalid YAML: {text}"),
            "fix the YAML syntax at this position",
        ),
    };
    Problem::new(shown, message).at(pos).help(help)
}

/// Finds keys written twice in one map, anywhere in the tree, and removes
/// the later copies (the first one stays, so reading can go on).
pub fn take_duplicates(
    node: &mut Node,
    path: &mut Vec<String>,
    found: &mut Vec<(Vec<String>, Pos, Pos)>,
) {
    match &mut node.kind {
        Kind::Map(entries) => {
            let mut kept: Vec<(crate::spec::tree::Key, Node)> = Vec::with_capacity(entries.len());
            for (key, value) in entries.drain(..) {
                if let Some((first, _)) = kept.iter().find(|(k, _)| k.text == key.text) {
                    let mut at = path.clone();
                    at.push(key.text.clone());
                    found.push((at, key.pos, first.pos));
                } else {
                    kept.push((key, value));
                }
            }
            for (key, value) in kept.iter_mut() {
                path.push(key.text.clone());
                take_duplicates(value, path, found);
                path.pop();
            }
            *entries = kept;
        }
        Kind::Seq(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                path.push(i.to_string());
                take_duplicates(item, path, found);
                path.pop();
            }
        }
        _ => {}
    }
}
