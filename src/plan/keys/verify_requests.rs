//! The spec's `verify:` list -> the requests `runner verify` sends, in
//! order: an inline request as written, a vectors entry as its file's cases
//! ([`crate::plan::keys::vectors`]), each with the entry's defaults (method, path,
//! headers, name prefix) and every member of its `response` to be matched.
//! Read at plan time, so that `runner validate` finds a missing file, a
//! wrong `cases` path or a duplicate name before anything is built.
use std::collections::HashMap;

use crate::plan::keys::vectors::{self, Case};
use crate::plan::{Collector, ExpectedField, VerifyPlan};
use crate::spec::LoadedSpec;
use crate::spec::model::VerifySpec;
use crate::spec::validate::METHODS;

/// Every verify request of `loaded`, problems added to `problems`.
pub fn plan_verify(loaded: &LoadedSpec, problems: &mut Collector) -> Vec<VerifyPlan> {
    let mut out = Vec::new();
    // Request name -> the entry it came from, for the duplicate message.
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, entry) in loaded.spec.verify.iter().enumerate() {
        let planned = match &entry.vectors {
            Some(file) => from_vectors(loaded, i, entry, file, problems),
            None => inline(entry).into_iter().collect(),
        };
        for request in planned {
            if let Some(first) = seen.insert(request.name.clone(), i) {
                problems.add(
                    loaded,
                    &format!("verify.{i}"),
                    format!(
                        "verify request name `{}` is used twice (entries {first} and {i})",
                        request.name
                    ),
                    "give every request its own name; a vectors entry's `prefix` \
                     (e.g. `prefix: \"order \"`) keeps the names of two lists apart",
                );
                continue;
            }
            out.push(request);
        }
    }
    out
}

/// An inline request (`None` when the spec check already refused it).
fn inline(v: &VerifySpec) -> Option<VerifyPlan> {
    Some(VerifyPlan {
        name: v.name.clone()?,
        method: v.method.clone().unwrap_or_else(|| "GET".into()),
        path: v.path.clone()?,
        expect_status: v.expect_status.unwrap_or(200),
        compare: v.compare.clone(),
        headers: v.headers.clone().into_iter().collect(),
        body: v.body.clone(),
        expect: Vec::new(),
        content: None,
    })
}

