//! The spec's `verify:` list: each entry is one request written inline, or
//! a vectors file whose cases are all replayed (docs/verify.md).
//!
//! Both shapes are one map type with optional fields, checked here, rather
//! than an untagged enum: serde's untagged enums lose the field and the
//! position of an error ("did not match any variant"), and a typo in an
//! inline request must still be named at its line and column.
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::spec::validate::{Finding, METHODS};

/// The vectors file formats `runner verify` reads (docs/verify.md, "Vectors files").
pub const VECTORS_FORMATS: &[u32] = &[1];

/// One `verify:` entry: a request sent to every runtime with its answers
/// compared (`name`, `path`, ...), or a vectors file (`vectors`, `cases`,
/// ...) whose cases are sent in file order, each answer compared with the
/// case's expected `response` and across runtimes.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a map with name, method, path, expect_status, compare (one request) \
                 or vectors, cases, method, path, headers, prefix (a vectors file)"
)]
pub struct VerifySpec {
    /// One request: its unique name (the grid's row label).
    pub name: Option<String>,
    /// HTTP method (default GET). With `vectors`: the method of the cases
    /// that name none.
    pub method: Option<String>,
    /// One request: the path, sent as is. With `vectors`: the path of the
    /// cases that name none (e.g. every order case posts to one path).
    pub path: Option<String>,
    /// One request: the status every runtime must answer (default 200).
    pub expect_status: Option<u16>,
    /// One request: JSON fields of the answer (dotted paths) that must be
    /// equal across runtimes.
    #[serde(default)]
    pub compare: Vec<String>,
    /// Request headers (sent as written, not templated). With `vectors`:
    /// sent with every case (a case's own headers win).
    #[serde(default)]
    pub headers: IndexMap<String, String>,
    /// One request: its body (e.g. a POST's JSON), sent as written.
    pub body: Option<String>,
    /// A vectors file (JSON, relative to the spec file's folder) whose cases
    /// are replayed in file order.
    pub vectors: Option<String>,
    /// With `vectors`: the dotted path of the list of cases in the file
    /// (`orders`, `dashboard.cases`); default: the document is the list.
    pub cases: Option<String>,
    /// With `vectors`: put before every case's name (`"order "` makes
    /// `order simple-eu`), so that names from several lists stay apart.
    pub prefix: Option<String>,
    /// With `vectors`: the format the file is written in (default 1, the
    /// only one so far; docs/verify.md).
    pub format: Option<u32>,
}

impl VerifySpec {
    /// Whether this entry is a vectors file rather than one request.
    pub fn is_vectors(&self) -> bool {
        self.vectors.is_some()
    }
}

/// The checks of every `verify:` entry: one shape or the other, methods,
/// paths, and unique names among the inline requests (names from vectors
/// files are checked once the files are read, by the plan).
pub fn check_verify(entries: &[VerifySpec], out: &mut Vec<Finding>) {
    let mut names = std::collections::HashSet::new();
    for (i, v) in entries.iter().enumerate() {
        let at = |field: &str| format!("verify.{i}.{field}");
        if let Some(method) = &v.method
            && !METHODS.contains(&method.as_str())
        {
            out.push(crate::spec::validate::bad_method(&at("method"), method));
        }
        if let Some(path) = &v.path
            && !path.starts_with('/')
        {
            out.push(finding(
                at("path"),
                format!("path `{path}` does not start with `/`"),
                "write the path from the root, e.g. `/api/info`",
            ));
        }
        if v.is_vectors() {
            check_vectors_entry(v, &at, out);
            continue;
        }
        for (field, set) in [
            ("cases", v.cases.is_some()),
            ("prefix", v.prefix.is_some()),
            ("format", v.format.is_some()),
        ] {
            if set {
                out.push(finding(
                    at(field),
                    format!("`{field}` belongs to a vectors entry, and this one has no `vectors`"),
                    "add `vectors: <file>`, or remove the key from this inline request",
                ));
            }
        }
        match &v.name {
            None => out.push(finding(
                format!("verify.{i}"),
                "this verify entry has neither `name` (one request) nor `vectors` (a vectors file)",
                "write one request as `{ name: ..., path: ... }`, or replay a file as `{ vectors: <file> }`",
            )),
            Some(name) if !names.insert(name.as_str()) => out.push(finding(
                at("name"),
                format!("verify name `{name}` is used twice"),
                "give every verify request its own name",
            )),
            Some(_) => {}
        }
        if v.name.is_some() && v.path.is_none() {
            out.push(finding(
                format!("verify.{i}"),
                "this verify request has no `path`",
                "add `path: /...`, the path to send it to",
            ));
        }
    }
}

