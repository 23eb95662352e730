//! Turns serde read errors ([`crate::spec::de::ReadError`]) into user-facing problems.
use crate::spec::de::{ReadError, ReadErrorKind};
use crate::spec::error::{Problem, suggestion};
use crate::spec::tree::Node;
use crate::spec::values::HELP_SEPARATOR;

/// One problem per read error, located in `file`.
pub fn explain(error: &ReadError, file: &str, tree: &Node) -> Problem {
    let field = error.path.join(".");
    match &error.kind {
        ReadErrorKind::UnknownField {
            field: key,
            expected,
        } => Problem::new(file, format!("unknown key `{key}`"))
            .at(error.pos)
            .field(field)
            .help(suggestion(key, expected, "valid keys here")),
        ReadErrorKind::UnknownVariant { variant, expected } => {
            Problem::new(file, format!("unknown value `{variant}`"))
                .at(error.pos)
                .field(field)
                .help(suggestion(variant, expected, "valid values"))
        }
        ReadErrorKind::MissingField(key) => {
            let (pos, _) = tree.lookup(&error.path);
            let parent = if field.is_empty() {
                "the top level".to_owned()
            } else {
                format!("`{field}`")
            };
            let full = if field.is_empty() {
                (*key).to_owned()
            } else {
                format!("{field}.{key}")
            };
            Problem::new(file, format!("missing key `{key}`"))
                .at(pos)
                .field(full)
                .help(format!("add `{key}:` to {parent} (see docs/spec.md)"))
        }
        ReadErrorKind::InvalidType { expected } | ReadErrorKind::InvalidValue { expected } => {
            let help = if field.is_empty() {
                "a spec is a YAML map of sections: see docs/spec.md".to_owned()
            } else {
                format!("write {} here", plain(expected))
            };
            Problem::new(
                file,
                format!("expected {}, found {}", plain(expected), error.found),
            )
            .at(error.pos)
            .field(field)
            .help(help)
        }
        ReadErrorKind::Custom(message) => {
            let (message, help) = match message.split_once(HELP_SEPARATOR) {
                Some((m, h)) => (m.to_owned(), h.to_owned()),
                None => (message.clone(), "see docs/spec.md for this key".to_owned()),
            };
            Problem::new(file, message)
                .at(error.pos)
                .field(field)
                .help(help)
        }
    }
}

/// serde's type names in words a spec author uses.
fn plain(expected: &str) -> String {
    match expected {
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number (0 or more)".into(),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a sequence" => "a list".into(),
        "a string" => "a string".into(),
        "a boolean" => "true or false".into(),
        other => other.to_owned(),
    }
}
