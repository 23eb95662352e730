//! The JUnit XML of a [`Suite`], in the shape JUnit consumers read (Jenkins'
//! junit plugin, GitHub's test reporters, GitLab, Python's junitparser):
//! `<testsuites>` with one `<testsuite>`, `tests` / `failures` / `skipped`
//! / `errors` counts on both, a `<testcase>` per configuration and metric,
//! `<failure message=…>` with the verdict line, `<skipped message=…>` with
//! the reason, and the verdict of a passed case in its `<system-out>`.
//! Written with quick-xml, which escapes every attribute and text.
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};

use super::{CaseOutcome, Suite};

/// The whole document, UTF-8, ending with a newline.
pub fn junit_xml(suite: &Suite) -> String {
    let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
    write_document(&mut writer, suite).expect("writing XML into memory cannot fail");
    let mut text = String::from_utf8(writer.into_inner()).expect("quick-xml writes UTF-8");
    text.push('\n');
    text
}

fn write_document(w: &mut Writer<Vec<u8>>, suite: &Suite) -> std::io::Result<()> {
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let (tests, failures, skipped) = (
        suite.cases.len().to_string(),
        suite.failures().to_string(),
        suite.skipped().to_string(),
    );
    let counts = [
        ("tests", tests.as_str()),
        ("failures", failures.as_str()),
        ("errors", "0"),
        ("skipped", skipped.as_str()),
        ("time", "0"),
    ];
    w.create_element("testsuites")
        .with_attribute(("name", suite.name.as_str()))
        .with_attributes(counts)
        .write_inner_content(|w| {
            w.create_element("testsuite")
                .with_attribute(("name", suite.name.as_str()))
                .with_attributes(counts)
                .write_inner_content(|w| {
                    if !suite.properties.is_empty() {
                        w.create_element("properties").write_inner_content(|w| {
                            for (name, value) in &suite.properties {
                                w.create_element("property")
                                    .with_attribute(("name", name.as_str()))
                                    .with_attribute(("value", value.as_str()))
                                    .write_empty()?;
                            }
                            Ok(())
                        })?;
                    }
                    for case in &suite.cases {
                        let element = w
                            .create_element("testcase")
                            .with_attribute(("name", case.name.as_str()))
                            .with_attribute(("classname", case.group.as_str()))
                            .with_attribute(("time", "0"));
                        element.write_inner_content(|w| outcome(w, &case.outcome))?;
                    }
                    Ok(())
                })?;
            Ok(())
        })?;
    Ok(())
}

fn outcome(w: &mut Writer<Vec<u8>>, outcome: &CaseOutcome) -> std::io::Result<()> {
    match outcome {
        CaseOutcome::Passed { verdict } => {
            w.create_element("system-out")
                .write_text_content(BytesText::new(verdict))?;
        }
        CaseOutcome::Failed { verdict } => {
            w.create_element("failure")
                .with_attribute(("message", verdict.as_str()))
                .with_attribute(("type", "regression"))
                .write_text_content(BytesText::new(verdict))?;
        }
        CaseOutcome::Skipped { reason } => {
            w.create_element("skipped")
                .with_attribute(("message", reason.as_str()))
                .write_empty()?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::Case;
    use super::*;

    #[test]
    fn names_and_messages_are_escaped() {
        let suite = Suite {
            name: "a <b> & \"c\"".into(),
            properties: vec![("dir".into(), "x'y".into())],
            cases: vec![Case {
                group: "g".into(),
                name: "n<1>".into(),
                outcome: CaseOutcome::Failed {
                    verdict: "ratio < 0.9 & p > 0".into(),
                },
            }],
        };
        let xml = junit_xml(&suite);
        assert!(
            xml.contains("name=\"a &lt;b&gt; &amp; &quot;c&quot;\""),
            "{xml}"
        );
        assert!(xml.contains("value=\"x&apos;y\""), "{xml}");
        assert!(
            xml.contains(">ratio &lt; 0.9 &amp; p &gt; 0</failure>"),
            "{xml}"
        );
        assert!(xml.contains("failures=\"1\""), "{xml}");
    }
}
