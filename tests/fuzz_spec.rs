//! Fuzzing the spec parser and planner with proptest: random bytes and
//! mutations of a valid spec must give `Ok` or located problems, never a
//! panic. Raise the case count for a long run, e.g.
//! `PROPTEST_CASES=200000 cargo test --release --test fuzz_spec`.
use std::path::Path;

use proptest::prelude::*;
use runner::plan::{self, PlanOptions};
use runner::spec;

const SEED: &str = include_str!("specs/good/seed-matrix.yaml");

/// Loads and, if that works, plans `text`; every error must render.
fn exercise(text: String) {
    let path = Path::new("tests/specs/good/fuzz.yaml");
    match spec::from_text(text, path) {
        Ok(loaded) => {
            if let Err(errors) = plan::build(&loaded, &PlanOptions::default()) {
                assert!(!errors.problems.is_empty());
                assert!(errors.to_string().starts_with("error: "));
            }
        }
        Err(errors) => {
            assert!(!errors.problems.is_empty());
            assert!(errors.to_string().starts_with("error: "));
        }
    }
}

/// One edit of the text: a deletion, an insertion of YAML-ish noise, a
/// duplicated or dropped line.
#[derive(Debug, Clone)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, String),
    DuplicateLine(usize),
    DropLine(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let noise = prop::sample::select(vec![
        ":",
        " ",
        "\n",
        "- ",
        "{",
        "}",
        "[",
        "]",
        "&a ",
        "*a",
        "\"",
        "'",
        "#",
        "{{ ",
        " }}",
        "{{ payload }}",
        "{{ nope }}",
        "extends: jdk-jvm",
        "-1",
        "0",
        "1.5",
        "5s",
        "ms",
        "null",
        "~",
        "\t",
        "  ",
        "<<: *a",
        "!!str ",
        "\u{feff}",
        "é",
        "---\n",
        "...",
        "?",
        "|\n  ",
        ">\n  ",
        "%YAML 1.2\n",
    ]);
    prop_oneof![
        (any::<usize>(), 0usize..40).prop_map(|(at, len)| Edit::Delete(at, len)),
        (any::<usize>(), prop::collection::vec(noise, 1..4))
            .prop_map(|(at, parts)| Edit::Insert(at, parts.concat())),
        any::<usize>().prop_map(Edit::DuplicateLine),
        any::<usize>().prop_map(Edit::DropLine),
    ]
}

fn apply(text: &str, edit: &Edit) -> String {
    let boundary = |at: usize| {
        let mut at = at % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    let mut lines: Vec<&str> = text.lines().collect();
    match edit {
        Edit::Delete(at, len) => {
            let start = boundary(*at);
            let end = boundary((start + len).min(text.len()));
            format!("{}{}", &text[..start], &text[end.max(start)..])
        }
        Edit::Insert(at, what) => {
            let at = boundary(*at);
            format!("{}{what}{}", &text[..at], &text[at..])
        }
        Edit::DuplicateLine(i) => {
            let i = i % lines.len();
            lines.insert(i, lines[i]);
            lines.join("\n")
        }
        Edit::DropLine(i) => {
            lines.remove(i % lines.len());
            lines.join("\n")
        }
    }
}

proptest! {
    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        exercise(String::from_utf8_lossy(&bytes).into_owned());
    }

    #[test]
    fn mutated_seed_spec_never_panics(edits in prop::collection::vec(edit(), 1..6)) {
        let mut text = SEED.to_owned();
        for e in &edits {
            text = apply(&text, e);
        }
        exercise(text);
    }
}
