//! Number formatting shared by the template filters and `runner compare`.
//! Missing values (none/undefined) render as an em dash, never as "0".

/// Placeholder for a value that was not measured.
pub const MISSING: &str = "—";

/// Requests per second with thousands separators: `19,873`.
pub fn rps(value: f64) -> String {
    let rounded = value.round() as i64;
    let digits = rounded.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if rounded < 0 {
        out.insert(0, '-');
    }
    out
}

/// Milliseconds with three significant digits and the unit: `0.412 ms`, `14.9 ms`, `1,204 ms`.
pub fn ms(value: f64) -> String {
    let abs = value.abs();
    if abs >= 1000.0 {
        format!("{} ms", rps(value))
    } else if abs >= 100.0 {
        format!("{value:.0} ms")
    } else if abs >= 10.0 {
        format!("{value:.1} ms")
    } else if abs >= 1.0 {
        format!("{value:.2} ms")
    } else {
        format!("{value:.3} ms")
    }
}

/// Bytes in binary units: `14.2 MiB`.
pub fn bytes(value: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = value;
    let mut unit = 0;
    while v.abs() >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// A fraction as a percentage: `0.031` -> `3.1%`; `signed` adds `+` to gains.
pub fn pct(fraction: f64, decimals: usize, signed: bool) -> String {
    let p = fraction * 100.0;
    if signed && p > 0.0 {
        format!("+{p:.decimals$}%")
    } else {
        format!("{p:.decimals$}%")
    }
}

/// Text made safe for one Markdown table cell: `|` escaped, line breaks
/// flattened, so a reason or log line cannot break the table.
pub fn md_cell(text: &str) -> String {
    text.replace('|', "\\|")
        .replace("\r\n", " ")
        .replace(['\n', '\r'], " ")
}

/// The axes of a point (`name=value` joined with `,`) other than payload
/// and concurrency, which the wins and pivot tables show as columns of
/// their own: `scenario=crud,payload=7` -> `scenario=crud`. Without it two
/// points that differ only in, say, `log` would read as the same row.
pub fn beyond_load(axes: &str) -> String {
    axes.split(',')
        .filter(|part| {
            !part.is_empty() && !part.starts_with("payload=") && !part.starts_with("concurrency=")
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// HTML of a sentence with Markdown code spans: the text escaped, each
/// `` `name` `` a `<code>` element (runtime names in findings).
pub fn code_spans_html(text: &str) -> String {
    let escaped = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;");
    let mut out = String::new();
    for (i, part) in escaped.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str("<code>");
            out.push_str(part);
            out.push_str("</code>");
        } else {
            out.push_str(part);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beyond_load_keeps_every_axis_but_payload_and_concurrency() {
        assert_eq!(beyond_load("payload=7,concurrency=1"), "");
        assert_eq!(
            beyond_load("jdk=25,log=true,metrics=false,concurrency=100"),
            "jdk=25,log=true,metrics=false"
        );
        assert_eq!(beyond_load("scenario=crud"), "scenario=crud");
        assert_eq!(beyond_load(""), "");
    }

    #[test]
    fn formats() {
        assert_eq!(rps(19873.4), "19,873");
        assert_eq!(rps(999.5), "1,000");
        assert_eq!(rps(1234567.0), "1,234,567");
        assert_eq!(rps(-1500.0), "-1,500");
        assert_eq!(ms(0.41234), "0.412 ms");
        assert_eq!(ms(14.93), "14.9 ms");
        assert_eq!(ms(412.0), "412 ms");
        assert_eq!(ms(1204.4), "1,204 ms");
        assert_eq!(bytes(14.0 * 1048576.0), "14.0 MiB");
        assert_eq!(bytes(512.0), "512 B");
        assert_eq!(pct(0.0312, 1, false), "3.1%");
        assert_eq!(pct(0.2, 1, true), "+20.0%");
        assert_eq!(pct(-0.2, 1, true), "-20.0%");
        assert_eq!(md_cell("a|b\nc"), "a\\|b c");
    }
}
