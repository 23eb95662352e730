//! The comparison: pure logic from the runtimes' answers to a verdict.
//!
//! Rules: every answer's status must equal the request's `expect_status`;
//! for every name in the request's `compare` list, the JSON value at that
//! (dotted) path must be identical across the runtimes whose status was the
//! expected one. A request from a vectors file also has expected values:
//! every member of its case's `response` must be equal in each answer (so
//! equal across runtimes too, and a single runtime is checked as well); a
//! value that is not is named down to its first differing leaf
//! (`lines.0.totalCents`). A runtime that was skipped or failed to build,
//! start or stop is a difference too: "could not check" is never "equivalent".
use serde::Serialize;
use serde_json::Value;

use super::outcome::{Answer, Outcome, RuntimeRecord};
use crate::plan::VerifyPlan;

/// One thing that is not equivalent.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Difference {
    /// A runtime could not be checked on this host (missing toolchain).
    Skipped { runtime: String, reason: String },
    /// A runtime failed to build, start, keep running or stop.
    RuntimeFailed {
        runtime: String,
        stage: String,
        reason: String,
        log: String,
    },
    /// A dependency did not stop cleanly at the end (its port held, its
    /// scratch folder left): the next run could not start it.
    DependencyStop {
        dependency: String,
        reason: String,
        log: String,
    },
    /// No HTTP answer to a request.
    NoAnswer {
        request: String,
        runtime: String,
        error: String,
    },
    /// An answer with another status than expected.
    Status {
        request: String,
        runtime: String,
        expected: u16,
        got: u16,
    },
    /// A workload request's answer failed its content checks (`expect:
    /// { min_bytes, max_bytes, body_contains, header }`): `wrong` says which,
    /// with the answer's status, length and first bytes (without the
    /// request's name, which the line shows already).
    Content {
        request: String,
        runtime: String,
        wrong: String,
    },
    /// The body of an answer that has fields to compare is not JSON.
    NotJson {
        request: String,
        runtime: String,
        error: String,
    },
    /// A runtime's answer differs from the vectors case's expected value at
    /// `field` (the first differing leaf under the expected member; `None`:
    /// missing on that side).
    Expected {
        request: String,
        runtime: String,
        field: String,
        got: Option<Value>,
        expected: Option<Value>,
    },
    /// A compared field is not identical everywhere: every runtime's value
    /// (`None` = the field is missing), and which ones disagree with the
    /// most common value (all of them when there is no single most common).
    Field {
        request: String,
        field: String,
        values: Vec<(String, Option<Value>)>,
        odd: Vec<String>,
    },
}

/// A table cell: the status a runtime answered and whether it is right.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mark {
    /// `None`: no answer (see the differences).
    pub status: Option<u16>,
    pub ok: bool,
}

/// One request's row of the grid.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GridRow {
    pub request: String,
    /// One mark per runtime, in column order; `None` when the runtime gave
    /// no answers at all (skipped, or failed before the requests).
    pub marks: Vec<Option<Mark>>,
}

/// The result of comparing: a request x runtime grid and the differences.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// Runtime names, in plan order (the grid's columns).
    pub runtimes: Vec<String>,
    /// One row per request, in plan order.
    pub grid: Vec<GridRow>,
    pub differences: Vec<Difference>,
    /// How many skipped runtimes were tolerated (`--allow-skipped`).
    pub skipped_allowed: usize,
    /// How many runtimes answered every request.
    pub answered: usize,
}

impl Verdict {
    /// Equivalent: no difference, and at least one runtime answered.
    pub fn equivalent(&self) -> bool {
        self.differences.is_empty() && self.answered > 0
    }
}

