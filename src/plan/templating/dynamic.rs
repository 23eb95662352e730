//! `{{ seq }}` and `{{ rand(lo, hi) }}` in a workload request's `path` and
//! `body`: values that change with every request, so they cannot be rendered
//! once per cell like the rest of the template. The plan renders them to a
//! canonical placeholder text (`{{ seq }}`, `{{ rand(1, 10000) }}`) that the
//! load generator fills in before each send (`load::dynamic`); everything
//! else in the template is resolved here, with the usual errors.
use minijinja::{Error, ErrorKind, Value};

use crate::plan::templating::template::Vars;

/// Marks a placeholder in minijinja's output until [`canonical`] rewrites it
/// (a control character no rendered path or body of a spec can contain).
const MARK: char = '\u{1}';

/// `vars` plus `seq` and `rand`, for a request's `path` and `body`.
pub fn request_vars(vars: &Vars) -> Vars {
    let mut vars = vars.clone();
    vars.set("seq", format!("{MARK}seq{MARK}"));
    vars.set("rand", Value::from_function(rand));
    vars
}

/// `rand(lo, hi)`: whole numbers with `0 <= lo <= hi`, else a template error
/// that names the call.
fn rand(lo: i64, hi: i64) -> Result<String, Error> {
    if lo < 0 || lo > hi {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("rand({lo}, {hi}) needs whole numbers 0 <= low <= high, e.g. rand(1, 10000)"),
        ));
    }
    Ok(format!("{MARK}rand {lo} {hi}{MARK}"))
}

/// `rendered` with its marks written as the canonical placeholders the load
/// generator reads: `{{ seq }}` and `{{ rand(lo, hi) }}`.
pub fn canonical(rendered: &str) -> String {
    if !rendered.contains(MARK) {
        return rendered.to_owned();
    }
    let mut out = String::with_capacity(rendered.len());
    for (i, piece) in rendered.split(MARK).enumerate() {
        if i % 2 == 0 {
            out.push_str(piece);
        } else if piece == "seq" {
            out.push_str("{{ seq }}");
        } else if let Some(args) = piece.strip_prefix("rand ") {
            let (lo, hi) = args.split_once(' ').unwrap_or((args, args));
            out.push_str(&format!("{{{{ rand({lo}, {hi}) }}}}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::templating::template::{Hints, environment, render};

    fn rendered(source: &str) -> Result<String, String> {
        let mut vars = Vars::default();
        vars.set("payload", 128);
        render(
            &environment(),
            source,
            &request_vars(&vars),
            &Hints::default(),
        )
        .map(|s| canonical(&s))
        .map_err(|e| e.message)
    }

    #[test]
    fn seq_and_rand_stay_placeholders_while_the_rest_is_rendered() {
        assert_eq!(
            rendered("/items/{{ rand(1, 10000) }}?n={{ payload }}&s={{seq}}").unwrap(),
            "/items/{{ rand(1, 10000) }}?n=128&s={{ seq }}"
        );
        assert_eq!(rendered("/plain").unwrap(), "/plain");
    }

    #[test]
    fn a_bad_rand_call_is_a_template_error() {
        let err = rendered("/items/{{ rand(10, 1) }}").unwrap_err();
        assert!(err.contains("rand(10, 1) needs"), "{err}");
        assert!(rendered("/items/{{ rand(1) }}").is_err());
    }
}
