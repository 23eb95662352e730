//! A runtime's start fields resolved per cell: `env` values, `jvm_flags`,
//! `java.version` (and so `{{ java }}` and `{{ jvm_flags }}` in `start`)
//! and `start` itself may use axis variables, e.g. `java: { version:
//! "{{ jdk }}" }` with `axes: { jdk: [17, 25] }`. When any of them does,
//! every cell of the runtime gets its own [`StartVariant`]; cells whose
//! variants differ never share a service start (`crate::plan::steps::restart`), and the
//! cells of one runtime and repeat are ordered so that those sharing a
//! variant are adjacent ([`group_by_start`]).
//!
//! What stays per runtime: the build (it may not use an axis, and sees the
//! build JDK: `java.build`, else the highest version the cells resolve to),
//! training (refused on a runtime whose start varies: a trained artifact
//! belongs to one start), health, artifact and deployable. The runtime's
//! own `start`, `env` and `jvm_flags` in the plan are those of its first
//! cell: cold starts, memory phases and `runner verify` use that variant.
//!
//! A cell whose JDK is older than `java.min`, or not installed, is not
//! run: it is listed in [`crate::plan::Plan::skipped_cells`] with why.
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::plan::contract::start_variant::StartVariant;
use minijinja::Environment;

use crate::plan::steps::draft::RuntimeDraft;
use crate::plan::templating::render::Renderer;
use crate::plan::templating::template::Vars;
use crate::plan::{Cell, Collector, JavaPlan, RuntimePlan};
use crate::results::SkippedCell;
use crate::spec::LoadedSpec;
use crate::spec::model::{JavaSpec, RuntimeSpec};

/// Where JDKs are looked for, with each version resolved once.
pub struct JdkFinder<'h> {
    pub base_dir: &'h Path,
    pub java_home: Option<&'h Path>,
    pub jvm_root: &'h Path,
    found: HashMap<String, JavaPlan>,
}

impl<'h> JdkFinder<'h> {
    pub fn new(base_dir: &'h Path, java_home: Option<&'h Path>, jvm_root: &'h Path) -> Self {
        JdkFinder {
            base_dir,
            java_home,
            jvm_root,
            found: HashMap::new(),
        }
    }

    /// The JDK of major `version` (as `crate::plan::toolchains::java::resolve` finds it).
    pub fn version(&mut self, version: &str) -> JavaPlan {
        let spec = JavaSpec {
            version: Some(version.trim().to_owned()),
            ..JavaSpec::default()
        };
        let (base, home, root) = (self.base_dir, self.java_home, self.jvm_root);
        self.found
            .entry(version.trim().to_owned())
            .or_insert_with(|| crate::plan::toolchains::java::resolve(&spec, base, home, root))
            .clone()
    }
}

/// `{{ java }}`: the JDK's `bin/java`, or a marker naming the missing JDK.
pub fn java_bin(java: &JavaPlan) -> String {
    match &java.home {
        Some(home) => home.join("bin/java").display().to_string(),
        None => format!(
            "<jdk-{}-not-found>",
            java.requested.replace(char::is_whitespace, "_")
        ),
    }
}

/// Whether `java.version` of `rt` is a template (resolved per cell).
pub fn templated_version(rt: &RuntimeSpec) -> bool {
    rt.java
        .as_ref()
        .and_then(|j| j.version.as_deref())
        .is_some_and(|v| v.contains("{{"))
}

/// Whether the start fields of `rt` vary per cell: `start`, `jvm_flags`,
/// an `env` value (its own or the spec-wide one), `java.version` or a
/// `files:` template in `dir` (the runtime's resolved folder) use an axis.
pub fn varies(loaded: &LoadedSpec, rt: &RuntimeSpec, dir: &Path, env: &Environment) -> bool {
    let axes: Vec<String> = loaded.spec.axes.keys().cloned().collect();
    let mut sources = crate::plan::templating::template::start_templates(loaded, rt);
    sources.extend(rt.java.as_ref().and_then(|j| j.version.as_deref()));
    let files = crate::plan::templating::files::sources(dir, rt);
    sources.extend(files.iter().map(String::as_str));
    crate::plan::templating::template::uses_any(env, sources, &axes)
}

/// The JDK a runtime whose `java.version` is templated builds with:
/// `java.build` when written, else the highest major version its cells
/// (`points`) resolve to that is installed, else the highest asked for
/// (not found: preflight skips the runtime, as for any missing JDK).
pub fn build_jdk<'s>(
    r: &mut Renderer<'_, 's>,
    field: &str,
    java: &'s JavaSpec,
    vars: &Vars,
    points: &[&crate::plan::steps::matrix::Point],
    jdks: &mut JdkFinder,
) -> JavaPlan {
    if let Some(build) = &java.build {
        return jdks.version(build);
    }
    let source = java.version.as_deref().unwrap_or_default();
    let mut resolved: Vec<JavaPlan> = points
        .iter()
        .map(|point| {
            let version = r.one(field, source, &with_point(vars, point));
            jdks.version(&version)
        })
        .collect();
    let major = |j: &JavaPlan| j.requested.parse::<u32>().unwrap_or(0);
    resolved.sort_by_key(|j| (j.home.is_some(), major(j)));
    resolved.pop().unwrap_or_else(|| jdks.version(""))
}

