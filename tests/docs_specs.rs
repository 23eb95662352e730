//! Every spec the README and docs/ show is a spec runner accepts: each
//! ```yaml block with a top-level `experiment:` and `runtimes:` is given to
//! the real binary's `runner validate`. A block whose first line names a
//! file (`# experiments/examples/nginx.yaml: ...`) must be that file byte
//! for byte, so the page cannot drift from what scripts/test-guides.sh
//! runs, and that file must also `runner plan` (its templates, `files:` and
//! folders resolved). Relative links in those pages must name files that
//! exist, and an anchor a heading of that file.
mod common;

use std::path::{Path, PathBuf};

use common::runner;

/// README.md and every page under docs/.
fn pages() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    let mut folders = vec![root.join("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    pages.sort();
    pages
}

/// The ```yaml blocks of `text`, each with the line it starts on.
fn yaml_blocks(text: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut current {
            None if line.trim_start().starts_with("```yaml") => {
                current = Some((i + 1, String::new()))
            }
            Some(_) if line.trim_start().starts_with("```") => blocks.extend(current.take()),
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {}
        }
    }
    blocks
}

/// A whole spec, not a fragment of one.
fn is_spec(block: &str) -> bool {
    let top = |key: &str| block.lines().any(|l| l.starts_with(key));
    top("experiment:") && top("runtimes:")
}

/// The file a block says it is (`# path/to/spec.yaml: ...` on its first line).
fn named_file(block: &str) -> Option<PathBuf> {
    let first = block.lines().next()?.strip_prefix("# ")?;
    let (path, _) = first.split_once(": ")?;
    path.ends_with(".yaml")
        .then(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
}

fn run_ok(args: &[&str], what: &str) {
    let out = runner().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{what}: runner {} failed:\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_spec_in_the_readme_and_docs_is_accepted() {
    let tmp = tempfile::tempdir().unwrap();
    let mut specs = 0;
    let mut named = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (line, block) in yaml_blocks(&text).into_iter().filter(|(_, b)| is_spec(b)) {
            let at = format!("{}:{line}", page.display());
            specs += 1;
            let file = match named_file(&block) {
                Some(file) => {
                    let on_disk = std::fs::read_to_string(&file)
                        .unwrap_or_else(|e| panic!("{at}: names {}: {e}", file.display()));
                    assert_eq!(block, on_disk, "{at}: differs from {}", file.display());
                    let file = common::plannable(&file, tmp.path());
                    run_ok(&["plan", file.to_str().unwrap()], &at);
                    named += 1;
                    file
                }
                None => {
                    let file = tmp.path().join(format!("spec-{specs}.yaml"));
                    std::fs::write(&file, &block).unwrap();
                    file
                }
            };
            run_ok(&["validate", file.to_str().unwrap()], &at);
        }
    }
    // The README's two, the guides' and the first-spec page's at least.
    assert!(
        specs >= 6 && named >= 5,
        "only {specs} specs ({named} named) found"
    );
}

/// The anchors of `page`'s headings, as GitHub makes them: lower case,
/// punctuation dropped, spaces as `-`.
fn anchors(page: &Path) -> Vec<String> {
    std::fs::read_to_string(page)
        .unwrap()
        .lines()
        .filter_map(|l| {
            l.trim_start_matches('#')
                .strip_prefix(' ')
                .filter(|_| l.starts_with('#'))
        })
        .map(|heading| {
            heading
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
                .map(|c| if c == ' ' { '-' } else { c })
                .collect()
        })
        .collect()
}

#[test]
fn relative_links_in_the_readme_and_docs_name_files_and_headings_that_exist() {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in link.captures_iter(&text).map(|c| c[1].to_owned()) {
            if target.starts_with("http")
                || target.starts_with('#')
                || target.starts_with("mailto:")
            {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let file = match path {
                "" => page.clone(),
                _ => page.parent().unwrap().join(path),
            };
            if !file.exists() {
                broken.push(format!("{}: {target}", page.display()));
            } else if !anchor.is_empty()
                && file.extension().is_some_and(|e| e == "md")
                && !anchors(&file).iter().any(|a| a == anchor)
            {
                broken.push(format!("{}: {target} (no such heading)", page.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}
