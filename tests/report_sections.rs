//! Every section of the report is in the one registry
//! (`report::sections::registry::SECTIONS`) and both default templates
//! render it: a section added to the registry but forgotten in report.md or
//! report.html (or named differently there) fails here, by name.
use std::collections::BTreeSet;
use std::path::Path;

use runner::report::sections::registry::SECTIONS;

/// The identifiers used inside the template's `{% … %}` and `{{ … }}` tags.
fn names_used(template: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for open in ["{%", "{{"] {
        let close = if open == "{%" { "%}" } else { "}}" };
        let mut rest = template;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + 2..];
            let Some(end) = after.find(close) else { break };
            for word in after[..end].split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                if !word.is_empty() {
                    out.insert(word.to_string());
                }
            }
            rest = &after[end + 2..];
        }
    }
    out
}

/// The registry's sections that `template` never names.
fn unrendered(template: &str) -> Vec<&'static str> {
    let used = names_used(template);
    SECTIONS
        .iter()
        .map(|s| s.name)
        .filter(|name| !used.contains(*name))
        .collect()
}

fn template(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("templates")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn both_default_templates_render_every_registered_section() {
    for name in ["report.md.j2", "report.html.j2"] {
        assert_eq!(
            unrendered(&template(name)),
            Vec::<&str>::new(),
            "templates/{name} does not render these sections of the registry"
        );
    }
}

#[test]
fn a_section_missing_from_a_template_is_named() {
    let md = template("report.md.j2");
    let without = md.replace("max_latency", "something_else");
    assert_eq!(unrendered(&without), ["max_latency"]);
    assert!(names_used("{% if a %}{{ b.c | d }}{% endif %} e").contains("b"));
    assert!(!names_used("{% if a %} plain words {% endif %}").contains("plain"));
}

#[test]
fn the_registry_names_each_section_once() {
    let mut seen = BTreeSet::new();
    for s in SECTIONS {
        assert!(seen.insert(s.name), "{} is registered twice", s.name);
    }
}
