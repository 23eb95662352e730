//! `source: { git: REV }`: a runtime built from a revision of the git work
//! tree that holds its `dir`, not from the files on disk. The plan resolves
//! the revision to its commit and exports that commit's tree (`git archive`,
//! so the work tree, its index and its checkout are never touched) into
//! `<results>/<experiment>/.sources/<commit>`, once per commit: every later
//! plan, build and run at that commit reuses the export, and the build
//! cache keyed by the export's inputs builds it once.
//!
//! The export happens at plan time, not in exec, because the plan already
//! reads the runtime's files (its `files:` templates, its `version:`
//! command's folder) and preflight checks its `dir`: all of them then read
//! the revision, with no second code path for "sources not there yet".
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::plan::{Collector, SourcePlan};
use crate::results::provenance::{GIT_TIMEOUT, git, git_commit};
use crate::spec::LoadedSpec;
use crate::spec::model::RuntimeSpec;

/// How long one export may take (a large repository's `git archive`).
const EXPORT_TIMEOUT: Duration = Duration::from_secs(600);

/// `<spec folder>/<results>/<experiment>`: where the experiment's runs,
/// build cache and exported sources live.
pub fn experiment_results(loaded: &LoadedSpec) -> PathBuf {
    crate::spec::absolute(
        &loaded
            .base_dir
            .join(loaded.spec.results.as_deref().unwrap_or("results"))
            .join(&loaded.spec.experiment.name),
    )
}

/// The runtime's `dir` as the spec names it, on disk.
pub fn spec_dir(loaded: &LoadedSpec, rt: &RuntimeSpec) -> PathBuf {
    crate::spec::absolute(&loaded.base_dir.join(rt.dir.as_deref().unwrap_or(".")))
}

/// The folder the runtime's commands run in, and its source when it is a
/// git revision (then exported if it is not yet). A revision that cannot
/// be resolved or exported is a problem at `runtimes.<name>.source.git`;
/// the on-disk `dir` is returned so planning goes on and reports the rest.
pub fn resolve(
    loaded: &LoadedSpec,
    name: &str,
    rt: &RuntimeSpec,
    problems: &mut Collector,
) -> (PathBuf, Option<SourcePlan>) {
    locate(loaded, rt).unwrap_or_else(|SourceProblem { message, help }| {
        let field = format!("runtimes.{name}.source.git");
        problems.add(loaded, &field, message, help);
        (spec_dir(loaded, rt), None)
    })
}

fn locate(
    loaded: &LoadedSpec,
    rt: &RuntimeSpec,
) -> Result<(PathBuf, Option<SourcePlan>), SourceProblem> {
    let dir = spec_dir(loaded, rt);
    let Some(spec) = &rt.source else {
        return Ok((dir, None));
    };
    let (inside, source) = export(
        &dir,
        &spec.git,
        &experiment_results(loaded).join(".sources"),
    )?;
    Ok((inside, Some(source)))
}

/// The folder of `dir` inside the export of `rev`, exported into `cache`
/// unless it already is.
fn export(dir: &Path, rev: &str, cache: &Path) -> Result<(PathBuf, SourcePlan), SourceProblem> {
    let shown = dir.display();
    let top = git(dir, &["rev-parse", "--show-toplevel"], GIT_TIMEOUT).ok_or_else(|| {
        SourceProblem::new(
            format!("the runtime's dir {shown} is not inside a git work tree, so `{rev}` cannot be read"),
            "point `dir` at a folder of the repository whose revision is wanted, or remove `source`",
        )
    })?;
    let top = PathBuf::from(top.trim());
    let prefix = git(dir, &["rev-parse", "--show-prefix"], GIT_TIMEOUT).unwrap_or_default();
    let wanted = format!("{rev}^{{commit}}");
    let commit = git(&top, &["rev-parse", "--verify", "--quiet", &wanted], GIT_TIMEOUT)
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .ok_or_else(|| {
            SourceProblem::new(
                format!("`{rev}` is not a commit of the repository at {}", top.display()),
                "name a tag, branch or commit it has (`git log --oneline`, `git tag`); fetch it first if it lives on a remote",
            )
        })?;
    let export = cache.join(&commit);
    if !export.is_dir() {
        extract(&top, &commit, cache, &export)?;
    }
    let prefix = prefix.trim();
    let inside = if prefix.is_empty() {
        export.clone()
    } else {
        export.join(prefix)
    };
    if !inside.is_dir() {
        return Err(SourceProblem::new(
            format!(
                "`{rev}` ({}) has no folder `{prefix}`",
                &commit[..12.min(commit.len())]
            ),
            "name a revision that has the runtime's dir, or a `dir` that revision has",
        ));
    }
    let source = SourcePlan {
        git: rev.to_string(),
        repository: top.clone(),
        commit: git_commit(&top, &commit, GIT_TIMEOUT),
        export,
    };
    Ok((inside, source))
}

