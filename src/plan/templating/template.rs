//! Rendering spec values with minijinja in strict mode.
//!
//! Every templated field is rendered for the context it runs in: runtime
//! fields (`start`, `env`, `build`, ...) once per runtime, workload and load
//! fields once per cell (they also see the axes). A variable that is not in
//! that context is reported by name, with the field, before anything runs.
use std::collections::BTreeMap;

use minijinja::{Environment, UndefinedBehavior, Value};

/// The variables visible to one render, and what each nested one offers.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    values: BTreeMap<String, Value>,
}

/// A template that cannot be rendered: what is wrong and what to do.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateError {
    pub message: String,
    pub help: String,
}

/// Why a variable may be missing, to give the right hint.
#[derive(Debug, Clone, Default)]
pub struct Hints {
    /// Axes declared in the spec (unavailable in runtime fields).
    pub axes: Vec<String>,
    /// Whether the runtime has a `java:` section.
    pub has_java: bool,
    /// Every dependency's name (a runtime sees only those it needs).
    pub dependencies: Vec<String>,
    /// Whether the runtime's start fields use an axis (`jvm_flags` then
    /// varies per cell and a per-runtime field such as `build` cannot use it).
    pub per_cell_start: bool,
}

impl Vars {
    pub fn set(&mut self, name: &str, value: impl Into<Value>) {
        self.values.insert(name.to_owned(), value.into());
    }

    pub fn set_map(&mut self, name: &str, entries: &[(&str, Value)]) {
        let map: BTreeMap<String, Value> = entries
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect();
        self.values.insert(name.to_owned(), Value::from_pairs(map));
    }

    /// Whether `dotted` (`deps.db.port`) names a variable here.
    pub fn has(&self, dotted: &str) -> bool {
        let mut parts = dotted.split('.');
        let Some(root) = parts.next().and_then(|r| self.values.get(r)) else {
            return false;
        };
        let mut value = root.clone();
        for part in parts {
            match value.get_attr(part) {
                Ok(v) if !v.is_undefined() => value = v,
                _ => return false,
            }
        }
        true
    }

    /// The value of top-level variable `name`, if set.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.get(name)
    }

    /// Every variable, as one value to render a template with.
    pub fn context(&self) -> Value {
        Value::from_pairs(self.values.clone())
    }

    fn names(&self) -> Vec<&str> {
        self.values.keys().map(String::as_str).collect()
    }
}

/// Whether any of `sources` uses one of `names` as a variable (a template
/// that does not parse uses none here: its own render reports the syntax error).
pub fn uses_any<'a>(
    env: &Environment,
    sources: impl IntoIterator<Item = &'a str>,
    names: &[String],
) -> bool {
    sources.into_iter().any(|source| {
        source.contains("{{")
            && env.template_from_str(source).is_ok_and(|t| {
                t.undeclared_variables(false)
                    .iter()
                    .any(|v| names.contains(v))
            })
    })
}

/// The templates a runtime's start renders: its `start`, `jvm_flags`, its
/// own and the spec-wide `env` values (what an axis or `{{ scratch }}` in
/// them makes per cell, or needs a folder, is decided over these).
pub fn start_templates<'a>(
    loaded: &'a crate::spec::LoadedSpec,
    rt: &'a crate::spec::model::RuntimeSpec,
) -> Vec<&'a str> {
    let mut sources: Vec<&str> = Vec::new();
    sources.extend(rt.start.as_deref());
    sources.extend(rt.jvm_flags.iter().flatten().map(String::as_str));
    sources.extend(rt.env.iter().flatten().map(|(_, v)| v.as_str()));
    sources.extend(loaded.spec.env.values().map(String::as_str));
    sources
}

/// A strict environment: undefined variables are errors, no HTML escaping.
pub fn environment<'s>() -> Environment<'s> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    env
}

/// Renders `source` with `vars`. Text without template syntax is returned as is.
pub fn render<'s>(
    env: &Environment<'s>,
    source: &'s str,
    vars: &Vars,
    hints: &Hints,
) -> Result<String, TemplateError> {
    if !source.contains("{{") && !source.contains("{%") && !source.contains("{#") {
        return Ok(source.to_owned());
    }
    let template = env.template_from_str(source).map_err(|e| TemplateError {
        message: format!(
            "template syntax error: {}",
            e.detail().unwrap_or(&e.to_string())
        ),
        help: "templates use minijinja syntax: `{{ name }}`".into(),
    })?;
    let mut used: Vec<String> = template.undeclared_variables(true).into_iter().collect();
    used.sort();
    for name in used {
        if !vars.has(&name) {
            return Err(undefined(&name, vars, hints));
        }
    }
    template
        .render(Value::from_pairs(vars.values.clone()))
        .map_err(|e| TemplateError {
            message: format!(
                "template error: {}",
                e.detail().map_or_else(|| e.to_string(), str::to_owned)
            ),
            help: "check the expression (see docs/spec.md, Templates)".into(),
        })
}

