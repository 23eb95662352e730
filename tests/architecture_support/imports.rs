//! The `crate::…` paths of one Rust source file: `use crate::…` lines and
//! paths written in code (`crate::results::rfc3339_now()`), each with its
//! line. Comments and string literals are blanked first, so a doc link such
//! as [`crate::plan::build`] or a message mentioning a path is not an import.

/// One `crate::` path in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CratePath {
    /// 1-based line of the path in the file.
    pub line: usize,
    /// The path after `crate::`, up to a group or the end of the path:
    /// `plan::AxisValue`, `results::run_dir::write_atomic`, or `plan` for
    /// `crate::plan::{self, present::show}`. Its first segment is the stage.
    pub path: String,
}

impl CratePath {
    /// The top-level module the path reaches into.
    pub fn stage(&self) -> &str {
        self.path.split("::").next().unwrap_or_default()
    }
}

/// Every `crate::` (or `$crate::`) path in `source`; a group
/// `crate::{a::b, c}` gives one path per item.
pub fn crate_paths(source: &str) -> Vec<CratePath> {
    paths_after(&code_only(source), b"crate::")
        .into_iter()
        .filter(|p| !p.path.is_empty() && p.path != "self")
        .collect()
}

/// Every path in `source` that starts at `crate::`, `super::` or `self::`,
/// with that first segment kept (`super::super::site::Local`), for
/// resolving a file's imports inside its own stage. Paths inside inline
/// `#[cfg(test)]` modules are left out: a test module's `super` is its
/// file, and its imports are not the file's design.
pub fn module_paths(source: &str) -> Vec<CratePath> {
    let code = without_test_modules(code_only(source));
    let mut out = Vec::new();
    for root in ["crate", "super", "self"] {
        let needle = format!("{root}::");
        for mut p in paths_after(&code, needle.as_bytes()) {
            p.path = if p.path.is_empty() || p.path == "self" {
                root.to_string()
            } else {
                format!("{root}::{}", p.path)
            };
            out.push(p);
        }
    }
    out.sort_by_key(|p| p.line);
    out
}

/// The paths following each `needle` (`crate::`) that is not itself the
/// tail of a longer path or identifier.
fn paths_after(code: &[u8], needle: &[u8]) -> Vec<CratePath> {
    let line_of = |offset: usize| 1 + code[..offset].iter().filter(|&&b| b == b'\n').count();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = find(&code[from..], needle) {
        let at = from + found;
        from = at + needle.len();
        if at > 0 && (is_ident_byte(code[at - 1]) || code[at - 1] == b':') {
            continue; // `mycrate::` or `super::super::`: not a path's start
        }
        let start = skip_space(code, from);
        if code.get(start) == Some(&b'{') {
            for (offset, item) in group_items(code, start) {
                let path = read_path(item);
                if !path.is_empty() {
                    out.push(CratePath {
                        line: line_of(offset),
                        path,
                    });
                }
            }
        } else {
            out.push(CratePath {
                line: line_of(at),
                path: read_path(&code[start..]),
            });
        }
    }
    out
}

/// `code` with every `#[cfg(test)] mod name { … }` blanked (newlines kept).
fn without_test_modules(mut code: Vec<u8>) -> Vec<u8> {
    let marker = b"#[cfg(test)]";
    let mut from = 0;
    while let Some(found) = find(&code[from..], marker) {
        let at = from + found;
        from = at + marker.len();
        let after = skip_space(&code, from);
        if !code[after..].starts_with(b"mod ") {
            continue;
        }
        let Some(open) = code[after..]
            .iter()
            .position(|&c| c == b'{' || c == b';')
            .map(|n| after + n)
        else {
            continue;
        };
        if code[open] == b';' {
            continue; // `mod tests;`: a file of its own
        }
        let mut depth = 0;
        let mut end = code.len();
        for (i, &c) in code.iter().enumerate().skip(open) {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        for c in &mut code[at..end] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
        from = end;
    }
    code
}

/// `source` with comments, string literals and char literals replaced by
/// spaces (newlines kept, so offsets and line numbers stay the same).
pub fn code_only(source: &str) -> Vec<u8> {
    let b = source.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        let end = match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |n| i + n),
            b'/' if b.get(i + 1) == Some(&b'*') => block_comment_end(b, i),
            b'"' => string_end(b, i + 1),
            b'r' if (i == 0 || !is_ident_byte(b[i - 1]) || raw_after_b(b, i)) => {
                match raw_string_end(b, i) {
                    Some(end) => end,
                    None => i + 1,
                }
            }
            b'\'' => char_literal_end(b, i).unwrap_or(i + 1),
            _ => i + 1,
        };
        if end > i + 1 {
            for c in &mut out[i..end] {
                if *c != b'\n' {
                    *c = b' ';
                }
            }
        }
        i = end;
    }
    out
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn skip_space(code: &[u8], mut i: usize) -> usize {
    while code.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
        i += 1;
    }
    i
}

