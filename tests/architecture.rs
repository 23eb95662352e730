//! Data flows forward: every `crate::` path in src/ is checked against the
//! stage order written in docs/ARCHITECTURE.md, so neither the code nor the
//! picture can drift from the other without this test failing.
mod architecture_support;

use std::path::Path;

use architecture_support::imports::{CratePath, code_only, crate_paths};
use architecture_support::{StageOrder, Violation, stage_of, violations};

/// Imports against the order that are known and on their way out: (file or
/// folder, path after `crate::`, why). The test fails when one is no longer
/// needed, so each is removed as soon as its fix lands.
const KNOWN_EXCEPTIONS: &[(&str, &str, &str)] = &[];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn declared_order() -> StageOrder {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    StageOrder::from_markdown(&doc).unwrap_or_else(|e| panic!("docs/ARCHITECTURE.md: {e}"))
}

/// Every .rs file under src/, as (path relative to the crate root, text).
fn source_files() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<(String, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.path());
        for entry in entries {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root()).unwrap();
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((relative.to_string_lossy().into_owned(), text));
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("src"), &mut files);
    files
}

fn is_known(v: &Violation, (file, path, _): &(&str, &str, &str)) -> bool {
    v.file.starts_with(file)
        && (v.import.path == *path || v.import.path.starts_with(&format!("{path}::")))
}

#[test]
fn every_import_follows_the_declared_stage_order() {
    let all = violations(&declared_order(), &source_files());
    let unexpected: Vec<String> = all
        .iter()
        .filter(|v| !KNOWN_EXCEPTIONS.iter().any(|e| is_known(v, e)))
        .map(|v| v.to_string())
        .collect();
    assert!(
        unexpected.is_empty(),
        "imports against the stage order of docs/ARCHITECTURE.md (move the \
         shared code below both stages, or change the order in the doc if the \
         design changed):\n{}",
        unexpected.join("\n")
    );
    for exception in KNOWN_EXCEPTIONS {
        assert!(
            all.iter().any(|v| is_known(v, exception)),
            "the known exception {exception:?} is no longer needed: remove it from KNOWN_EXCEPTIONS"
        );
    }
}

#[test]
fn the_order_names_exactly_the_stages_under_src() {
    let order = declared_order();
    let files = source_files();
    let present: std::collections::BTreeSet<&str> =
        files.iter().filter_map(|(f, _)| stage_of(f)).collect();
    let declared = order.stages();
    let undeclared: Vec<_> = present.difference(&declared).collect();
    let missing: Vec<_> = declared.difference(&present).collect();
    assert!(
        undeclared.is_empty(),
        "src/ has stages the order in docs/ARCHITECTURE.md does not name: {undeclared:?}; add them where they belong"
    );
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md names stages src/ does not have: {missing:?}; remove them from the order"
    );
}

// The rules themselves, on a small made-up crate.

const ORDER: &str = "\
# Architecture
```text
stage order, lowest first:
  base, other
< middle
< top
imported by every stage: util
```
";

fn check(file: &str, text: &str) -> Vec<String> {
    let order = StageOrder::from_markdown(ORDER).unwrap();
    violations(&order, &[(file.to_string(), text.to_string())])
        .iter()
        .map(|v| v.to_string())
        .collect()
}

#[test]
fn the_order_is_read_from_its_block() {
    let order = StageOrder::from_markdown(ORDER).unwrap();
    assert_eq!(
        order.layers,
        [vec!["base", "other"], vec!["middle"], vec!["top"]]
    );
    assert_eq!(order.shared, ["util"]);
    let twice = ORDER.replace("< top", "< top, base");
    assert!(
        StageOrder::from_markdown(&twice)
            .unwrap_err()
            .contains("`base` is declared twice")
    );
    let unended = ORDER.replace("imported by every stage: util", "");
    assert!(
        StageOrder::from_markdown(&unended)
            .unwrap_err()
            .contains("without a `imported by")
    );
}

#[test]
fn an_import_against_the_order_names_file_line_import_and_rule() {
    let found = check("src/base/x.rs", "use std::fmt;\nuse crate::top::Thing;\n");
    assert_eq!(
        found,
        [
            "src/base/x.rs:2: `use crate::top::Thing;` (crate::top::Thing): top is above base \
          in the stage order; base may import only itself"
        ]
    );
    let found = check("src/middle/mod.rs", "fn f() { crate::top::run(); }");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("middle may import only base, other"),
        "{found:?}"
    );
}

#[test]
fn stages_on_one_layer_may_not_import_each_other() {
    let found = check("src/other.rs", "use crate::base::X;");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("other and base share a layer"),
        "{found:?}"
    );
}

#[test]
fn lower_own_and_shared_stages_may_be_imported() {
    let text = "use crate::base::A;\nuse crate::middle::B;\nuse crate::util::C;\nuse super::D;\n";
    assert_eq!(check("src/top/deep/file.rs", text), Vec::<String>::new());
    assert_eq!(
        check("src/base/x.rs", "use crate::util::C;"),
        Vec::<String>::new()
    );
    assert_eq!(
        check("src/lib.rs", "use crate::top::X;"),
        Vec::<String>::new()
    );
}

#[test]
fn a_stage_missing_from_the_order_is_refused() {
    let found = check("src/top/x.rs", "use crate::elsewhere::X;");
    assert!(
        found[0].contains("`elsewhere` or `top` is not in the stage order"),
        "{found:?}"
    );
}

#[test]
fn groups_give_one_path_per_item_on_its_own_line() {
    let text = "use crate::{\n    base::{A, B},\n    self,\n    top::C,\n};\nuse crate::middle::{self, D};\n";
    let found = crate_paths(text);
    let at = |line, path: &str| CratePath {
        line,
        path: path.into(),
    };
    assert_eq!(found, [at(2, "base"), at(4, "top::C"), at(6, "middle")]);
}

#[test]
fn comments_strings_and_other_crates_are_not_imports() {
    let text = r##"//! See [`crate::top::x`].
/* crate::top::y /* nested */ crate::top::z */
fn f<'a>(s: &'a str) -> char {
    let _ = "crate::top::in_a_string \" crate::top::escaped";
    let _ = r#"crate::top::raw"#;
    let _ = mycrate::top::X;
    let _ = b"crate::top::bytes";
    '"' // a quote char, then crate::top::after_the_char
}
use crate::base::Real;
"##;
    let found = crate_paths(text);
    assert_eq!(
        found,
        [CratePath {
            line: 10,
            path: "base::Real".into()
        }]
    );
    assert_eq!(code_only(text).len(), text.len(), "offsets are kept");
}
