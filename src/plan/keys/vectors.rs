//! Vectors files, format 1 (docs/verify.md, "Vectors files"): the shared
//! test vectors of a contract (e.g. runtimes/contract/microservices.json,
//! written by its reference implementation) read as they are, so that
//! `runner verify` replays them without a hand-made copy in YAML.
//!
//! A file is JSON. The list of cases is the document itself or the list at
//! a dotted path in it (`orders`, `dashboard.cases`); each case is
//! `{ name, method?, path?, headers?, body?, status?, response? }` and
//! nothing else, so that a case written for another format is refused
//! rather than half read. The cases keep the file's order: a CRUD sequence
//! builds on its earlier steps.
use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::{Map, Value};

/// Largest vectors file read: far above any contract's vectors, small
/// enough that a wrong path (a log, a dump) is refused before it is parsed.
pub const MAX_VECTORS_BYTES: u64 = 16 * 1024 * 1024;

/// One case of format 1.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    pub method: Option<String>,
    pub path: Option<String>,
    #[serde(default)]
    pub headers: IndexMap<String, String>,
    /// Sent exactly as written (a malformed-JSON case is a string too).
    pub body: Option<String>,
    /// The status every runtime must answer.
    #[serde(default = "ok")]
    pub status: u16,
    /// Every member is compared: the answer's member of that name must
    /// equal it, whole (a nested object or a list included). Checked in
    /// name order (serde_json's map), which keeps the differences stable.
    #[serde(default)]
    pub response: Map<String, Value>,
}

fn ok() -> u16 {
    200
}

/// Why a vectors file's cases cannot be read; `Display` says what and
/// where (line and column for JSON, the case's position and name).
#[derive(Debug, thiserror::Error)]
pub enum VectorsError {
    #[error("vectors file {file}: {what}")]
    Unreadable { file: String, what: String },
    #[error("vectors file {file} is not JSON: {source}")]
    Json {
        file: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("vectors file {file} has no list of cases at {at}: {what}")]
    NoList {
        file: String,
        at: String,
        what: String,
    },
    #[error("vectors file {file}: case {at}{index}{name}: {what}")]
    Case {
        file: String,
        /// `orders.` (the list's path and a dot), or empty for the top.
        at: String,
        index: usize,
        /// ` (name)` when the case has a readable name.
        name: String,
        what: String,
    },
}

/// Reads the cases of `file` (shown as `shown` in errors) at `cases`.
pub fn read_file(
    file: &std::path::Path,
    shown: &str,
    cases: Option<&str>,
) -> Result<Vec<Case>, VectorsError> {
    let unreadable = |what: String| VectorsError::Unreadable {
        file: shown.to_owned(),
        what,
    };
    let size = std::fs::metadata(file)
        .map_err(|e| unreadable(format!("cannot read it: {e}")))?
        .len();
    if size > MAX_VECTORS_BYTES {
        return Err(unreadable(format!(
            "{size} bytes is more than the {MAX_VECTORS_BYTES} a vectors file may have"
        )));
    }
    let text =
        std::fs::read_to_string(file).map_err(|e| unreadable(format!("cannot read it: {e}")))?;
    parse(&text, shown, cases)
}

/// The cases of a vectors document `text` at the dotted path `cases`.
pub fn parse(text: &str, shown: &str, cases: Option<&str>) -> Result<Vec<Case>, VectorsError> {
    let document: Value = serde_json::from_str(text).map_err(|source| VectorsError::Json {
        file: shown.to_owned(),
        source,
    })?;
    let at = cases.unwrap_or("");
    let shown_at = if at.is_empty() {
        "the top".to_owned()
    } else {
        format!("`{at}`")
    };
    let no_list = |what: String| VectorsError::NoList {
        file: shown.to_owned(),
        at: shown_at.clone(),
        what,
    };
    let pointer = if at.is_empty() {
        String::new()
    } else {
        format!("/{}", at.replace('.', "/"))
    };
    let list = match document.pointer(&pointer) {
        None => {
            return Err(no_list(format!(
                "there is nothing at that path{}",
                members_hint(&document)
            )));
        }
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(no_list(format!(
                "it holds {}, not a list{}",
                kind(other),
                members_hint(other)
            )));
        }
    };
    let label = if at.is_empty() {
        String::new()
    } else {
        format!("{at}.")
    };
    list.iter()
        .enumerate()
        .map(|(index, item)| {
            Case::deserialize(item).map_err(|e| VectorsError::Case {
                file: shown.to_owned(),
                at: label.clone(),
                index,
                name: item
                    .get("name")
                    .and_then(Value::as_str)
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default(),
                what: e.to_string(),
            })
        })
        .collect()
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// "; its members: a, b" for an object, so the right `cases` can be picked.
fn members_hint(value: &Value) -> String {
    match value {
        Value::Object(map) => format!(
            "; set `cases` to the dotted path of a list (the top-level members are: {})",
            map.keys().cloned().collect::<Vec<_>>().join(", ")
        ),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DOC: &str = r#"{
      "description": "x",
      "orders": [
        {"name": "simple", "body": "{}", "status": 200, "response": {"totalCents": 6118, "lines": [1]}},
        {"name": "bad", "body": "{", "status": 400}
      ],
      "dashboard": {"cases": [{"name": "ok", "method": "GET", "path": "/d/1"}]}
    }"#;

    #[test]
    fn cases_are_read_in_file_order_at_a_dotted_path() {
        let orders = parse(DOC, "v.json", Some("orders")).unwrap();
        assert_eq!(orders.len(), 2);
        assert_eq!(orders[0].name, "simple");
        assert_eq!(orders[0].response["totalCents"], json!(6118));
        let keys: Vec<&String> = orders[0].response.keys().collect();
        assert_eq!(keys, ["lines", "totalCents"], "members in name order");
        assert_eq!(orders[1].status, 400);
        assert!(orders[1].response.is_empty());
        let dash = parse(DOC, "v.json", Some("dashboard.cases")).unwrap();
        assert_eq!(dash[0].status, 200, "the default status");
        assert_eq!(dash[0].path.as_deref(), Some("/d/1"));
        let top = parse(r#"[{"name": "a"}]"#, "t.json", None).unwrap();
        assert_eq!(top[0].name, "a");
    }

    #[test]
    fn a_wrong_path_lists_the_members_to_choose_from() {
        let e = parse(DOC, "v.json", Some("products"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no list of cases at `products`"), "{e}");
        assert!(e.contains("dashboard, description, orders"), "{e}");
        let e = parse(DOC, "v.json", Some("dashboard"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("it holds an object, not a list"), "{e}");
        let e = parse(DOC, "v.json", None).unwrap_err().to_string();
        assert!(e.contains("at the top"), "{e}");
    }

    #[test]
    fn a_case_of_another_format_is_refused_with_its_place_and_name() {
        let e = parse(
            r#"{"c": [{"name": "a"}, {"name": "b", "expect": 1}]}"#,
            "v.json",
            Some("c"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("case c.1 (b): unknown field `expect`"), "{e}");
        let e = parse("[{\"name\": 1}]", "v.json", None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("case 0: invalid type"), "{e}");
    }

    #[test]
    fn json_errors_say_line_and_column() {
        let e = parse("{\n  \"a\": [1,,]\n}", "v.json", Some("a"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("v.json is not JSON"), "{e}");
        assert!(e.contains("line 2 column"), "{e}");
    }
}
