//! Data flows forward: every `crate::` path in src/ is checked against the
//! stage order written in docs/ARCHITECTURE.md, so neither the code nor the
//! picture can drift from the other without this test failing.
mod architecture_support;

use std::path::Path;

use architecture_support::imports::{CratePath, code_only, crate_paths};
use architecture_support::modules::{Modules, cycles};
use architecture_support::roles;
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

// The rules inside the stages: no circle of imports between files, role
// folders in a declared order, the SSH types behind exec's SSH site alone,
// small folders.

/// The stages that must have no import cycle between their files.
const WITHOUT_FILE_CYCLES: &[&str] = &["app", "exec", "plan", "report", "stats"];

/// The circles of imports between files of `stages`, in words.
fn file_cycles(files: &[(String, String)], stages: &[&str]) -> Vec<String> {
    let modules = Modules::new(files);
    cycles(&modules.edges(files))
        .into_iter()
        .filter(|(group, _)| {
            group
                .iter()
                .any(|f| stages.contains(&stage_of(f).unwrap_or("")))
        })
        .map(|(group, edges)| {
            let lines: Vec<String> = edges
                .iter()
                .map(|e| format!("    {}:{}: {} -> {}", e.from, e.line, e.path, e.to))
                .collect();
            format!("  {}\n{}", group.join(", "), lines.join("\n"))
        })
        .collect()
}

#[test]
fn no_file_imports_itself_back_through_others() {
    let found = file_cycles(&source_files(), WITHOUT_FILE_CYCLES);
    assert!(
        found.is_empty(),
        "files that import each other in a circle (move what both need into a \
         file below both):\n{}",
        found.join("\n")
    );
}

/// A made-up crate: (file, text) pairs.
fn crate_of(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(f, t)| (f.to_string(), t.to_string()))
        .collect()
}

#[test]
fn a_circle_through_a_facade_is_found_with_its_lines() {
    let files = crate_of(&[
        ("src/top/mod.rs", "mod a;\nmod b;\npub use a::Thing;\n"),
        ("src/top/a.rs", "use super::b::Other;\npub struct Thing;\n"),
        (
            "src/top/b.rs",
            "pub struct Other;\nfn f() { let _ = crate::top::Thing; }\n",
        ),
    ]);
    let found = file_cycles(&files, &["top"]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("src/top/a.rs, src/top/b.rs"), "{found:?}");
    assert!(
        found[0].contains("src/top/b.rs:2: crate::top::Thing -> src/top/a.rs"),
        "{found:?}"
    );
    let test_module =
        "pub struct Other;\n#[cfg(test)]\nmod tests {\n    use super::super::a::Thing;\n}\n";
    let files = crate_of(&[
        ("src/top/mod.rs", "mod a;\nmod b;\n"),
        ("src/top/a.rs", "use super::b::Other;\npub struct Thing;\n"),
        ("src/top/b.rs", test_module),
    ]);
    assert_eq!(file_cycles(&files, &["top"]), Vec::<String>::new());
}

const ROLES: &str = "\
```text
role folders of top, lowest first:
  rules, error