/// A runtime's start fields as one rendering gives them.
pub struct StartFields {
    pub jvm_flags: Vec<String>,
    pub start: String,
    pub env: BTreeMap<String, String>,
    pub scratch: Option<crate::plan::ScratchPlan>,
}

/// The start fields of runtime `name` rendered with `vars`: its JVM flags
/// (also set as `jvm_flags` in `vars`, for `start` to use), its start
/// command, its environment (the spec's, the runtime's, `PORT`, and
/// `RUNNER_SCRATCH` when it has a scratch folder) and its `files:`
/// ([`crate::plan::templating::files`]). One rendering for a runtime's plan
/// and for each cell's variant.
/// `tls`: the start serves TLS (its cell's protocol is https or h2), so
/// its scratch folder gets the run's certificate and its environment names
/// the files (`TLS_CERT_FILE`, `TLS_KEY_FILE`, `TLS_CA_FILE`).
pub fn render_start<'s>(
    r: &mut Renderer<'s, 's>,
    name: &str,
    rt: &'s RuntimeSpec,
    vars: &mut Vars,
    port: u16,
    tls: bool,
) -> StartFields {
    let loaded = r.loaded;
    let at = |field: &str| format!("runtimes.{name}.{field}");
    let jvm_flags = r.list(&at("jvm_flags"), rt.jvm_flags.as_ref(), vars);
    vars.set("jvm_flags", jvm_flags.join(" "));
    let start = rt
        .start
        .as_deref()
        .map(|s| r.one(&at("start"), s, vars))
        .unwrap_or_default();
    let mut env: BTreeMap<String, String> = BTreeMap::new();
    env.extend(r.map("env", &loaded.spec.env, vars));
    env.extend(r.map(&at("env"), rt.env.iter().flatten(), vars));
    env.insert("PORT".into(), port.to_string());
    let scratch = crate::plan::templating::files::render_scratch(r, name, rt, vars, tls);
    if let Some(s) = &scratch {
        env.insert("RUNNER_SCRATCH".into(), s.path.display().to_string());
        if s.tls {
            env.extend(crate::plan::keys::protocol::tls_env(&s.path));
        }
    }
    StartFields {
        jvm_flags,
        start,
        env,
        scratch,
    }
}

fn with_point(vars: &Vars, point: &crate::plan::steps::matrix::Point) -> Vars {
    let mut vars = vars.clone();
    crate::plan::steps::cell::set_axes(&mut vars, point);
    vars
}

/// The start fields of runtime `name` for one cell with `vars` (its
/// runtime's variables and the cell's axes).
pub fn render_variant<'s>(
    r: &mut Renderer<'s, 's>,
    name: &str,
    rt: &'s RuntimeSpec,
    runtime: &RuntimePlan,
    mut vars: Vars,
    jdks: &mut JdkFinder,
    tls: bool,
) -> StartVariant {
    let at = |field: &str| format!("runtimes.{name}.{field}");
    let java = match rt.java.as_ref() {
        Some(j) if templated_version(rt) => {
            let version = r.one(
                &at("java.version"),
                j.version.as_deref().unwrap_or(""),
                &vars,
            );
            Some(jdks.version(&version))
        }
        _ => runtime.java.clone(),
    };
    if let Some(java) = &java {
        vars.set("java", java_bin(java));
    }
    let fields = render_start(r, name, rt, &mut vars, runtime.port, tls);
    StartVariant {
        start: fields.start,
        env: fields.env,
        jvm_flags: fields.jvm_flags,
        java,
        scratch: fields.scratch,
    }
}

/// Why `cell` cannot run on the JDK it resolves to, if it cannot:
/// older than `min`, or not installed.
pub fn skip_reason(cell: &Cell, java: &JavaPlan, min: Option<u32>) -> Option<String> {
    let axes: Vec<String> = cell.axes.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let cell_words = if axes.is_empty() {
        cell.id.clone()
    } else {
        axes.join(",")
    };
    let Some(home) = &java.home else {
        return Some(format!(
            "{}: JDK {} is not installed on this host (looked in JAVA_HOME and {}); cell {cell_words}: skipped",
            cell.runtime,
            java.requested,
            crate::plan::toolchains::java::JVM_ROOT
        ));
    };
    let version = java.version.as_deref().unwrap_or("?");
    let major: u32 = crate::plan::toolchains::java::major(version).parse().ok()?;
    let min = min?;
    (major < min).then(|| {
        format!(
            "{} needs JDK {min} or newer; cell {cell_words} resolved {} ({version}): skipped",
            cell.runtime,
            home.display()
        )
    })
}