fn undefined(name: &str, vars: &Vars, hints: &Hints) -> TemplateError {
    let root = name.split('.').next().unwrap_or(name);
    let message = format!("undefined template variable `{name}`");
    let help = if hints.axes.iter().any(|a| a == root) {
        format!(
            "`{root}` is an axis: axes change per cell, so only per-cell fields may use them: `workload`, `load`, \
             `limits` and a runtime's `env`, `jvm_flags`, `java.version` and `start`; `build`, `train`, `health`, \
             `artifact` and `deployable` run or apply once per runtime: move what depends on `{root}` into \
             `start`, `env` or `jvm_flags`, or declare one runtime per value"
        )
    } else if root == "jvm_flags" && hints.per_cell_start {
        "this runtime's `jvm_flags` use an axis, so they vary per cell; a build runs once per runtime \
         and cannot use them: write the flags the build needs here directly"
            .to_owned()
    } else if root == "seq" || root == "rand" {
        "`seq` and `rand(low, high)` change with every request: only a workload request's `path` and `body` may use them".to_owned()
    } else if root == "deps" && hints.dependencies.is_empty() {
        "the spec declares no `dependencies:`: add the one this names there".to_owned()
    } else if root == "deps" {
        let wanted = name.split('.').nth(1).unwrap_or("");
        if vars.has(&format!("deps.{wanted}")) {
            let keys = vars
                .values
                .get("deps")
                .and_then(|d| d.get_attr(wanted).ok())
                .and_then(|d| d.try_iter().ok())
                .map(|keys| {
                    keys.map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            format!("dependency `{wanted}` gives {keys}")
        } else if hints.dependencies.iter().any(|d| d == wanted) {
            format!(
                "this runtime does not need `{wanted}`: add it to the runtime's `needs` \
                 (a runtime sees only the dependencies it needs)"
            )
        } else {
            let names: Vec<&str> = hints.dependencies.iter().map(String::as_str).collect();
            crate::spec::error::suggestion(wanted, &names, "dependencies")
        }
    } else if root == "tls" {
        "`tls` names the run's certificate files of a runtime that serves TLS: add https or h2 to \
         the runtime's `protocols`"
            .to_owned()
    } else if root == "java" {
        "this runtime has no `java:` section: add `java: { version: \"25\" }`".to_owned()
    } else if vars.values.contains_key(root) {
        format!("`{root}` has no attribute `{}`", &name[root.len() + 1..])
    } else {
        let names = vars.names();
        let known = names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ");
        match crate::spec::error::closest(root, names.iter().copied()) {
            Some(best) => format!(
                "did you mean `{best}`? (variables here: {known}); an axis must be declared under `axes:`"
            ),
            None => format!("declare it under `axes:`, or use a variable available here: {known}"),
        }
    };
    TemplateError { message, help }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Vars {
        let mut v = Vars::default();
        v.set("payload", 128);
        v.set_map("host", &[("cpus", Value::from(2))]);
        v
    }

    #[test]
    fn renders_axes_and_nested_values() {
        let env = environment();
        let out = render(
            &env,
            "/api/{{ payload }}?c={{ host.cpus }}",
            &vars(),
            &Hints::default(),
        )
        .unwrap();
        assert_eq!(out, "/api/128?c=2");
        assert_eq!(
            render(&env, "plain", &vars(), &Hints::default()).unwrap(),
            "plain"
        );
    }

    #[test]
    fn names_undefined_variables_with_a_hint() {
        let env = environment();
        let err = render(&env, "{{ paylod }}", &vars(), &Hints::default()).unwrap_err();
        assert_eq!(err.message, "undefined template variable `paylod`");
        assert!(
            err.help.starts_with("did you mean `payload`?"),
            "{}",
            err.help
        );
        let err = render(&env, "{{ host.memory }}", &vars(), &Hints::default()).unwrap_err();
        assert_eq!(err.message, "undefined template variable `host.memory`");
        let hints = Hints {
            axes: vec!["concurrency".into()],
            has_java: false,
            dependencies: Vec::new(),
            per_cell_start: false,
        };
        let err = render(&env, "{{ concurrency }}", &vars(), &hints).unwrap_err();
        assert!(err.help.contains("is an axis"));
        assert!(
            render(&env, "{{ x", &vars(), &hints)
                .unwrap_err()
                .message
                .starts_with("template syntax error")
        );
    }
}