/// Compares the answers of `records` to `requests`. With `allow_skipped`,
/// a skipped runtime is listed in `skipped_allowed` instead of being a difference.
pub fn compare(requests: &[VerifyPlan], records: &[RuntimeRecord], allow_skipped: bool) -> Verdict {
    let mut differences = Vec::new();
    let mut skipped_allowed = 0;
    for r in records {
        match &r.outcome {
            Outcome::Ran => {}
            Outcome::Skipped { .. } if allow_skipped => skipped_allowed += 1,
            Outcome::Skipped { reason } => differences.push(Difference::Skipped {
                runtime: r.name.clone(),
                reason: reason.clone(),
            }),
            Outcome::Failed { stage, reason, log } => differences.push(Difference::RuntimeFailed {
                runtime: r.name.clone(),
                stage: stage.as_str().to_string(),
                reason: reason.clone(),
                log: log.display().to_string(),
            }),
        }
    }

    let mut grid = Vec::new();
    for (i, request) in requests.iter().enumerate() {
        let mut marks: Vec<Option<Mark>> = Vec::new();
        // Runtimes whose status is the expected one take part in the field comparison.
        let mut comparable: Vec<(&str, Option<&Value>)> = Vec::new();
        for r in records {
            let Some(answer) = r.answers.get(i) else {
                marks.push(None);
                continue;
            };
            let mark = match answer {
                Answer::Error { error } => {
                    differences.push(Difference::NoAnswer {
                        request: request.name.clone(),
                        runtime: r.name.clone(),
                        error: error.clone(),
                    });
                    Mark {
                        status: None,
                        ok: false,
                    }
                }
                Answer::Reply {
                    status,
                    json,
                    body_error,
                    wrong,
                } => {
                    let mut ok = *status == request.expect_status;
                    if !ok {
                        differences.push(Difference::Status {
                            request: request.name.clone(),
                            runtime: r.name.clone(),
                            expected: request.expect_status,
                            got: *status,
                        });
                    } else if let Some(wrong) = wrong {
                        ok = false;
                        differences.push(Difference::Content {
                            request: request.name.clone(),
                            runtime: r.name.clone(),
                            wrong: wrong.answer_text(),
                        });
                    } else if (!request.compare.is_empty() || !request.expect.is_empty())
                        && json.is_none()
                    {
                        ok = false;
                        differences.push(Difference::NotJson {
                            request: request.name.clone(),
                            runtime: r.name.clone(),
                            error: body_error.clone().unwrap_or_default(),
                        });
                    } else {
                        comparable.push((&r.name, json.as_ref()));
                    }
                    Mark {
                        status: Some(*status),
                        ok,
                    }
                }
            };
            marks.push(Some(mark));
        }
        for (name, json) in &comparable {
            let mut wrong = false;
            for want in &request.expect {
                let got = json.and_then(|j| lookup(j, &want.path));
                if got == Some(&want.value) {
                    continue;
                }
                wrong = true;
                let (field, got, expected) =
                    first_difference(want.path.clone(), got, Some(&want.value));
                differences.push(Difference::Expected {
                    request: request.name.clone(),
                    runtime: name.to_string(),
                    field,
                    got: got.cloned(),
                    expected: expected.cloned(),
                });
            }
            if wrong
                && let Some(Some(m)) = records
                    .iter()
                    .position(|r| r.name == *name)
                    .and_then(|p| marks.get_mut(p))
            {
                m.ok = false;
            }
        }
        for field in &request.compare {
            let values: Vec<(String, Option<Value>)> = comparable
                .iter()
                .map(|(name, json)| {
                    (
                        name.to_string(),
                        json.and_then(|j| lookup(j, field)).cloned(),
                    )
                })
                .collect();
            let odd = odd_ones_out(&values);
            if odd.is_empty() {
                continue;
            }
            for (r, mark) in records.iter().zip(marks.iter_mut()) {
                if let Some(m) = mark
                    && odd.contains(&r.name)
                {
                    m.ok = false;
                }
            }
            differences.push(Difference::Field {
                request: request.name.clone(),
                field: field.clone(),
                values,
                odd,
            });
        }
        grid.push(GridRow {
            request: request.name.clone(),
            marks,
        });
    }
    let answered = records
        .iter()
        .filter(|r| !r.answers.is_empty() && r.answers.len() == requests.len())
        .count();
    Verdict {
        runtimes: records.iter().map(|r| r.name.clone()).collect(),
        grid,
        differences,
        skipped_allowed,
        answered,
    }
}

/// The value at a dotted path (`runtimeInfo.cpus`); a numeric segment
/// indexes an array. `None` when any step is missing.
pub fn lookup<'a>(json: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(json, |v, key| match v {
        Value::Object(map) => map.get(key),
        Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

