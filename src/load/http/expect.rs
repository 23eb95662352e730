//! What a correct answer looks like beyond its status (a workload
//! request's `expect: { min_bytes, max_bytes, body_contains, header }`), and
//! the one pure check of an answer against it.
//!
//! A server answering 200 with an empty or truncated body would otherwise
//! count as a success and be measured as a fast one. The check is written
//! once here and used wherever an answer is read whole: a sample of the
//! cell warmup's answers ([`crate::load::http::capture`]) and every workload
//! request `runner verify` sends. The status is not checked here: each
//! caller already compares it (an answer of another status is a counted
//! error, and its body is not expected to be the page).
use serde::{Deserialize, Serialize};

/// How many bytes of a body a wrong answer shows (escaped, on one line).
pub const SHOWN_BODY_BYTES: usize = 200;

/// The content checks of one request; all empty: only the status is checked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerExpect {
    /// The body has at least this many bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_bytes: Option<u64>,
    /// The body has at most this many bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    /// The body contains these bytes (rendered per cell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_contains: Option<String>,
    /// Headers the answer carries with exactly these values (names
    /// compared case-insensitively, values after trimming surrounding
    /// whitespace); in spec order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(String, String)>,
}

impl AnswerExpect {
    /// Nothing beyond the status: the answer is never read for a check.
    pub fn is_empty(&self) -> bool {
        self.min_bytes.is_none()
            && self.max_bytes.is_none()
            && self.body_contains.is_none()
            && self.headers.is_empty()
    }
}

/// A workload request's checks with its name, as a load run carries them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestCheck {
    /// The request's name in the spec, for the message.
    pub name: String,
    pub expect: AnswerExpect,
}

/// An answer as far as the checks need it.
#[derive(Debug, Clone, Copy)]
pub struct SeenAnswer<'a> {
    pub status: u16,
    /// The body's whole length, read or not.
    pub body_len: u64,
    /// The body's first bytes (all of it unless it was longer than what was kept).
    pub body: &'a [u8],
    /// The answer's headers (at least those the checks name), values raw.
    pub headers: &'a [(String, Vec<u8>)],
}

/// Which check an answer failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum Mismatch {
    #[error("answer of {got} bytes, expected at least {min} (min_bytes)")]
    TooShort { got: u64, min: u64 },
    #[error("answer of {got} bytes, expected at most {max} (max_bytes)")]
    TooLong { got: u64, max: u64 },
    #[error("the body's first {searched} bytes do not contain \"{}\" (body_contains)", escape_line(.wanted.as_bytes()))]
    MissingText { wanted: String, searched: u64 },
    #[error("no `{name}` header, expected \"{}\" (header)", escape_line(.wanted.as_bytes()))]
    NoHeader { name: String, wanted: String },
    #[error(
        "header `{name}` is \"{}\", expected \"{}\" (header)",
        escape_line(.got.as_bytes()),
        escape_line(.wanted.as_bytes())
    )]
    WrongHeader {
        name: String,
        got: String,
        wanted: String,
    },
}

/// The first answer that failed a check: what a cell's reason or a verify
/// line shows of it (`request "page": answer of ...`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WrongAnswer {
    pub request: String,
    pub mismatch: Mismatch,
    pub status: u16,
    pub body_len: u64,
    /// The body's first [`SHOWN_BODY_BYTES`] bytes, escaped for one line.
    pub body_start: String,
}

impl WrongAnswer {
    /// The answer without its request's name (a verify line names it already).
    pub fn answer_text(&self) -> String {
        format!(
            "{}; status {}, {} bytes, body began: \"{}\"",
            self.mismatch, self.status, self.body_len, self.body_start
        )
    }
}

impl std::fmt::Display for WrongAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "request \"{}\": {}", self.request, self.answer_text())
    }
}

impl std::error::Error for WrongAnswer {}

/// Checks `answer` against `expect`; the first failed check, in the order
/// sizes, text, headers (a truncated body fails for its length, the
/// clearer cause, before its missing text).
pub fn check(expect: &AnswerExpect, answer: &SeenAnswer) -> Result<(), Mismatch> {
    let got = answer.body_len;
    if let Some(min) = expect.min_bytes
        && got < min
    {
        return Err(Mismatch::TooShort { got, min });
    }
    if let Some(max) = expect.max_bytes
        && got > max
    {
        return Err(Mismatch::TooLong { got, max });
    }
    if let Some(wanted) = &expect.body_contains
        && !contains(answer.body, wanted.as_bytes())
    {
        return Err(Mismatch::MissingText {
            wanted: wanted.clone(),
            searched: answer.body.len() as u64,
        });
    }
    for (name, wanted) in &expect.headers {
        let mut values = answer
            .headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim_ascii());
        let Some(first) = values.next() else {
            return Err(Mismatch::NoHeader {
                name: name.clone(),
                wanted: wanted.clone(),
            });
        };
        let wanted_bytes = wanted.trim().as_bytes();
        if first != wanted_bytes && !values.any(|v| v == wanted_bytes) {
            return Err(Mismatch::WrongHeader {
                name: name.clone(),
                got: String::from_utf8_lossy(first).into_owned(),
                wanted: wanted.clone(),
            });
        }
    }
    Ok(())
}

