//! A workload request's `expect:` rendered for one cell: sizes that are
//! templates become numbers (a `payload` axis is often the answer's size),
//! `body_contains` and the header values are rendered like the request's
//! other strings. The spec check ([`crate::spec::keys::expect`]) already
//! judged what the file alone shows; what only a cell's values show (a
//! template rendering to no size, or to a minimum above the maximum) is
//! reported here against the field.
use crate::load::http::expect::AnswerExpect;
use crate::plan::templating::render::Renderer;
use crate::plan::templating::template::Vars;
use crate::spec::keys::byte_size::parse_byte_size;
use crate::spec::keys::expect::ExpectSize;
use crate::spec::model::ExpectSpec;

/// `expect` (written at `at`, e.g. `workload.0.expect`) for the cell of `vars`.
pub fn render_expect<'s>(
    r: &mut Renderer<'_, 's>,
    at: &str,
    expect: &'s ExpectSpec,
    vars: &Vars,
) -> AnswerExpect {
    let mut size = |name: &str, value: &'s Option<ExpectSize>| -> Option<u64> {
        let field = format!("{at}.{name}");
        match value.as_ref()? {
            ExpectSize::Bytes(n) => Some(*n),
            ExpectSize::Template(t) => {
                let text = r.one(&field, t, vars);
                match parse_byte_size(&text) {
                    Ok(n) => Some(n),
                    Err(why) => {
                        r.problems.add(
                            r.loaded,
                            &field,
                            format!("`{field}` renders to `{text}`: {why}"),
                            "write a size (1024, 1KiB), or a template giving one (e.g. a \
                             `payload` axis of byte counts)",
                        );
                        None
                    }
                }
            }
        }
    };
    let min_bytes = size("min_bytes", &expect.min_bytes);
    let max_bytes = size("max_bytes", &expect.max_bytes);
    if let (Some(min), Some(max)) = (min_bytes, max_bytes)
        && min > max
    {
        r.problems.add(
            r.loaded,
            &format!("{at}.min_bytes"),
            format!("min_bytes renders to {min}, above max_bytes ({max}): no answer can pass"),
            "make the least a correct body has no more than the most",
        );
    }
    let body_contains = (expect.body_contains.as_deref())
        .map(|text| r.one(&format!("{at}.body_contains"), text, vars));
    let headers = r.map(&format!("{at}.header"), &expect.header, vars);
    AnswerExpect {
        min_bytes,
        max_bytes,
        body_contains,
        headers,
    }
}
