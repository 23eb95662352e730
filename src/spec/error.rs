//! Problems found in a spec, and how they are shown.
//!
//! Every message has the same shape, pinned by the golden files in
//! tests/specs/bad/:
//!
//! ```text
//! error: unknown key `timout`
//!   --> experiments/2026.yaml:14:7
//!   at runtimes.go-stdlib.health.timout
//!   help: did you mean `timeout`? (valid keys: path, timeout, interval)
//! ```
//!
//! The `-->` line is left out when the problem has no position (the file
//! cannot be read), the `at` line when it concerns no field.
use std::fmt;

use crate::spec::tree::Pos;

/// One problem: what is wrong, where, and what to do.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub message: String,
    /// The spec file as the user named it.
    pub file: String,
    pub pos: Option<Pos>,
    /// Dotted field path, e.g. `runtimes.go-stdlib.health.timeout`.
    pub field: Option<String>,
    pub help: Option<String>,
}

impl Problem {
    pub fn new(file: &str, message: impl Into<String>) -> Self {
        Problem {
            message: message.into(),
            file: file.to_owned(),
            pos: None,
            field: None,
            help: None,
        }
    }

    pub fn at(mut self, pos: Pos) -> Self {
        self.pos = (pos.line > 0).then_some(pos);
        self
    }

    pub fn field(mut self, field: impl Into<String>) -> Self {
        let field = field.into();
        self.field = (!field.is_empty()).then_some(field);
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "error: {}", self.message)?;
        match self.pos {
            Some(pos) => write!(f, "\n  --> {}:{}:{}", self.file, pos.line, pos.col)?,
            None => write!(f, "\n  --> {}", self.file)?,
        }
        if let Some(field) = &self.field {
            write!(f, "\n  at {field}")?;
        }
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

/// Every problem found in one spec (never empty). Also the error type of
/// the plan stage: planning finds template and matrix problems in the same
/// spec, shown the same way.
#[derive(Debug, Clone, thiserror::Error)]
pub struct SpecErrors {
    pub problems: Vec<Problem>,
}

impl SpecErrors {
    pub fn one(problem: Problem) -> Self {
        SpecErrors {
            problems: vec![problem],
        }
    }
}

impl fmt::Display for SpecErrors {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
                writeln!(f)?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

/// The closest of `candidates` to `word`, if it is close enough to be a
/// likely typo (used for "did you mean" hints).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), c))
        // One edit away also counts: short words (`GOT`) score low otherwise.
        .filter(|(score, c)| *score >= 0.8 || strsim::levenshtein(word, c) == 1)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// `did you mean `x`? (valid keys: a, b, c)` or just the list.
pub fn suggestion(word: &str, candidates: &[&str], what: &str) -> String {
    let list = candidates
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match closest(word, candidates.iter().copied()) {
        Some(best) => format!("did you mean `{best}`? ({what}: {list})"),
        None => format!("{what}: {list}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_every_part_in_order() {
        let p = Problem::new("a.yaml", "bad")
            .at(Pos { line: 3, col: 5 })
            .field("x.y")
            .help("fix it");
        assert_eq!(
            p.to_string(),
            "error: bad\n  --> a.yaml:3:5\n  at x.y\n  help: fix it"
        );
    }

    #[test]
    fn suggests_only_close_words() {
        assert_eq!(
            closest("timout", ["path", "timeout", "interval"]),
            Some("timeout")
        );
        assert_eq!(closest("zzz", ["path", "timeout"]), None);
    }
}