fn check_vectors_entry(v: &VerifySpec, at: &dyn Fn(&str) -> String, out: &mut Vec<Finding>) {
    for (field, set) in [
        ("name", v.name.is_some()),
        ("expect_status", v.expect_status.is_some()),
        ("compare", !v.compare.is_empty()),
        ("body", v.body.is_some()),
    ] {
        if set {
            out.push(finding(
                at(field),
                format!("`{field}` belongs to one inline request, not to a vectors entry"),
                "the vectors file gives each case its own name, body, status and expected \
                 response; remove the key, or write the request as an entry of its own",
            ));
        }
    }
    if let Some(format) = v.format
        && !VECTORS_FORMATS.contains(&format)
    {
        out.push(finding(
            at("format"),
            format!("vectors format {format} is unknown"),
            format!(
                "this runner reads format {} (docs/verify.md, \"Vectors files\")",
                VECTORS_FORMATS
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    if v.vectors.as_deref().is_some_and(str::is_empty) {
        out.push(finding(
            at("vectors"),
            "the vectors file name is empty",
            "name a JSON file, relative to the spec file's folder",
        ));
    }
}

fn finding(field: String, message: impl Into<String>, help: impl Into<String>) -> Finding {
    Finding {
        field,
        message: message.into(),
        help: help.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(entries: &[VerifySpec]) -> Vec<(String, String)> {
        let mut out = Vec::new();
        check_verify(entries, &mut out);
        out.into_iter().map(|f| (f.field, f.message)).collect()
    }

    fn inline(name: &str, path: &str) -> VerifySpec {
        VerifySpec {
            name: Some(name.into()),
            path: Some(path.into()),
            ..VerifySpec::default()
        }
    }

    #[test]
    fn inline_requests_need_a_name_and_a_path_and_unique_names() {
        assert!(findings(&[inline("a", "/a"), inline("b", "/b")]).is_empty());
        let twice = findings(&[inline("a", "/a"), inline("a", "/b")]);
        assert_eq!(twice[0].0, "verify.1.name", "{twice:?}");
        let neither = findings(&[VerifySpec::default()]);
        assert!(neither[0].1.contains("neither `name`"), "{neither:?}");
        let no_path = findings(&[VerifySpec {
            name: Some("a".into()),
            ..VerifySpec::default()
        }]);
        assert!(no_path[0].1.contains("no `path`"), "{no_path:?}");
    }

    #[test]
    fn each_shape_refuses_the_keys_of_the_other() {
        let vectors = VerifySpec {
            vectors: Some("v.json".into()),
            name: Some("x".into()),
            compare: vec!["a".into()],
            format: Some(2),
            ..VerifySpec::default()
        };
        let got = findings(&[vectors]);
        let fields: Vec<&str> = got.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(
            fields,
            ["verify.0.name", "verify.0.compare", "verify.0.format"],
            "{got:?}"
        );
        let mut request = inline("a", "/a");
        request.cases = Some("orders".into());
        let got = findings(&[request]);
        assert_eq!(got[0].0, "verify.0.cases", "{got:?}");
    }

    #[test]
    fn methods_and_paths_are_checked_in_both_shapes() {
        let vectors = VerifySpec {
            vectors: Some("v.json".into()),
            method: Some("post".into()),
            path: Some("api".into()),
            ..VerifySpec::default()
        };
        let got = findings(&[vectors]);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0].1.contains("invalid HTTP method `post`"), "{got:?}");
    }
}
