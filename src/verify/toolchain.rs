//! Is a runtime checkable on this host? A missing toolchain or JDK makes it
//! "skipped" (reported, and a failure of verify unless `--allow-skipped`),
//! not a build failure with a confusing `sh: go: not found` in a log.
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::build::runtime_env;
use crate::plan::RuntimePlan;

/// Why `rt` cannot be checked here, or `None` when everything it needs is present.
pub fn missing_toolchain(rt: &RuntimePlan) -> Option<String> {
    let mut missing = Vec::new();
    if let Some(java) = &rt.java {
        match &java.home {
            None => missing.push(format!(
                "no JDK {} found (looked at JAVA_HOME and {}): install it or point `java:` at its home",
                java.requested,
                crate::plan::java::JVM_ROOT
            )),
            Some(home) if !is_executable(&home.join("bin/java")) => missing.push(format!(
                "JDK home {} has no bin/java: point `java:` at a complete JDK",
                home.display()
            )),
            Some(_) => {}
        }
    }
    let env = runtime_env(rt);
    let path = env
        .get("PATH")
        .cloned()
        .or_else(|| std::env::var("PATH").ok())
        .unwrap_or_default();
    for tool in &rt.tools {
        let found = if tool.starts_with('/') {
            is_executable(Path::new(tool))
        } else {
            on_path(tool, &path)
        };
        if !found {
            missing.push(format!("`{tool}` is not on PATH: install it"));
        }
    }
    (!missing.is_empty()).then(|| missing.join("; "))
}

fn on_path(tool: &str, path: &str) -> bool {
    path.split(':')
        .filter(|d| !d.is_empty())
        .any(|d| is_executable(&Path::new(d).join(tool)))
}

fn is_executable(path: &Path) -> bool {
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sh_is_found_and_a_made_up_tool_is_not() {
        let path = std::env::var("PATH").unwrap();
        assert!(on_path("sh", &path));
        assert!(!on_path("no-such-tool-for-runner-verify", &path));
        assert!(is_executable(Path::new("/bin/sh")));
        let tmp = tempfile::NamedTempFile::new().unwrap();
        assert!(!is_executable(tmp.path()), "a fresh file has no x bit");
        assert!(
            !is_executable(std::env::temp_dir().as_path()),
            "a directory"
        );
    }
}
