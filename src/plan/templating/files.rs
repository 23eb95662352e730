//! `files:`: templates (paths relative to the runtime's `dir`) rendered with
//! the runtime's variables, and the cell's axes where they use one, into a
//! [`ScratchPlan`]. A server that reads its port from a config file (nginx,
//! h2o, lighttpd) gets that file rendered with `{{ port }}` for each start,
//! instead of a `sed ... && exec nginx` in its `start`. Rendered at plan
//! time, so a template error is reported with the file, line and field
//! before anything runs, and plan.json holds what each start was given.
use std::path::{Path, PathBuf};

use crate::plan::templating::render::Renderer;
use crate::plan::templating::template::{self, Vars};
use crate::plan::{RenderedFile, ScratchPlan};
use crate::spec::model::RuntimeSpec;

/// The template variable naming a start's scratch folder.
pub const SCRATCH_VAR: &str = "scratch";

/// The scratch folder of service `service` (a runtime's name, or
/// `dep-<name>` for a dependency) of `experiment` on `port`: under the temp
/// dir, one per service and port, so that two runs on one host (which never
/// share a port) never share it. Known at plan time, so that templates can
/// name it; the same path on a service host.
pub fn scratch_path(experiment: &str, service: &str, port: u16) -> PathBuf {
    std::env::temp_dir().join(format!("runner-{experiment}-{service}-{port}"))
}

/// The text of every template of `rt` that can be read from `dir`, the
/// runtime's folder as the plan resolved it (for the check of whether its
/// start varies per cell; one that cannot is reported when rendered).
pub fn sources(dir: &Path, rt: &RuntimeSpec) -> Vec<String> {
    rt.files
        .iter()
        .flatten()
        .filter_map(|(_, template)| std::fs::read_to_string(dir.join(template)).ok())
        .collect()
}

/// Whether `rt` needs a scratch folder: it declares `files`, or one of its
/// start fields, health command or training start names `{{ scratch }}`.
fn wants_scratch(r: &Renderer, rt: &RuntimeSpec) -> bool {
    if rt.files.as_ref().is_some_and(|f| !f.is_empty()) {
        return true;
    }
    let mut fields = template::start_templates(r.loaded, rt);
    fields.extend(rt.health.as_ref().and_then(|h| h.command.as_deref()));
    if let Some(train) = &rt.train {
        fields.extend(train.start.as_deref());
        fields.extend(train.env.iter().flatten().map(|(_, v)| v.as_str()));
    }
    template::uses_any(r.env, fields, &[SCRATCH_VAR.to_owned()])
}

/// The scratch folder and rendered `files:` of runtime `name` with `vars`
/// (which hold `scratch`); `None` when it needs no scratch folder.
/// A start that serves TLS (`tls`) always has one: its certificate goes there.
pub fn render_scratch(
    r: &mut Renderer,
    name: &str,
    rt: &RuntimeSpec,
    vars: &Vars,
    tls: bool,
) -> Option<ScratchPlan> {
    if !tls && !wants_scratch(r, rt) {
        return None;
    }
    let path = PathBuf::from(vars.get(SCRATCH_VAR)?.as_str()?);
    // `{{ work_dir }}`: the runtime's folder as the plan resolved it (inside
    // the export of its `source:` revision when it has one).
    let dir = PathBuf::from(vars.get("work_dir")?.as_str()?);
    let field = format!("runtimes.{name}.files");
    let scratch = render_files(r, &field, &dir, rt.files.as_ref(), path, vars);
    Some(ScratchPlan { tls, ..scratch })
}

/// `files` (name -> template relative to `dir`) rendered with `vars` into a
/// scratch folder at `path`: a runtime's, or a dependency's (which always
/// has one). A template that cannot be read or rendered is reported at
/// `<field>.<file>`, naming the template's line.
pub fn render_files(
    r: &mut Renderer,
    field: &str,
    dir: &Path,
    files: Option<&indexmap::IndexMap<String, String>>,
    path: PathBuf,
    vars: &Vars,
) -> ScratchPlan {
    let mut rendered = Vec::new();
    for (file, relative) in files.into_iter().flatten() {
        let field = format!("{field}.{file}");
        let template = dir.join(relative);
        match render_file(&template, relative, vars, r.hints) {
            Ok(content) => rendered.push(RenderedFile {
                name: file.clone(),
                template,
                content,
            }),
            Err((message, help)) => r.problems.add(r.loaded, &field, message, help),
        }
    }
    ScratchPlan {
        path,
        files: rendered,
        tls: false,
    }
}

