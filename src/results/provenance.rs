//! What a run measured, in the words that find it again: the user's
//! `--label KEY=VALUE`s, and for every runtime whose `dir` is inside a git
//! work tree, the commit its sources were at. Read from git itself (never
//! from the process environment), each command bounded in time like the
//! toolchains' version probes, so a broken repository costs a missing entry
//! and never a run.
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::results::environment::{Bounded, run_bounded};

/// A runtime's sources at the run: from `git` run in the runtime's `dir`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct GitSource {
    /// The full commit id (`git rev-parse HEAD`).
    pub commit: String,
    /// `git describe --always --tags`: the nearest tag and the distance
    /// from it, or the abbreviated commit when there is no tag.
    pub describe: String,
    /// The commit's subject line.
    pub subject: String,
    /// Uncommitted changes under the runtime's `dir` (tracked or new files
    /// that .gitignore does not name): the run measured something no commit
    /// holds. Changes elsewhere in the work tree do not count: they are not
    /// this runtime's sources.
    pub dirty: bool,
}

/// How long one git command may take before the source is left unrecorded.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(10);

/// The git source of `dir`, or `None` when `dir` is not inside a git work
/// tree (or git is missing, or does not answer in time).
pub fn git_source(dir: &Path, timeout: Duration) -> Option<GitSource> {
    let commit = git(dir, &["rev-parse", "--verify", "HEAD"], timeout)?;
    let status = git(dir, &["status", "--porcelain", "--", "."], timeout)?;
    Some(GitSource {
        dirty: !status.trim().is_empty(),
        ..git_commit(dir, commit.trim(), timeout)
    })
}

/// The commit `commit` of the repository holding `dir`, named as
/// [`GitSource`] names it; not dirty (a commit is what it is).
pub fn git_commit(dir: &Path, commit: &str, timeout: Duration) -> GitSource {
    let line = |args: &[&str]| {
        git(dir, args, timeout)
            .and_then(|out| out.lines().next().map(str::to_string))
            .unwrap_or_default()
    };
    GitSource {
        commit: commit.to_string(),
        describe: line(&["describe", "--always", "--tags", commit]),
        subject: line(&["log", "-1", "--format=%s", commit]),
        dirty: false,
    }
}

/// `git ARGS` in `dir`: its standard output when it exits 0 in time (also
/// the plan's resolution of a runtime's `source: { git: REV }`).
pub fn git(dir: &Path, args: &[&str], timeout: Duration) -> Option<String> {
    match run_bounded(duct::cmd("git", args).dir(dir).stderr_null(), timeout)? {
        Bounded::Exited(out) if out.status.success() => {
            Some(String::from_utf8_lossy(&out.stdout).into())
        }
        _ => None,
    }
}

/// Checks a `--label` pair: `KEY=VALUE`, the key letters, digits, `_`, `-`
/// or `.` (so it reads the same in a CSV, a URL and a chart), the value
/// anything on one line.
pub fn parse_label(text: &str) -> Result<(String, String), String> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not KEY=VALUE (e.g. --label commit=abc123)"))?;
    if key.is_empty()
        || !key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Err(format!(
            "the label key `{key}` must be letters, digits, `_`, `-` or `.` (e.g. --label commit=abc123)"
        ));
    }
    if value.contains(['\n', '\r']) {
        return Err(format!(
            "the label `{key}` has a line break in its value; give it on one line"
        ));
    }
    Ok((key.to_string(), value.to_string()))
}

/// `git ARGS` in `repo` as a fixed author, never signing: for the unit
/// tests that build a repository (here and plan::keys::source).
#[cfg(test)]
pub(crate) fn test_git(repo: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_key_equals_value() {
        assert_eq!(
            parse_label("commit=abc=1"),
            Ok(("commit".into(), "abc=1".into()))
        );
        assert_eq!(parse_label("branch="), Ok(("branch".into(), String::new())));
        assert!(parse_label("commit").unwrap_err().contains("not KEY=VALUE"));
        assert!(parse_label("=x").unwrap_err().contains("label key ``"));
        assert!(
            parse_label("a b=x")
                .unwrap_err()
                .contains("letters, digits")
        );
        assert!(parse_label("a=x\ny").unwrap_err().contains("line break"));
    }

    /// A repository made here: clean after the commit, dirty after an edit
    /// under the directory asked about, not dirty for an edit elsewhere.
    #[test]
    fn a_git_source_names_its_commit_and_whether_its_dir_changed() {
        let repo = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| test_git(repo.path(), args);
        std::fs::create_dir_all(repo.path().join("svc")).unwrap();
        std::fs::write(repo.path().join("svc/main.go"), "package main\n").unwrap();
        std::fs::write(repo.path().join("README"), "x\n").unwrap();
        run(&["init", "-q"]);
        run(&["add", "."]);
        run(&["commit", "-q", "-m", "the first service"]);
        run(&["tag", "v1.0"]);
        let svc = repo.path().join("svc");
        let clean = git_source(&svc, GIT_TIMEOUT).unwrap();
        assert_eq!(clean.commit.len(), 40);
        assert_eq!(clean.describe, "v1.0");
        assert_eq!(clean.subject, "the first service");
        assert!(!clean.dirty);
        std::fs::write(repo.path().join("README"), "changed elsewhere\n").unwrap();
        assert!(!git_source(&svc, GIT_TIMEOUT).unwrap().dirty);
        std::fs::write(svc.join("main.go"), "package main // changed\n").unwrap();
        assert!(git_source(&svc, GIT_TIMEOUT).unwrap().dirty);
        let outside = tempfile::tempdir().unwrap();
        assert_eq!(git_source(outside.path(), GIT_TIMEOUT), None);
    }
}
