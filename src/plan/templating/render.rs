//! The one way a templated field is rendered while planning: a template
//! that cannot be rendered is reported against its field (once, see
//! [`Collector`]) and renders empty, so planning goes on and one pass finds
//! every problem of the spec.
use minijinja::Environment;

use crate::plan::Collector;
use crate::plan::templating::template::{self, Hints, Vars};
use crate::spec::LoadedSpec;

/// Renders the fields of one context (a runtime, or a cell of it).
pub struct Renderer<'r, 's> {
    pub loaded: &'r LoadedSpec,
    pub env: &'r Environment<'s>,
    pub hints: &'r Hints,
    pub problems: &'r mut Collector,
}

impl<'s> Renderer<'_, 's> {
    /// `source` (the value of `field`) rendered with `vars`.
    pub fn one(&mut self, field: &str, source: &'s str, vars: &Vars) -> String {
        match template::render(self.env, source, vars, self.hints) {
            Ok(text) => text,
            Err(e) => {
                self.problems.add(self.loaded, field, e.message, e.help);
                String::new()
            }
        }
    }

    /// Every item of the list `field` (absent = empty), item `i` reported
    /// as `field.i`.
    pub fn list(
        &mut self,
        field: &str,
        sources: Option<&'s Vec<String>>,
        vars: &Vars,
    ) -> Vec<String> {
        sources
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, source)| self.one(&format!("{field}.{i}"), source, vars))
            .collect()
    }

    /// Every value of the map `field` (key -> template), in the map's order,
    /// the value of `key` reported as `field.key`.
    pub fn map(
        &mut self,
        field: &str,
        entries: impl IntoIterator<Item = (&'s String, &'s String)>,
        vars: &Vars,
    ) -> Vec<(String, String)> {
        entries
            .into_iter()
            .map(|(key, source)| {
                let text = self.one(&format!("{field}.{key}"), source, vars);
                (key.clone(), text)
            })
            .collect()
    }
}