/// [`check`] for the request `rc` names: the [`WrongAnswer`] to show, if
/// `answer` is one.
pub fn wrong_answer(rc: &RequestCheck, answer: &SeenAnswer) -> Option<WrongAnswer> {
    check(&rc.expect, answer).err().map(|mismatch| WrongAnswer {
        request: rc.name.clone(),
        mismatch,
        status: answer.status,
        body_len: answer.body_len,
        body_start: escape_line(&answer.body[..answer.body.len().min(SHOWN_BODY_BYTES)]),
    })
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

/// `bytes` on one line: printable ASCII as is, `"` and `\` escaped, `\n`,
/// `\r`, `\t`, and every other byte as `\xNN` (a body may be binary).
pub fn escape_line(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer<'a>(body: &'a [u8], headers: &'a [(String, Vec<u8>)]) -> SeenAnswer<'a> {
        SeenAnswer {
            status: 200,
            body_len: body.len() as u64,
            body,
            headers,
        }
    }

    #[test]
    fn sizes_are_checked_against_the_whole_length() {
        let expect = AnswerExpect {
            min_bytes: Some(4),
            max_bytes: Some(6),
            ..Default::default()
        };
        assert_eq!(check(&expect, &answer(b"12345", &[])), Ok(()));
        assert_eq!(
            check(&expect, &answer(b"123", &[])),
            Err(Mismatch::TooShort { got: 3, min: 4 })
        );
        assert_eq!(
            check(&expect, &answer(b"1234567", &[])),
            Err(Mismatch::TooLong { got: 7, max: 6 })
        );
        // A body longer than what was kept is judged by its length.
        let kept = SeenAnswer {
            body_len: 5,
            ..answer(b"1", &[])
        };
        assert_eq!(check(&expect, &kept), Ok(()));
    }

    #[test]
    fn text_is_searched_in_the_body() {
        let expect = AnswerExpect {
            body_contains: Some("</html>".into()),
            ..Default::default()
        };
        assert_eq!(check(&expect, &answer(b"<html></html>\n", &[])), Ok(()));
        assert_eq!(
            check(&expect, &answer(b"<html><bo", &[])),
            Err(Mismatch::MissingText {
                wanted: "</html>".into(),
                searched: 9
            })
        );
    }

    #[test]
    fn a_short_body_fails_for_its_length_first() {
        let expect = AnswerExpect {
            min_bytes: Some(100),
            body_contains: Some("end".into()),
            ..Default::default()
        };
        let got = check(&expect, &answer(b"st", &[])).unwrap_err();
        assert_eq!(got, Mismatch::TooShort { got: 2, min: 100 });
    }

    #[test]
    fn headers_match_any_value_names_without_case() {
        let expect = AnswerExpect {
            headers: vec![("content-type".into(), "text/plain".into())],
            ..Default::default()
        };
        let plain = [("Content-Type".to_string(), b" text/plain ".to_vec())];
        assert_eq!(check(&expect, &answer(b"", &plain)), Ok(()));
        let two = [
            ("content-type".to_string(), b"text/html".to_vec()),
            ("CONTENT-TYPE".to_string(), b"text/plain".to_vec()),
        ];
        assert_eq!(check(&expect, &answer(b"", &two)), Ok(()));
        let html = [("Content-Type".to_string(), b"text/html".to_vec())];
        assert_eq!(
            check(&expect, &answer(b"", &html)),
            Err(Mismatch::WrongHeader {
                name: "content-type".into(),
                got: "text/html".into(),
                wanted: "text/plain".into()
            })
        );
        assert!(matches!(
            check(&expect, &answer(b"", &[])),
            Err(Mismatch::NoHeader { .. })
        ));
    }

    #[test]
    fn a_wrong_answer_reads_on_one_line() {
        let rc = RequestCheck {
            name: "static-1k".into(),
            expect: AnswerExpect {
                min_bytes: Some(1024),
                ..Default::default()
            },
        };
        let mut body = b"<html>\n\"x\"\\\x01".to_vec();
        body.extend(std::iter::repeat_n(b'y', 500));
        let wrong = wrong_answer(&rc, &answer(&body, &[])).unwrap();
        let text = wrong.to_string();
        assert!(
            text.starts_with(
                "request \"static-1k\": answer of 512 bytes, expected at least 1024 (min_bytes); \
                 status 200, 512 bytes, body began: \"<html>\\n\\\"x\\\"\\\\\\x01yyy"
            ),
            "{text}"
        );
        assert!(!text.contains('\n'));
        // 200 bytes shown: 12 before the y's, 188 y's.
        assert!(text.ends_with(&format!("{}\"", "y".repeat(188))), "{text}");
        assert!(!text.contains(&"y".repeat(189)));
    }

    #[test]
    fn only_an_empty_expect_is_empty() {
        assert!(AnswerExpect::default().is_empty());
        let e = AnswerExpect {
            headers: vec![("a".into(), "b".into())],
            ..Default::default()
        };
        assert!(!e.is_empty());
    }
}