/// Where `got` first differs from `want` under `path`: into objects (the
/// expected members first, then any extra one) and lists, down to the
/// first leaf that differs, so a wrong price inside a line is named as
/// `lines.1.totalCents` rather than as the whole `lines` list.
pub fn first_difference<'a>(
    path: String,
    got: Option<&'a Value>,
    want: Option<&'a Value>,
) -> (String, Option<&'a Value>, Option<&'a Value>) {
    let child = |key: &str| format!("{path}.{key}");
    match (got, want) {
        (Some(Value::Object(g)), Some(Value::Object(w))) => {
            let extra = g.keys().filter(|k| !w.contains_key(*k));
            for key in w.keys().chain(extra) {
                if g.get(key) != w.get(key) {
                    return first_difference(child(key), g.get(key), w.get(key));
                }
            }
            (path, got, want)
        }
        (Some(Value::Array(g)), Some(Value::Array(w))) => {
            for i in 0..g.len().max(w.len()) {
                if g.get(i) != w.get(i) {
                    return first_difference(child(&i.to_string()), g.get(i), w.get(i));
                }
            }
            (path, got, want)
        }
        _ => (path, got, want),
    }
}

/// The runtimes whose value differs from the single most common one; all of
/// them when there is a tie for most common; none when all agree.
fn odd_ones_out(values: &[(String, Option<Value>)]) -> Vec<String> {
    let mut groups: Vec<(&Option<Value>, usize)> = Vec::new();
    for (_, v) in values {
        match groups.iter_mut().find(|(g, _)| *g == v) {
            Some((_, n)) => *n += 1,
            None => groups.push((v, 1)),
        }
    }
    if groups.len() <= 1 {
        return Vec::new();
    }
    let top = groups.iter().map(|(_, n)| *n).max().unwrap_or(0);
    let leaders: Vec<&Option<Value>> = groups
        .iter()
        .filter(|(_, n)| *n == top)
        .map(|(v, _)| *v)
        .collect();
    values
        .iter()
        .filter(|(_, v)| leaders.len() > 1 || v != leaders[0])
        .map(|(name, _)| name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::outcome::Stage;
    use serde_json::json;

    fn request(name: &str, status: u16, compare: &[&str]) -> VerifyPlan {
        VerifyPlan {
            name: name.into(),
            method: "GET".into(),
            path: format!("/{name}"),
            expect_status: status,
            compare: compare.iter().map(|s| s.to_string()).collect(),
            headers: Vec::new(),
            body: None,
            expect: Vec::new(),
            content: None,
        }
    }

    fn vector(name: &str, status: u16, response: Value) -> VerifyPlan {
        let mut r = request(name, status, &[]);
        r.expect = response
            .as_object()
            .unwrap()
            .iter()
            .map(|(path, value)| crate::plan::ExpectedField {
                path: path.clone(),
                value: value.clone(),
            })
            .collect();
        r
    }

    #[test]
    fn a_vector_checks_even_one_runtime_against_the_expected_values() {
        let want =
            json!({"totalCents": 6118, "lines": [{"totalCents": 3598}, {"totalCents": 1500}]});
        let reqs = [vector("order simple-eu", 200, want.clone())];
        let right = [ran("rust", vec![reply(200, want.clone())])];
        assert!(compare(&reqs, &right, false).equivalent());
        let wrong_body =
            json!({"totalCents": 6119, "lines": [{"totalCents": 3598}, {"totalCents": 1501}]});
        let one = [ran("go-gin", vec![reply(200, wrong_body)])];
        let v = compare(&reqs, &one, false);
        assert_eq!(
            v.differences,
            vec![
                Difference::Expected {
                    request: "order simple-eu".into(),
                    runtime: "go-gin".into(),
                    field: "lines.1.totalCents".into(),
                    got: Some(json!(1501)),
                    expected: Some(json!(1500)),
                },
                Difference::Expected {
                    request: "order simple-eu".into(),
                    runtime: "go-gin".into(),
                    field: "totalCents".into(),
                    got: Some(json!(6119)),
                    expected: Some(json!(6118)),
                },
            ]
        );
        assert!(!v.grid[0].marks[0].as_ref().unwrap().ok);
    }

    #[test]
    fn every_runtime_agreeing_on_a_wrong_value_is_still_not_equivalent() {
        let reqs = [vector("create", 201, json!({"id": 1001}))];
        let recs = [
            ran("a", vec![reply(201, json!({"id": 1002}))]),
            ran("b", vec![reply(201, json!({"id": 1002, "extra": true}))]),
        ];
        let v = compare(&reqs, &recs, false);
        assert_eq!(v.differences.len(), 2, "{:?}", v.differences);
        let marks: Vec<bool> = v.grid[0]
            .marks
            .iter()
            .map(|m| m.as_ref().unwrap().ok)
            .collect();
        assert_eq!(marks, [false, false]);
        let not_json = [ran("a", vec![Answer::from_reply(201, b"created")])];
        assert!(matches!(
            compare(&reqs, &not_json, false).differences[0],
            Difference::NotJson { .. }
        ));
    }

    /// A workload answer that failed its content checks is a difference of
    /// its runtime alone; a non-JSON body is not one for it.
    #[test]
    fn a_wrong_workload_answer_is_a_difference() {
        let mut page = request("workload page", 200, &[]);
        page.content = Some(crate::load::http::expect::AnswerExpect {
            min_bytes: Some(10),
            ..Default::default()
        });
        let wrong = crate::load::http::expect::WrongAnswer {
            request: "workload page".into(),
            mismatch: crate::load::http::expect::Mismatch::TooShort { got: 3, min: 10 },
            status: 200,
            body_len: 3,
            body_start: "<ht".into(),
        };
        let recs = [
            ran("a", vec![Answer::from_reply(200, b"<html></html>")]),
            ran(
                "b",
                vec![Answer::from_reply(200, b"<ht").with_wrong(Some(wrong.clone()))],
            ),
        ];
        let v = compare(&[page], &recs, false);
        assert_eq!(
            v.differences,
            vec![Difference::Content {
                request: "workload page".into(),
                runtime: "b".into(),
                wrong: wrong.answer_text(),
            }]
        );
        let marks: Vec<bool> = v.grid[0]
            .marks
            .iter()
            .map(|m| m.as_ref().unwrap().ok)
            .collect();
        assert_eq!(marks, [true, false]);
    }

    #[test]
    fn first_difference_descends_to_the_leaf_and_names_extra_and_missing_members() {
        let want = json!({"a": {"b": [1, 2]}, "c": 1});
        let got = json!({"a": {"b": [1, 2, 3]}, "c": 1});
        let (path, g, w) = first_difference("x".into(), Some(&got), Some(&want));
        assert_eq!((path.as_str(), g, w), ("x.a.b.2", Some(&json!(3)), None));
        let got = json!({"a": {"b": [1, 2]}, "c": 1, "d": 0});
        let (path, _, w) = first_difference("x".into(), Some(&got), Some(&want));
        assert_eq!((path.as_str(), w), ("x.d", None));
        let (path, g, _) = first_difference("x".into(), None, Some(&want));
        assert_eq!((path.as_str(), g), ("x", None));
        let (path, ..) = first_difference("x".into(), Some(&json!("1")), Some(&json!(1)));
        assert_eq!(path, "x");
    }

    fn ran(name: &str, answers: Vec<Answer>) -> RuntimeRecord {
        RuntimeRecord {
            name: name.into(),
            outcome: Outcome::Ran,
            answers,
            notes: vec![],
        }
    }

    fn reply(status: u16, body: Value) -> Answer {
        Answer::from_reply(status, body.to_string().as_bytes())
    }

    #[test]
    fn identical_answers_are_equivalent() {
        let reqs = [request("g", 200, &["hash", "info.cpus"])];
        let body = json!({"hash": 1, "info": {"cpus": 2}, "runtime": "differs is fine"});
        let recs = [
            ran("a", vec![reply(200, body.clone())]),
            ran("b", vec![reply(200, body)]),
        ];
        let v = compare(&reqs, &recs, false);
        assert!(v.equivalent(), "{:?}", v.differences);
        assert_eq!(v.answered, 2);
        assert!(v.grid[0].marks.iter().all(|m| m.as_ref().unwrap().ok));
    }

    #[test]
    fn a_differing_field_names_the_odd_runtime() {
        let reqs = [request("g", 200, &["workScore"])];
        let recs = [
            ran("a", vec![reply(200, json!({"workScore": 5}))]),
            ran("b", vec![reply(200, json!({"workScore": 6}))]),
            ran("c", vec![reply(200, json!({"workScore": 5}))]),
        ];
        let v = compare(&reqs, &recs, false);
        assert!(!v.equivalent());
        assert_eq!(
            v.differences,
            vec![Difference::Field {
                request: "g".into(),
                field: "workScore".into(),
                values: vec![
                    ("a".into(), Some(json!(5))),
                    ("b".into(), Some(json!(6))),
                    ("c".into(), Some(json!(5))),
                ],
                odd: vec!["b".into()],
            }]
        );
        let marks: Vec<bool> = v.grid[0]
            .marks
            .iter()
            .map(|m| m.as_ref().unwrap().ok)
            .collect();
        assert_eq!(marks, [true, false, true]);
    }

    #[test]
    fn a_tie_marks_everyone_and_a_missing_field_counts() {
        let reqs = [request("g", 200, &["x"])];
        let recs = [
            ran("a", vec![reply(200, json!({"x": 1}))]),
            ran("b", vec![reply(200, json!({}))]),
        ];
        let v = compare(&reqs, &recs, false);
        let Difference::Field { values, odd, .. } = &v.differences[0] else {
            panic!("{:?}", v.differences)
        };
        assert_eq!(values[1], ("b".to_string(), None));
        assert_eq!(odd, &["a", "b"]);
    }

    #[test]
    fn wrong_status_is_a_difference_and_not_compared_further() {
        let reqs = [request("bad", 400, &["error"])];
        let recs = [
            ran("a", vec![reply(400, json!({"error": "x"}))]),
            ran("b", vec![reply(200, json!({"hash": 1}))]),
        ];
        let v = compare(&reqs, &recs, false);
        assert_eq!(
            v.differences,
            vec![Difference::Status {
                request: "bad".into(),
                runtime: "b".into(),
                expected: 400,
                got: 200
            }]
        );
    }

    #[test]
    fn non_json_body_and_no_answer_are_differences() {
        let reqs = [request("g", 200, &["x"])];
        let recs = [
            ran("a", vec![Answer::from_reply(200, b"<html>")]),
            ran(
                "b",
                vec![Answer::Error {
                    error: "refused".into(),
                }],
            ),
        ];
        let v = compare(&reqs, &recs, false);
        assert!(
            matches!(v.differences[0], Difference::NoAnswer { .. })
                || matches!(v.differences[0], Difference::NotJson { .. })
        );
        assert_eq!(v.differences.len(), 2);
        assert_eq!(v.answered, 2);
    }

    #[test]
    fn skipped_and_failed_runtimes_are_differences_unless_skips_are_allowed() {
        let reqs = [request("g", 200, &[])];
        let recs = [
            ran("a", vec![reply(200, json!({}))]),
            RuntimeRecord {
                name: "s".into(),
                outcome: Outcome::Skipped {
                    reason: "no go".into(),
                },
                answers: vec![],
                notes: vec![],
            },
            RuntimeRecord {
                name: "f".into(),
                outcome: Outcome::Failed {
                    stage: Stage::Start,
                    reason: "no health".into(),
                    log: "logs/f.log".into(),
                },
                answers: vec![],
                notes: vec![],
            },
        ];
        let strict = compare(&reqs, &recs, false);
        assert_eq!(strict.differences.len(), 2);
        let lenient = compare(&reqs, &recs, true);
        assert_eq!(lenient.differences.len(), 1);
        assert_eq!(lenient.skipped_allowed, 1);
        assert_eq!(lenient.grid[0].marks[1], None);
    }

    #[test]
    fn nothing_answered_is_not_equivalent() {
        let reqs = [request("g", 200, &[])];
        let recs = [RuntimeRecord {
            name: "s".into(),
            outcome: Outcome::Skipped { reason: "x".into() },
            answers: vec![],
            notes: vec![],
        }];
        assert!(!compare(&reqs, &recs, true).equivalent());
    }

    #[test]
    fn lookup_follows_dots_and_array_indices() {
        let j = json!({"a": {"b": [10, {"c": true}]}});
        assert_eq!(lookup(&j, "a.b.0"), Some(&json!(10)));
        assert_eq!(lookup(&j, "a.b.1.c"), Some(&json!(true)));
        assert_eq!(lookup(&j, "a.x"), None);
        assert_eq!(lookup(&j, "a.b.c"), None);
    }
}