fn from_vectors(
    loaded: &LoadedSpec,
    i: usize,
    entry: &VerifySpec,
    file: &str,
    problems: &mut Collector,
) -> Vec<VerifyPlan> {
    let path = crate::spec::absolute(&loaded.base_dir.join(file));
    let cases = match vectors::read_file(&path, file, entry.cases.as_deref()) {
        Ok(cases) => cases,
        Err(e) => {
            let field = match e {
                vectors::VectorsError::NoList { .. } => "cases",
                _ => "vectors",
            };
            problems.add(
                loaded,
                &format!("verify.{i}.{field}"),
                e.to_string(),
                "the file's path is relative to the spec file's folder; the format is in \
                 docs/verify.md, \"Vectors files\"",
            );
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for (index, case) in cases.into_iter().enumerate() {
        match request(entry, case) {
            Ok(r) => out.push(r),
            Err((name, what, help)) => problems.add(
                loaded,
                &format!("verify.{i}"),
                format!("vectors file {file}: case {index} ({name}): {what}"),
                help,
            ),
        }
    }
    out
}

/// A case with the entry's defaults; `Err((case name, what, help))`.
fn request(entry: &VerifySpec, case: Case) -> Result<VerifyPlan, (String, String, String)> {
    let name = format!("{}{}", entry.prefix.as_deref().unwrap_or(""), case.name);
    let fail = |what: String, help: &str| Err((case.name.clone(), what, help.to_owned()));
    let method = case
        .method
        .clone()
        .or_else(|| entry.method.clone())
        .unwrap_or_else(|| "GET".into());
    if !METHODS.contains(&method.as_str()) {
        return fail(
            format!("invalid HTTP method `{method}`"),
            "fix the vectors file's writer; methods are upper case (GET, POST, PUT, ...)",
        );
    }
    let Some(path) = case.path.clone().or_else(|| entry.path.clone()) else {
        return fail(
            "the case has no `path` and the verify entry gives none".into(),
            "add `path: /...` to the verify entry: the path of every case that names none",
        );
    };
    if !path.starts_with('/') {
        return fail(
            format!("path `{path}` does not start with `/`"),
            "fix the vectors file's writer: paths are written from the root",
        );
    }
    let mut headers = entry.headers.clone();
    headers.extend(case.headers);
    Ok(VerifyPlan {
        name,
        method,
        path,
        expect_status: case.status,
        compare: Vec::new(),
        headers: headers.into_iter().collect(),
        body: case.body,
        expect: case
            .response
            .into_iter()
            .map(|(path, value)| ExpectedField { path, value })
            .collect(),
        content: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(dir: &std::path::Path, verify: &str) -> Result<Vec<VerifyPlan>, String> {
        let text = format!(
            "experiment: {{name: t}}\nruntimes: {{a: {{start: x}}}}\nworkload: {{path: /}}\n\
             load: {{connections: 1}}\nmeasure: {{requests: 1}}\nverify:\n{verify}"
        );
        let loaded =
            crate::spec::from_text(text, &dir.join("spec.yaml")).map_err(|e| e.to_string())?;
        let mut problems = Collector::default();
        let planned = plan_verify(&loaded, &mut problems);
        problems.into_result().map_err(|e| e.to_string())?;
        Ok(planned)
    }

    fn vectors_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("v.json"),
            r#"{"orders": [
                 {"name": "simple", "body": "{\"a\":1}", "status": 200, "response": {"totalCents": 6118}},
                 {"name": "malformed", "body": "{", "status": 400}],
                "products": [
                 {"name": "create", "method": "POST", "path": "/p", "status": 201, "response": {"id": 1001},
                  "headers": {"x-case": "1"}},
                 {"name": "simple", "method": "GET", "path": "/p/1001"}]}"#,
        )
        .unwrap();
        dir
    }

    #[test]
    fn cases_take_the_entry_defaults_and_keep_the_file_order() {
        let dir = vectors_dir();
        let got = plan(
            dir.path(),
            "  - { name: health, path: /health }\n\
             \x20 - { vectors: v.json, cases: orders, method: POST, path: /api/orders/calculate, \
             headers: { content-type: application/json }, prefix: \"order \" }\n\
             \x20 - { vectors: v.json, cases: products, headers: { content-type: application/json } }\n",
        )
        .unwrap();
        let names: Vec<&str> = got.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "health",
                "order simple",
                "order malformed",
                "create",
                "simple"
            ]
        );
        let order = &got[1];
        assert_eq!(
            (order.method.as_str(), order.path.as_str()),
            ("POST", "/api/orders/calculate")
        );
        assert_eq!(order.body.as_deref(), Some("{\"a\":1}"));
        assert_eq!(
            order.expect,
            [ExpectedField {
                path: "totalCents".into(),
                value: serde_json::json!(6118)
            }]
        );
        assert_eq!(got[2].expect_status, 400);
        let create = &got[3];
        assert_eq!(create.expect_status, 201);
        assert_eq!(
            create.headers,
            [
                ("content-type".to_string(), "application/json".to_string()),
                ("x-case".to_string(), "1".to_string())
            ]
        );
        assert_eq!(got[4].method, "GET");
        assert!(got[0].expect.is_empty());
    }

    #[test]
    fn duplicates_missing_paths_and_files_are_spec_problems() {
        let dir = vectors_dir();
        let twice = plan(
            dir.path(),
            "  - { vectors: v.json, cases: orders, path: /o }\n  - { vectors: v.json, cases: products }\n",
        )
        .unwrap_err();
        assert!(
            twice.contains("`simple` is used twice (entries 0 and 1)"),
            "{twice}"
        );
        assert!(twice.contains("prefix"), "{twice}");
        let no_path = plan(dir.path(), "  - { vectors: v.json, cases: orders }\n").unwrap_err();
        assert!(
            no_path.contains("case 0 (simple): the case has no `path`"),
            "{no_path}"
        );
        let missing = plan(dir.path(), "  - { vectors: nope.json }\n").unwrap_err();
        assert!(
            missing.contains("vectors file nope.json: cannot read it"),
            "{missing}"
        );
        assert!(
            missing.contains("spec.yaml:"),
            "points at the spec: {missing}"
        );
        let wrong = plan(dir.path(), "  - { vectors: v.json, cases: order }\n").unwrap_err();
        assert!(wrong.contains("orders, products"), "{wrong}");
    }
}
