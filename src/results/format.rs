//! The version every JSON file and JSON answer of runner carries.
//!
//! Other tools read runner's JSON (findings.json, plan.json, status.json,
//! environment.json, verify.json, `runner compare --format json`, ...): each
//! document's first key is `format_version`, so a reader can tell a shape it
//! knows from one it does not (docs/run-directory.md). A version moves only when a field is removed, renamed or
//! changes meaning; a new optional field keeps it. Files written before the
//! field existed have none and read as version 1: every reader of runner
//! ignores it.
use serde::Serialize;

/// The version of runner's JSON outputs.
pub const JSON_FORMAT_VERSION: u32 = 1;

/// `body` with `format_version` as its first key.
#[derive(Debug, Serialize)]
pub struct Versioned<'a, T: ?Sized> {
    pub format_version: u32,
    #[serde(flatten)]
    pub body: &'a T,
}

/// `body` at [`JSON_FORMAT_VERSION`].
pub fn versioned<T: Serialize + ?Sized>(body: &T) -> Versioned<'_, T> {
    Versioned {
        format_version: JSON_FORMAT_VERSION,
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Body {
        state: &'static str,
        cells: u32,
    }

    /// The version is the first key and the body's keys follow in order.
    #[test]
    fn the_version_comes_first_and_the_body_is_unchanged() {
        let body = Body {
            state: "complete",
            cells: 3,
        };
        let text = serde_json::to_string(&versioned(&body)).unwrap();
        assert_eq!(text, r#"{"format_version":1,"state":"complete","cells":3}"#);
    }
}