/// `cells` with their start variants rendered (for runtimes whose start
/// fields vary), the cells that cannot run on their JDK taken out (with
/// why), and each runtime-and-repeat block grouped by start.
pub fn apply<'s>(
    loaded: &'s LoadedSpec,
    env: &Environment<'s>,
    drafts: &mut [RuntimeDraft],
    cells: Vec<Cell>,
    jdks: &mut JdkFinder,
    problems: &mut Collector,
) -> (Vec<Cell>, Vec<SkippedCell>) {
    let mut kept = Vec::with_capacity(cells.len());
    let mut skipped = Vec::new();
    for mut cell in cells {
        let Some(draft) = drafts.iter().find(|d| d.name() == cell.runtime) else {
            kept.push(cell);
            continue;
        };
        let Some(rt) = loaded.runtimes.get(&cell.runtime) else {
            kept.push(cell);
            continue;
        };
        if draft.context.hints.per_cell_start {
            let vars = crate::plan::steps::cell::cell_vars(&draft.context, &cell.axes);
            let mut r = Renderer {
                loaded,
                env,
                hints: &draft.context.hints,
                problems,
            };
            cell.variant = Some(render_variant(
                &mut r,
                draft.name(),
                rt,
                draft.runtime(),
                vars,
                jdks,
                cell.load.transport.protocol.uses_tls(),
            ));
        }
        let java = match &cell.variant {
            Some(v) => v.java.as_ref(),
            None => draft.runtime().java.as_ref(),
        };
        let min = rt.java.as_ref().and_then(|j| j.min);
        // A runtime-wide JDK that is missing is preflight's to report.
        let own_jdk = cell.variant.is_some() && templated_version(rt);
        let reason = java.and_then(|j| {
            if j.home.is_none() && !own_jdk {
                None
            } else {
                skip_reason(&cell, j, min)
            }
        });
        match reason {
            Some(reason) => skipped.push(SkippedCell {
                cell_id: cell.id.clone(),
                runtime: cell.runtime.clone(),
                reason,
            }),
            None => kept.push(cell),
        }
    }
    let kept = group_by_start(kept);
    for draft in drafts.iter_mut() {
        if !draft.context.hints.per_cell_start {
            continue;
        }
        let name = draft.name().to_owned();
        let starts: Vec<&StartVariant> = kept
            .iter()
            .filter(|c| c.runtime == name)
            .filter_map(|c| c.variant.as_ref())
            .collect();
        let runtime = draft.runtime_mut();
        if let Some(first) = starts.first() {
            runtime.start = first.start.clone();
            runtime.env = first.env.clone();
            runtime.jvm_flags = first.jvm_flags.clone();
            runtime.scratch = first.scratch.clone();
        }
        for program in
            crate::plan::toolchains::tools::programs(starts.iter().map(|v| v.start.as_str()))
        {
            if !runtime.tools.contains(&program) {
                runtime.tools.push(program);
            }
        }
    }
    (kept, skipped)
}

/// `cells` with each block of consecutive cells of one runtime and repeat
/// reordered so that cells sharing a start variant are adjacent: the
/// variants in the order they first appear, the cells of each in plan
/// order. A block without variants is left as it is.
pub fn group_by_start(cells: Vec<Cell>) -> Vec<Cell> {
    let mut out: Vec<Cell> = Vec::with_capacity(cells.len());
    let mut block: Vec<Cell> = Vec::new();
    let flush = |block: &mut Vec<Cell>, out: &mut Vec<Cell>| {
        let mut groups: Vec<(Option<StartVariant>, Vec<Cell>)> = Vec::new();
        for cell in block.drain(..) {
            match groups.iter_mut().find(|(v, _)| *v == cell.variant) {
                Some((_, group)) => group.push(cell),
                None => groups.push((cell.variant.clone(), vec![cell])),
            }
        }
        out.extend(groups.into_iter().flat_map(|(_, g)| g));
    };
    for cell in cells {
        let same = block
            .last()
            .is_some_and(|b| b.runtime == cell.runtime && b.repeat == cell.repeat);
        if !same {
            flush(&mut block, &mut out);
        }
        block.push(cell);
    }
    flush(&mut block, &mut out);
    out
}

/// The problem of `train:` on a runtime whose start varies per cell.
pub fn check_training(
    loaded: &LoadedSpec,
    name: &str,
    rt: &RuntimeSpec,
    per_cell: bool,
    problems: &mut Collector,
) {
    if per_cell && rt.train.is_some() {
        problems.add(
            loaded,
            &format!("runtimes.{name}.train"),
            format!(
                "runtime `{name}` trains an artifact, but its start fields (`start`, `env`, `jvm_flags` or `java.version`) use an axis, so its cells start differently"
            ),
            "a trained artifact (a Leyden AOT cache, a PGO profile) belongs to one start: declare one runtime per value of the axis (e.g. with `extends:`), each with its own `train:`",
        );
    }
}

/// The JDK folders of `java_home`, for tests and callers holding a `Host`.
pub fn finder_of<'h>(
    loaded: &'h LoadedSpec,
    host: &'h crate::plan::steps::inputs::Host,
) -> JdkFinder<'h> {
    JdkFinder::new(&loaded.base_dir, host.java_home, host.jvm_root)
}

#[cfg(test)]
#[path = "variant_tests.rs"]
mod tests;