/// `template` (written `relative` in the spec) rendered with `vars`, or what
/// is wrong with it: `conf/nginx.conf.j2:12: undefined template variable ...`.
fn render_file(
    template: &Path,
    relative: &str,
    vars: &Vars,
    hints: &template::Hints,
) -> Result<String, (String, String)> {
    let content = std::fs::read_to_string(template).map_err(|e| {
        (
            // As written, not absolute: the spec's folder is known to its reader.
            format!("cannot read template {relative}: {e}"),
            "give the template's path relative to the runtime's `dir`".to_owned(),
        )
    })?;
    let mut env = template::environment();
    // A config file keeps its last newline (some parsers want one).
    env.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .keep_trailing_newline(true)
            .build()
            .expect("the default delimiters are valid"),
    );
    template::render(&env, &content, vars, hints).map_err(|e| {
        let at = match error_line(&env, &content, vars) {
            Some(line) => format!("{relative}:{line}"),
            None => relative.to_owned(),
        };
        (format!("{at}: {}", e.message), e.help)
    })
}

/// The line of `content` where rendering it with `vars` goes wrong: a
/// syntax error's, the first mention of a variable `vars` lacks, or a
/// render error's.
fn error_line(env: &minijinja::Environment, content: &str, vars: &Vars) -> Option<usize> {
    let parsed = match env.template_from_str(content) {
        Ok(t) => t,
        Err(e) => return e.line(),
    };
    let mut missing: Vec<String> = parsed
        .undeclared_variables(true)
        .into_iter()
        .filter(|v| !vars.has(v))
        .collect();
    missing.sort();
    if let Some(name) = missing.first() {
        return content
            .lines()
            .position(|line| line.contains(name.as_str()))
            .map(|i| i + 1);
    }
    parsed.render(vars.context()).err().and_then(|e| e.line())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Vars {
        let mut v = Vars::default();
        v.set("port", 8080);
        v.set(SCRATCH_VAR, "/tmp/s");
        v
    }

    fn render(text: &str) -> Result<String, (String, String)> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.conf.j2");
        std::fs::write(&path, text).unwrap();
        render_file(
            &path,
            "conf/t.conf.j2",
            &vars(),
            &template::Hints::default(),
        )
    }

    #[test]
    fn a_template_renders_with_the_runtime_variables() {
        let out = render("listen {{ port }};\npid {{ scratch }}/nginx.pid;\n").unwrap();
        assert_eq!(out, "listen 8080;\npid /tmp/s/nginx.pid;\n");
    }

    #[test]
    fn an_unknown_variable_is_named_with_its_file_and_line() {
        let (message, help) = render("a\nb\nlisten {{ prot }};\n").unwrap_err();
        assert_eq!(
            message,
            "conf/t.conf.j2:3: undefined template variable `prot`"
        );
        assert!(help.contains("did you mean `port`?"), "{help}");
    }

    #[test]
    fn a_syntax_error_is_named_with_its_line() {
        let (message, _) = render("ok\n{% if port %}\nno end\n").unwrap_err();
        assert!(message.starts_with("conf/t.conf.j2:"), "{message}");
        assert!(message.contains("syntax error"), "{message}");
    }

    #[test]
    fn a_missing_template_says_where_it_was_looked_for() {
        let (message, help) = render_file(
            Path::new("/nonexistent/x.j2"),
            "x.j2",
            &vars(),
            &template::Hints::default(),
        )
        .unwrap_err();
        assert!(
            message.starts_with("cannot read template x.j2: "),
            "{message}"
        );
        assert!(help.contains("relative to the runtime's `dir`"), "{help}");
    }
}
