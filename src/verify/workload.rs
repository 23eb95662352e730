//! The workload's requests that `runner verify` sends beside the spec's
//! `verify:` list: each one whose `expect` says more than a status
//! (`min_bytes`, `max_bytes`, `body_contains`, `header`), so that a
//! service answering the benchmark's own requests with a short or wrong
//! body is found before any cell is measured, and every answer verify gets
//! to them is checked, not a sample as in a warmup.
//!
//! A workload request is rendered per cell (its templates may use axes):
//! each distinct rendering among the verified runtimes' cells is sent once
//! to every runtime, named `workload <name>`, with the axes of its first
//! cell when the request renders several ways. A request whose rendering
//! differs between runtimes (a runtime's own variable in its path) is sent
//! to every runtime in each rendering: give such a request no content
//! checks, or verify the runtimes apart (`--only runtime=...`).
use crate::load::http::expect::{AnswerExpect, RequestCheck, SeenAnswer, WrongAnswer};
use crate::load::{ProbeAnswer, RequestSpec};
use crate::plan::{Cell, RequestPlan, VerifyPlan};
use crate::verify::outcome::Answer;

/// The verify requests for the workload requests with content checks of
/// `cells` (those of the runtimes verified), in cell order.
pub fn workload_requests<'c>(cells: impl IntoIterator<Item = &'c Cell>) -> Vec<VerifyPlan> {
    let mut found: Vec<(&RequestPlan, &Cell)> = Vec::new();
    for cell in cells {
        for r in cell.requests.iter().filter(|r| !r.expect.is_empty()) {
            if !found.iter().any(|(seen, _)| same_request(seen, r)) {
                found.push((r, cell));
            }
        }
    }
    let renderings = |name: &str| found.iter().filter(|(r, _)| r.name == name).count();
    found
        .iter()
        .map(|(r, cell)| {
            let axes: Vec<String> = cell.axes.iter().map(|(n, v)| format!("{n}={v}")).collect();
            let name = if renderings(&r.name) > 1 && !axes.is_empty() {
                format!("workload {} ({})", r.name, axes.join(","))
            } else {
                format!("workload {}", r.name)
            };
            VerifyPlan {
                name,
                method: r.method.clone(),
                path: r.path.clone(),
                expect_status: r.expect_status,
                compare: Vec::new(),
                headers: r.headers.clone(),
                body: r.body.clone(),
                expect: Vec::new(),
                content: Some(r.expect.clone()),
            }
        })
        .collect()
}

/// Two renderings send the same and expect the same.
fn same_request(a: &RequestPlan, b: &RequestPlan) -> bool {
    (a.name == b.name)
        && (a.method == b.method)
        && (a.path == b.path)
        && (a.headers == b.headers)
        && (a.body == b.body)
        && (a.expect_status == b.expect_status)
        && (a.expect == b.expect)
}

/// One workload request sent by verify (a fresh connection), its answer
/// checked against `content` when its status is the expected one.
pub fn send_checked(
    (addr, timeout, transport): (
        std::net::SocketAddr,
        std::time::Duration,
        &crate::load::Transport,
    ),
    spec: &RequestSpec,
    name: &str,
    content: &AnswerExpect,
) -> Answer {
    match crate::load::probe_answer_over(addr, spec, timeout, transport) {
        Ok(answer) => {
            let wrong = (answer.status == spec.expect_status)
                .then(|| check(name, content, &answer))
                .flatten();
            Answer::from_reply(answer.status, &answer.body).with_wrong(wrong)
        }
        Err(e) => Answer::Error {
            error: e.to_string(),
        },
    }
}

fn check(name: &str, content: &AnswerExpect, answer: &ProbeAnswer) -> Option<WrongAnswer> {
    let rc = RequestCheck {
        name: name.to_string(),
        expect: content.clone(),
    };
    let seen = SeenAnswer {
        status: answer.status,
        body_len: answer.body.len() as u64,
        body: &answer.body,
        headers: &answer.headers,
    };
    crate::load::http::expect::wrong_answer(&rc, &seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cells of a spec whose `page` request renders per payload, its
    /// `min_bytes` a template, beside a request with no content checks.
    fn cells(expect: &str) -> Vec<Cell> {
        let text = format!(
            "experiment: {{name: t}}\nruntimes: {{a: {{start: x}}, b: {{start: x}}}}\n\
             axes: {{payload: [1024, 65536], concurrency: [1, 2]}}\n\
             workload:\n\
             - {{name: page, path: \"/bytes/{{{{ payload }}}}\", expect: {expect}}}\n\
             - {{name: plain, path: /plain}}\n\
             load: {{connections: \"{{{{ concurrency }}}}\"}}\nmeasure: {{requests: 1}}\n"
        );
        let loaded = crate::spec::from_text(text, std::path::Path::new("/t/spec.yaml")).unwrap();
        crate::plan::build(&loaded, &Default::default())
            .unwrap()
            .cells
    }

    #[test]
    fn each_rendering_with_checks_is_sent_once() {
        let got = workload_requests(&cells("{min_bytes: \"{{ payload }}\", body_contains: end}"));
        let shown: Vec<(&str, &str)> = got
            .iter()
            .map(|r| (r.name.as_str(), r.path.as_str()))
            .collect();
        assert_eq!(
            shown,
            vec![
                ("workload page (payload=1024,concurrency=1)", "/bytes/1024"),
                (
                    "workload page (payload=65536,concurrency=1)",
                    "/bytes/65536"
                ),
            ]
        );
        let content = got[1].content.as_ref().unwrap();
        assert_eq!(content.min_bytes, Some(65536));
        assert_eq!(content.body_contains.as_deref(), Some("end"));
    }

    #[test]
    fn a_status_alone_sends_nothing() {
        assert!(workload_requests(&cells("{status: 200}")).is_empty());
    }
}
