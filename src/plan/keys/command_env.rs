//! Which of the caller's environment variables a runtime's commands get:
//! the documented list ([`PASSED`]), the names a runtime asks for
//! (`pass_env:`), and which names look secret (masked where shown). Pure,
//! so `runner plan` shows exactly what `process::env::command_env` (the one
//! function that makes a command's environment, at spawn) passes.
use std::collections::BTreeMap;
use std::ffi::OsString;

/// What is passed from the caller's environment when set. Each is where a
/// tool finds itself, its caches or the network, not what it builds:
///
/// - `PATH`, `HOME`, `USER`, `LOGNAME`, `TMPDIR`, `TZ`, the locale (`LANG`,
///   `LANGUAGE`, and every `LC_*`, see [`passed`]): a shell and its tools
///   work as in the caller's session;
/// - the proxies, both cases (`http_proxy`, `https_proxy`, `no_proxy`,
///   `all_proxy`) and the trust store a proxy may need (`SSL_CERT_FILE`,
///   `SSL_CERT_DIR`): a build that downloads reaches the network the same way;
/// - the toolchains' homes and caches: `CARGO_HOME`, `RUSTUP_HOME`,
///   `GOPATH`, `GOCACHE`, `GOMODCACHE`, `GOPROXY`, `GOSUMDB`, `GOPRIVATE`,
///   `GONOPROXY`, `GONOSUMDB`, `npm_config_cache`, `npm_config_registry`
///   (and their upper-case forms), `XDG_CACHE_HOME`, and `JAVA_HOME` (a
///   runtime whose JDK runner resolved gets that JDK's instead).
///
/// Not passed, because they change what is built or how it runs while the
/// spec does not say so: `CARGO_TARGET_DIR`, `RUSTFLAGS`, `CARGO_BUILD_*`,
/// `RUSTUP_TOOLCHAIN`, `GOFLAGS`, `GOTOOLCHAIN`, `GOROOT`, `GOAMD64`,
/// `JAVA_TOOL_OPTIONS`, `_JAVA_OPTIONS`, `JDK_JAVA_OPTIONS`, `MAVEN_OPTS`,
/// `NODE_OPTIONS`, and anything else. `TERM` is not passed either: the
/// commands' output goes to log files, not to a terminal. A runtime that
/// needs one of them names it in `pass_env:` or sets it in `env:`.
pub const PASSED: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "TMPDIR",
    "TZ",
    "LANG",
    "LANGUAGE",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "GOPATH",
    "GOCACHE",
    "GOMODCACHE",
    "GOPROXY",
    "GOSUMDB",
    "GOPRIVATE",
    "GONOPROXY",
    "GONOSUMDB",
    "npm_config_cache",
    "npm_config_registry",
    "NPM_CONFIG_CACHE",
    "NPM_CONFIG_REGISTRY",
    "XDG_CACHE_HOME",
    "JAVA_HOME",
];

/// Whether `name` is passed from the caller without being asked for: one
/// of [`PASSED`], or a locale category (`LC_ALL`, `LC_CTYPE`, ...).
pub fn passed(name: &str) -> bool {
    PASSED.contains(&name) || name.starts_with("LC_")
}

/// The caller's variables a command gets: those [`passed`] or named in
/// `pass_env`, when set. A variable that is not valid UTF-8 is left out.
pub fn caller_passed(
    caller: impl IntoIterator<Item = (OsString, OsString)>,
    pass_env: &[String],
) -> BTreeMap<String, String> {
    caller
        .into_iter()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| passed(k) || pass_env.iter().any(|p| p == k))
        .collect()
}

/// Whether a variable's value is masked where it is shown (`runner plan`):
/// its name looks like it holds a secret.
pub fn looks_secret(name: &str) -> bool {
    const WORDS: &[&str] = &[
        "PASSWORD",
        "PASSWD",
        "SECRET",
        "TOKEN",
        "KEY",
        "CREDENTIAL",
        "AUTH",
        "PRIVATE",
        "SESSION",
        "COOKIE",
    ];
    let upper = name.to_ascii_uppercase();
    WORDS.iter().any(|w| upper.contains(w))
}

/// `NAME=value`, the value masked when the name [`looks_secret`].
pub fn shown(name: &str, value: &str) -> String {
    if looks_secret(name) {
        format!("{name}=(masked)")
    } else {
        format!("{name}={value}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs.iter().map(|(k, v)| (k.into(), v.into())).collect()
    }

    #[test]
    fn only_the_documented_names_and_the_asked_ones_pass() {
        let from = caller(&[
            ("PATH", "/bin"),
            ("LC_ALL", "C.UTF-8"),
            ("https_proxy", "http://proxy:3128"),
            ("CARGO_TARGET_DIR", "/elsewhere"),
            ("GOFLAGS", "-trimpath"),
            ("JAVA_TOOL_OPTIONS", "-Xmx1m"),
            ("TERM", "xterm"),
        ]);
        let env = caller_passed(from.clone(), &[]);
        let names: Vec<&str> = env.keys().map(String::as_str).collect();
        assert_eq!(names, ["LC_ALL", "PATH", "https_proxy"]);
        let env = caller_passed(from, &["GOFLAGS".to_string()]);
        assert_eq!(env["GOFLAGS"], "-trimpath");
        assert!(!env.contains_key("CARGO_TARGET_DIR"));
        assert!(!env.contains_key("JAVA_TOOL_OPTIONS"));
    }

    #[test]
    fn secret_looking_names_are_masked() {
        for name in [
            "PGPASSWORD",
            "API_TOKEN",
            "aws_secret_access_key",
            "GITHUB_AUTH",
        ] {
            assert!(looks_secret(name), "{name}");
            assert_eq!(shown(name, "hunter2"), format!("{name}=(masked)"));
        }
        for name in ["PATH", "PORT", "GOFLAGS", "RUNNER_SCRATCH"] {
            assert!(!looks_secret(name), "{name}");
        }
        assert_eq!(shown("PORT", "8080"), "PORT=8080");
    }
}
