//! Finding the JDK a runtime asks for.
//!
//! `java: { version: "25" }` is looked up first in JAVA_HOME, then in every
//! folder of /usr/lib/jvm, by the `JAVA_VERSION` line of the JDK's `release`
//! file. `java: { home: /path }` is taken as is. Not finding a JDK is not an
//! error here: the plan records it (`home: None`), `runner plan` shows it and
//! exec's preflight skips that runtime.
use std::path::{Path, PathBuf};

use crate::plan::JavaPlan;
use crate::spec::model::JavaSpec;

/// Where installed JDKs are looked for.
pub const JVM_ROOT: &str = "/usr/lib/jvm";

/// Resolves `spec` using `java_home` (the JAVA_HOME value) and the JDK folders under `jvm_root`.
pub fn resolve(
    spec: &JavaSpec,
    base_dir: &Path,
    java_home: Option<&Path>,
    jvm_root: &Path,
) -> JavaPlan {
    if let Some(home) = &spec.home {
        let home = base_dir.join(home);
        let version = release_version(&home);
        let found = home.join("bin/java").is_file();
        return JavaPlan {
            requested: home.display().to_string(),
            home: found.then_some(home),
            version,
        };
    }
    let wanted = spec.version.clone().unwrap_or_default();
    let mut candidates: Vec<PathBuf> = java_home.map(Path::to_path_buf).into_iter().collect();
    let mut installed: Vec<PathBuf> = std::fs::read_dir(jvm_root)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    installed.sort();
    candidates.extend(installed);
    for home in candidates {
        if let Some(version) = release_version(&home)
            && major(&version) == wanted
            && home.join("bin/java").is_file()
        {
            return JavaPlan {
                requested: wanted,
                home: Some(home),
                version: Some(version),
            };
        }
    }
    JavaPlan {
        requested: wanted,
        home: None,
        version: None,
    }
}

/// `JAVA_VERSION` from `<home>/release`, without quotes.
pub fn release_version(home: &Path) -> Option<String> {
    let text = std::fs::read_to_string(home.join("release")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))
        .map(|v| v.trim().trim_matches('"').to_owned())
}

/// The feature release of a version string: `25.0.1` -> `25`, `1.8.0_402` -> `8`.
pub fn major(version: &str) -> String {
    let mut parts = version.split(['.', '_', '-', '+']);
    match parts.next() {
        Some("1") => parts.next().unwrap_or("1").to_owned(),
        Some(first) => first.to_owned(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_jdk(root: &Path, name: &str, version: &str) -> PathBuf {
        let home = root.join(name);
        std::fs::create_dir_all(home.join("bin")).unwrap();
        std::fs::write(home.join("bin/java"), "").unwrap();
        std::fs::write(
            home.join("release"),
            format!("IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"{version}\"\n"),
        )
        .unwrap();
        home
    }

    #[test]
    fn finds_the_matching_jdk_and_prefers_java_home() {
        let root = tempfile::tempdir().unwrap();
        let j17 = fake_jdk(root.path(), "jdk-17", "17.0.9");
        let j25 = fake_jdk(root.path(), "temurin-25", "25.0.1");
        let spec = JavaSpec {
            version: Some("25".into()),
            home: None,
            ..JavaSpec::default()
        };
        let plan = resolve(&spec, root.path(), Some(&j17), root.path());
        assert_eq!(plan.home.as_deref(), Some(j25.as_path()));
        assert_eq!(plan.version.as_deref(), Some("25.0.1"));
        let spec17 = JavaSpec {
            version: Some("17".into()),
            home: None,
            ..JavaSpec::default()
        };
        assert_eq!(
            resolve(&spec17, root.path(), Some(&j17), root.path()).home,
            Some(j17)
        );
        let spec21 = JavaSpec {
            version: Some("21".into()),
            home: None,
            ..JavaSpec::default()
        };
        assert_eq!(resolve(&spec21, root.path(), None, root.path()).home, None);
    }

    #[test]
    fn reads_old_and_new_version_schemes() {
        assert_eq!(major("1.8.0_402"), "8");
        assert_eq!(major("25"), "25");
        assert_eq!(major("21.0.2+13"), "21");
    }
}