< site
< walk
```
";

fn role_check(files: &[(&str, &str)]) -> Vec<String> {
    let files = crate_of(files);
    let orders = roles::from_markdown(ROLES).unwrap();
    let present = role_names(&files, "top");
    roles::check(
        "top",
        &orders["top"],
        &present,
        &Modules::new(&files).edges(&files),
    )
}

/// The folders and root files (without `.rs`, mod.rs left out) of `stage`.
fn role_names(files: &[(String, String)], stage: &str) -> std::collections::BTreeSet<String> {
    files
        .iter()
        .filter_map(|(f, _)| roles::role_of(stage, f).map(String::from))
        .collect()
}

#[test]
fn role_folders_are_read_and_imports_across_them_follow_their_order() {
    let orders = roles::from_markdown(ROLES).unwrap();
    assert_eq!(
        orders["top"],
        [vec!["rules", "error"], vec!["site"], vec!["walk"]]
    );
    let good = [
        (
            "src/top/mod.rs",
            "mod error;\nmod rules;\nmod site;\nmod walk;\n",
        ),
        ("src/top/error.rs", ""),
        ("src/top/rules/gates.rs", "use super::verdict::V;"),
        ("src/top/rules/verdict.rs", ""),
        ("src/top/site/local.rs", "use crate::top::rules::gates::G;"),
        (
            "src/top/walk/run.rs",
            "use super::super::site::local::L;\nuse crate::top::error::E;",
        ),
    ];
    assert_eq!(role_check(&good), Vec::<String>::new());
    let mut upward = good;
    upward[4] = ("src/top/site/local.rs", "use crate::top::walk::run::R;");
    let found = role_check(&upward);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("src/top/site/local.rs:1: crate::top::walk::run::R")
            && found[0].contains("walk is above site in top's role folders"),
        "{found:?}"
    );
    let mut sideways = good;
    sideways[2] = ("src/top/rules/gates.rs", "use crate::top::error::E;");
    assert!(
        role_check(&sideways)[0].contains("rules and error share a layer"),
        "{:?}",
        role_check(&sideways)
    );
    let mut unnamed = good.to_vec();
    unnamed.push(("src/top/extra.rs", ""));
    assert!(
        role_check(&unnamed)[0].contains("src/top/extra: not in the role folders of top"),
        "{:?}",
        role_check(&unnamed)
    );
}

/// Where the SSH types (anything of `crate::remote`) may be named inside
/// exec: the driver of a service over SSH, and the load's split across
/// remote load hosts.
const SSH_ALLOWED_IN_EXEC: &[&str] = &["src/exec/ssh/", "src/exec/measure/remote_load.rs"];

/// The lines of exec's files outside `allowed` that name `crate::remote`.
fn ssh_names_outside(files: &[(String, String)], allowed: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for (file, text) in files {
        if !file.starts_with("src/exec/") || allowed.iter().any(|a| file.starts_with(a)) {
            continue;
        }
        for import in crate_paths(text) {
            if import.stage() == "remote" {
                out.push(format!("{file}:{}: crate::{}", import.line, import.path));
            }
        }
    }
    out
}

#[test]
fn exec_names_the_ssh_types_only_in_its_ssh_site() {
    let found = ssh_names_outside(&source_files(), SSH_ALLOWED_IN_EXEC);
    assert!(
        found.is_empty(),
        "exec files outside its SSH site that name the SSH types (go through the \
         site's trait instead):\n{}",
        found.join("\n")
    );
}

#[test]
fn an_ssh_type_named_outside_the_site_is_found() {
    let files = crate_of(&[
        ("src/exec/site/ssh/host.rs", "use crate::remote::Session;"),
        (
            "src/exec/steps/cell.rs",
            "fn f() { crate::remote::connect::pool::close_all(); }",
        ),
        ("src/app/exec.rs", "use crate::remote::connect::ssh;"),
    ]);
    assert_eq!(
        ssh_names_outside(&files, &["src/exec/site/ssh/"]),
        ["src/exec/steps/cell.rs:1: crate::remote::connect::pool::close_all"]
    );
}

/// The most .rs files a folder under src/ holds directly: more, and it
/// wants role folders.
const MOST_FILES_PER_FOLDER: usize = 15;

/// Folders under src/ holding more than `most` .rs files directly, with
/// their count.
fn crowded_folders(files: &[(String, String)], most: usize) -> Vec<String> {
    let mut count: std::collections::BTreeMap<&str, usize> = Default::default();
    for (file, _) in files {
        if let Some((folder, _)) = file.rsplit_once('/') {
            *count.entry(folder).or_default() += 1;
        }
    }
    count
        .into_iter()
        .filter(|(folder, n)| *n > most && *folder != "src")
        .map(|(folder, n)| format!("{folder}/: {n} .rs files"))
        .collect()
}

#[test]
fn no_folder_holds_more_than_fifteen_files() {
    let found = crowded_folders(&source_files(), MOST_FILES_PER_FOLDER);
    assert!(
        found.is_empty(),
        "folders with more than {MOST_FILES_PER_FOLDER} .rs files directly (group \
         them into role folders, declared in docs/ARCHITECTURE.md):\n{}",
        found.join("\n")
    );
}

#[test]
fn a_crowded_folder_is_named_with_its_count() {
    let mut files: Vec<(String, String)> = (0..16)
        .map(|i| (format!("src/big/f{i}.rs"), String::new()))
        .collect();
    files.push(("src/big/inner/x.rs".into(), String::new()));
    assert_eq!(crowded_folders(&files, 15), ["src/big/: 16 .rs files"]);
    files.pop();
    files.pop();
    assert_eq!(crowded_folders(&files, 15), Vec::<String>::new());
}

/// The stages whose role folders must be declared, in order, in
/// docs/ARCHITECTURE.md (`role folders of <stage>, lowest first:`).
const STAGES_WITH_ROLE_ORDER: &[&str] = &["exec", "plan", "report"];

#[test]
fn imports_across_role_folders_follow_their_declared_order() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let orders = roles::from_markdown(&doc).unwrap_or_else(|e| panic!("docs/ARCHITECTURE.md: {e}"));
    let files = source_files();
    let edges = Modules::new(&files).edges(&files);
    let mut found = Vec::new();
    for stage in STAGES_WITH_ROLE_ORDER {
        if !orders.contains_key(*stage) {
            found.push(format!(
                "docs/ARCHITECTURE.md declares no `role folders of {stage}, lowest first:`"
            ));
        }
    }
    for (stage, layers) in &orders {
        let present = role_names(&files, stage);
        found.extend(roles::check(stage, layers, &present, &edges));
    }
    assert!(
        found.is_empty(),
        "role folders against their declared order:\n{}",
        found.join("\n")
    );
}
