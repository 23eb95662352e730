//! The build input hash: sources + commands + environment.
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Folders never hashed when walking a directory outside git: build output
/// and dependency caches.
const SKIPPED_DIRS: &[&str] = &[".git", "target", "build", "node_modules", ".m2", ".gradle"];

/// sha256 (hex) of the source files under `dir`, the `commands` and `env`.
pub fn input_hash(
    dir: &Path,
    commands: &[String],
    env: &BTreeMap<String, String>,
) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    for cmd in commands {
        hasher.update(b"cmd\0");
        hasher.update(cmd.as_bytes());
        hasher.update(b"\0");
    }
    for (k, v) in env {
        hasher.update(b"env\0");
        hasher.update(k.as_bytes());
        hasher.update(b"=");
        hasher.update(v.as_bytes());
        hasher.update(b"\0");
    }
    let mut buf = vec![0u8; 64 * 1024];
    for rel in source_files(dir)? {
        let path = dir.join(&rel);
        // A tracked file deleted in the work tree is simply absent.
        let Ok(mut file) = std::fs::File::open(&path) else {
            continue;
        };
        if !file.metadata()?.is_file() {
            continue;
        }
        hasher.update(b"file\0");
        hasher.update(rel.to_string_lossy().as_bytes());
        hasher.update(b"\0");
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
    }
    Ok(hex::encode(hasher.finalize()))
}

/// The source files of `dir`, relative and sorted: from git when `dir` is
/// in a work tree (tracked + untracked-not-ignored), else by walking it.
pub fn source_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let git = duct::cmd!(
        "git",
        "ls-files",
        "-z",
        "--cached",
        "--others",
        "--exclude-standard"
    )
    .dir(dir)
    .stdin_null()
    .stderr_null()
    .stdout_capture()
    .unchecked()
    .run();
    let mut files = match git {
        Ok(out) if out.status.success() => out
            .stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| PathBuf::from(String::from_utf8_lossy(p).into_owned()))
            .collect(),
        _ => {
            let mut files = Vec::new();
            walk(dir, Path::new(""), &mut files)?;
            files
        }
    };
    files.sort();
    files.dedup();
    Ok(files)
}

fn walk(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(root.join(rel))? {
        let entry = entry?;
        let name = entry.file_name();
        let rel_path = rel.join(&name);
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if !SKIPPED_DIRS.iter().any(|s| name == *s) {
                walk(root, &rel_path, out)?;
            }
        } else if kind.is_file() {
            out.push(rel_path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_changes_with_sources_commands_and_env_but_not_build_output() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::write(dir.join("main.go"), "package main").unwrap();
        let cmds = vec!["go build".to_string()];
        let env = BTreeMap::new();
        let h1 = input_hash(dir, &cmds, &env).unwrap();
        assert_eq!(h1, input_hash(dir, &cmds, &env).unwrap());

        std::fs::create_dir(dir.join("build")).unwrap();
        std::fs::write(dir.join("build/server"), "binary").unwrap();
        assert_eq!(
            h1,
            input_hash(dir, &cmds, &env).unwrap(),
            "build/ is output"
        );

        std::fs::write(dir.join("main.go"), "package main // changed").unwrap();
        let h2 = input_hash(dir, &cmds, &env).unwrap();
        assert_ne!(h1, h2);

        let h3 = input_hash(dir, &["go build -trimpath".to_string()], &env).unwrap();
        assert_ne!(h2, h3);

        let env2 = BTreeMap::from([("CGO_ENABLED".to_string(), "0".to_string())]);
        assert_ne!(h2, input_hash(dir, &cmds, &env2).unwrap());
    }

    #[test]
    fn git_work_tree_uses_ls_files_and_respects_gitignore() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let git = |args: &[&str]| {
            duct::cmd("git", args)
                .dir(dir)
                .stdout_null()
                .stderr_null()
                .run()
                .unwrap();
        };
        git(&["init", "-q"]);
        std::fs::write(dir.join(".gitignore"), "out/\n").unwrap();
        std::fs::write(dir.join("a.txt"), "a").unwrap();
        std::fs::create_dir(dir.join("out")).unwrap();
        std::fs::write(dir.join("out/x"), "x").unwrap();
        let files = source_files(dir).unwrap();
        assert_eq!(
            files,
            vec![PathBuf::from(".gitignore"), PathBuf::from("a.txt")]
        );
    }
}
