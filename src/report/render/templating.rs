//! minijinja rendering: the default templates (embedded, so the binary
//! works from any directory), the spec's own templates, and the filters
//! documented in docs/templates.md.
//!
//! Undefined values are errors (strict), and templates whose name ends in
//! `.html` (before `.j2`) are HTML-escaped, so a runtime name or log line
//! containing `<script>` is rendered as text.
use std::path::{Path, PathBuf};

use minijinja::{Environment, UndefinedBehavior, Value};

use crate::report::analysis::format;
use crate::report::error::ReportError;
use crate::results::RunReadError;

pub const DEFAULT_MD: (&str, &str) = (
    "report.md.j2",
    include_str!("../../../templates/report.md.j2"),
);
pub const DEFAULT_HTML: (&str, &str) = (
    "report.html.j2",
    include_str!("../../../templates/report.html.j2"),
);

/// A template to render: its name (used for escaping and error messages),
/// its source, and the file it renders to.
#[derive(Debug, Clone)]
pub struct TemplateSource {
    pub name: String,
    pub source: String,
    pub output: String,
}

impl TemplateSource {
    fn new(name: &str, source: String) -> Self {
        TemplateSource {
            output: output_name(name),
            name: name.to_string(),
            source,
        }
    }
}

/// `report.md.j2` -> `report.md`; a name without a template suffix is kept.
pub fn output_name(template: &str) -> String {
    for suffix in [".j2", ".jinja2", ".jinja"] {
        if let Some(stripped) = template.strip_suffix(suffix) {
            return stripped.to_string();
        }
    }
    template.to_string()
}

/// The templates to render: the defaults when `paths` is empty, the given
/// files otherwise (a given file named like a default replaces it).
pub fn load_templates(paths: &[PathBuf]) -> Result<Vec<TemplateSource>, ReportError> {
    if paths.is_empty() {
        return Ok([DEFAULT_MD, DEFAULT_HTML]
            .into_iter()
            .map(|(name, src)| TemplateSource::new(name, src.to_string()))
            .collect());
    }
    paths
        .iter()
        .map(|p| {
            let source = std::fs::read_to_string(p).map_err(|source| {
                if source.kind() == std::io::ErrorKind::NotFound {
                    ReportError::Read(RunReadError::Missing {
                        path: p.clone(),
                        what: "a report template named in the spec's report.templates or --templates",
                    })
                } else {
                    ReportError::Read(RunReadError::Io {
                        path: p.clone(),
                        source,
                    })
                }
            })?;
            Ok(TemplateSource::new(&file_name(p), source))
        })
        .collect()
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

/// The environment: strict undefined, default auto-escape by name, our
/// filters, the defaults always loaded (so a custom template may
/// `{% include "report.md.j2" %}` or extend it), then the given templates.
pub fn environment(templates: &[TemplateSource]) -> Result<Environment<'static>, ReportError> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_debug(true);
    env.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
            .expect("the default delimiters are valid"),
    );
    env.add_filter("fmt_rps", |v: Value| optional(v, format::rps));
    env.add_filter("fmt_ms", |v: Value| optional(v, format::ms));
    env.add_filter("fmt_bytes", |v: Value| optional(v, format::bytes));
    env.add_filter("pct", |v: Value, decimals: Option<usize>| {
        optional(v, |f| format::pct(f, decimals.unwrap_or(1), false))
    });
    env.add_filter("signed_pct", |v: Value, decimals: Option<usize>| {
        optional(v, |f| format::pct(f, decimals.unwrap_or(1), true))
    });
    env.add_filter("fmt_num", |v: Value, decimals: Option<usize>| {
        optional(v, |f| format!("{f:.*}", decimals.unwrap_or(2)))
    });
    env.add_filter("md_cell", |v: Value| {
        if v.is_none() || v.is_undefined() {
            return format::MISSING.to_string();
        }
        format::md_cell(&v.to_string())
    });
    env.add_filter("beyond_load", |v: Value| {
        format::beyond_load(v.as_str().unwrap_or_default())
    });
    env.add_filter("or_dash", |v: Value| {
        if v.is_none() || v.is_undefined() || v.as_str() == Some("") {
            format::MISSING.to_string()
        } else {
            v.to_string()
        }
    });
    env.add_filter("code_spans", |v: Value| {
        Value::from_safe_string(format::code_spans_html(v.as_str().unwrap_or_default()))
    });
    for (name, src) in [DEFAULT_MD, DEFAULT_HTML] {
        env.add_template_owned(name.to_string(), src.to_string())
            .map_err(|e| ReportError::template(name, &e))?;
    }
    for t in templates {
        env.add_template_owned(t.name.clone(), t.source.clone())
            .map_err(|e| ReportError::template(&t.name, &e))?;
    }
    Ok(env)
}

/// Applies a number formatter, rendering none as an em dash. A value that is
/// not a number is an error naming it, not a silent "0".
fn optional(v: Value, f: impl Fn(f64) -> String) -> Result<String, minijinja::Error> {
    if v.is_none() || v.is_undefined() {
        return Ok(format::MISSING.to_string());
    }
    match f64::try_from(v.clone()) {
        Ok(x) => Ok(f(x)),
        Err(_) => Err(minijinja::Error::new(
            minijinja::ErrorKind::InvalidOperation,
            format!("expected a number, got {v:?}"),
        )),
    }
}

/// Renders one template with the context.
pub fn render(
    env: &Environment<'_>,
    template: &TemplateSource,
    ctx: &Value,
) -> Result<String, ReportError> {
    let tmpl = env
        .get_template(&template.name)
        .map_err(|e| ReportError::template(&template.name, &e))?;
    tmpl.render(ctx)
        .map_err(|e| ReportError::template(&template.name, &e))
}