/// `a::b::c` at the start of `code` (whitespace before it skipped), stopping
/// at a group `{`, a glob `*` or anything that is not a path.
fn read_path(code: &[u8]) -> String {
    let code = &code[skip_space(code, 0)..];
    let mut segments = Vec::new();
    let mut i = 0;
    loop {
        let len = code[i..].iter().take_while(|&&c| is_ident_byte(c)).count();
        if len == 0 {
            break;
        }
        segments.push(String::from_utf8_lossy(&code[i..i + len]).into_owned());
        i += len;
        if !code[i..].starts_with(b"::") {
            break;
        }
        i += 2;
    }
    segments.join("::")
}

/// The top-level items of the `{ … }` group opening at `open`, each with the
/// offset of its first non-space byte.
fn group_items(code: &[u8], open: usize) -> Vec<(usize, &[u8])> {
    let mut items = Vec::new();
    let mut depth = 0;
    let mut item_start = open + 1;
    for (i, &c) in code.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' | b',' if depth == 1 => {
                let start = skip_space(code, item_start);
                if start < i {
                    items.push((start, &code[start..i]));
                }
                item_start = i + 1;
                if c == b'}' {
                    break;
                }
            }
            b'}' => depth -= 1,
            _ => {}
        }
    }
    items
}

fn block_comment_end(b: &[u8], start: usize) -> usize {
    let mut depth = 0;
    let mut i = start;
    while i + 1 < b.len() {
        if b[i] == b'/' && b[i + 1] == b'*' {
            depth += 1;
            i += 2;
        } else if b[i] == b'*' && b[i + 1] == b'/' {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    b.len()
}

/// The end (past the closing quote) of a string whose text starts at `i`.
fn string_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    (i + 1).min(b.len())
}

/// `br"…"`: the `r` follows a `b` that starts a token.
fn raw_after_b(b: &[u8], i: usize) -> bool {
    i >= 1 && b[i - 1] == b'b' && (i == 1 || !is_ident_byte(b[i - 2]))
}

/// The end of `r"…"` / `r#"…"#` starting at `i` (the `r`), if it is one.
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
    if b.get(i + 1 + hashes) != Some(&b'"') {
        return None;
    }
    let mut closing = vec![b'"'];
    closing.extend(std::iter::repeat_n(b'#', hashes));
    let text = i + 2 + hashes;
    Some(find(&b[text..], &closing).map_or(b.len(), |n| text + n + closing.len()))
}

/// The end of a char literal (`'x'`, `'\n'`, `'"'`) at `i`; `None` for a
/// lifetime (`'a`).
fn char_literal_end(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i + 1) == Some(&b'\\') {
        return b[i + 2..]
            .iter()
            .position(|&c| c == b'\'')
            .map(|n| i + 3 + n);
    }
    let width = std::str::from_utf8(&b[i + 1..(i + 5).min(b.len())])
        .or_else(|e| std::str::from_utf8(&b[i + 1..i + 1 + e.valid_up_to()]))
        .ok()?
        .chars()
        .next()?
        .len_utf8();
    (b.get(i + 1 + width) == Some(&b'\'')).then_some(i + 2 + width)
}