/// `git archive COMMIT | tar -x` into a fresh folder beside `export`, then
/// renamed into place: a concurrent or interrupted export never leaves a
/// half-written tree where a later plan would take it for whole.
fn extract(top: &Path, commit: &str, cache: &Path, export: &Path) -> Result<(), SourceProblem> {
    let failed = |why: String| {
        SourceProblem::new(
            format!("exporting {commit} from {} failed: {why}", top.display()),
            format!(
                "check that {} is writable and that `git archive {commit}` works there",
                cache.display()
            ),
        )
    };
    // This process's own partial folder: no other plan writes into it.
    let partial = cache.join(format!(".{commit}.partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&partial);
    std::fs::create_dir_all(&partial).map_err(|e| failed(e.to_string()))?;
    let pipeline = duct::cmd("git", ["archive", "--format=tar", commit])
        .dir(top)
        .pipe(duct::cmd("tar", ["-x", "-f", "-"]).dir(&partial))
        .stderr_capture();
    if let Err(why) = archive(pipeline) {
        let _ = std::fs::remove_dir_all(&partial);
        return Err(failed(why));
    }
    if std::fs::rename(&partial, export).is_err() {
        // Another plan exported the same commit first: keep its tree.
        let _ = std::fs::remove_dir_all(&partial);
        if !export.is_dir() {
            return Err(failed(format!(
                "cannot move the export to {}",
                export.display()
            )));
        }
    }
    Ok(())
}

/// Runs the export pipeline to its end; why it failed otherwise.
fn archive(pipeline: duct::Expression) -> Result<(), String> {
    use crate::results::environment::{Bounded, run_bounded};
    match run_bounded(pipeline, EXPORT_TIMEOUT) {
        Some(Bounded::Exited(out)) if out.status.success() => Ok(()),
        Some(Bounded::Exited(out)) => Err(format!(
            "exit status {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Some(Bounded::TimedOut) => Err(format!("no end after {}s", EXPORT_TIMEOUT.as_secs())),
        None => Err("git or tar could not be started".into()),
    }
}

/// Why a revision could not be used, and what to do (reported as a plan
/// problem at the runtime's `source.git`).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
struct SourceProblem {
    message: String,
    help: String,
}

impl SourceProblem {
    fn new(message: impl Into<String>, help: impl Into<String>) -> Self {
        SourceProblem {
            message: message.into(),
            help: help.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// repo/svc/app.txt at `v1` ("one"), then "two" committed after it.
    fn repository(tmp: &Path) -> PathBuf {
        let repo = tmp.join("repo");
        std::fs::create_dir_all(repo.join("svc")).unwrap();
        std::fs::write(repo.join("svc/app.txt"), "one\n").unwrap();
        crate::results::provenance::test_git(&repo, &["init", "-q"]);
        crate::results::provenance::test_git(&repo, &["add", "."]);
        crate::results::provenance::test_git(&repo, &["commit", "-q", "-m", "first"]);
        crate::results::provenance::test_git(&repo, &["tag", "v1"]);
        std::fs::write(repo.join("svc/app.txt"), "two\n").unwrap();
        crate::results::provenance::test_git(&repo, &["commit", "-q", "-am", "second"]);
        repo
    }

    #[test]
    fn a_revision_is_exported_once_whole_and_the_work_tree_is_untouched() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = repository(tmp.path());
        let cache = tmp.path().join("results/.sources");
        let (inside, source) = export(&repo.join("svc"), "v1", &cache).unwrap();
        assert_eq!(
            std::fs::read_to_string(inside.join("app.txt")).unwrap(),
            "one\n"
        );
        assert_eq!(source.git, "v1");
        assert_eq!(source.commit.subject, "first");
        assert_eq!(source.commit.describe, "v1");
        assert_eq!(inside, source.export.join("svc"));
        assert_eq!(
            std::fs::read_to_string(repo.join("svc/app.txt")).unwrap(),
            "two\n"
        );
        // Again: the same export, no partial folder left beside it.
        let (again, _) = export(&repo.join("svc"), "v1", &cache).unwrap();
        assert_eq!(again, inside);
        let names: Vec<String> = std::fs::read_dir(&cache)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec![source.commit.commit]);
    }

    #[test]
    fn an_unknown_revision_or_a_dir_outside_git_says_what_to_do() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = repository(tmp.path());
        let cache = tmp.path().join("results/.sources");
        let missing = export(&repo.join("svc"), "v9", &cache).err().unwrap();
        assert!(
            missing.message.contains("`v9` is not a commit"),
            "{}",
            missing.message
        );
        assert!(missing.help.contains("git tag"), "{}", missing.help);
        let plain = tmp.path().join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        let outside = export(&plain, "v1", &cache).err().unwrap();
        assert!(
            outside.message.contains("not inside a git work tree"),
            "{}",
            outside.message
        );
        assert!(!cache.exists(), "nothing exported");
    }
}
