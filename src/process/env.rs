//! The environment a runtime's commands run with (build, train, start,
//! readiness and version commands, a dependency's too): never the caller's
//! whole environment, but [`command_env`]: a short documented list passed
//! from the caller ([`PASSED`], listed in `plan::keys::command_env`
//! beside `runner plan`'s view of it), the names a runtime asks for
//! (`pass_env:`), and what the spec and runner set over them. Every spawn of a runtime's
//! or a dependency's command clears the inherited environment and applies
//! this map (docs/spec.md, "The environment of a runtime's commands").
use std::collections::BTreeMap;

use crate::plan::RuntimePlan;
pub use crate::plan::keys::command_env::{PASSED, caller_passed, looks_secret, passed, shown};

/// The environment of one command: the caller's variables that are
/// [`passed`] or named in `pass_env` (when set), then `set` over them (the
/// spec's `env`, runner's own: `PORT`, `RUNNER_SCRATCH`, the TLS files, the
/// JDK on `PATH`). The one place a command's environment is made; the
/// spawns clear what they inherit and apply it whole.
pub fn command_env(
    set: &BTreeMap<String, String>,
    pass_env: &[String],
) -> BTreeMap<String, String> {
    let mut env = caller_passed(std::env::vars_os(), pass_env);
    env.extend(set.iter().map(|(k, v)| (k.clone(), v.clone())));
    env
}

/// The runtime's declared env, plus `JAVA_HOME` and a `PATH` starting with
/// the JDK's `bin` when a JDK was resolved (so `mvn` and `java` use the JDK
/// the spec asked for), over the caller's passed variables and its
/// `pass_env` ([`command_env`]). Declared values win over these additions.
pub fn runtime_env(rt: &RuntimePlan) -> BTreeMap<String, String> {
    let mut set = BTreeMap::new();
    if let Some(home) = rt.java.as_ref().and_then(|j| j.home.as_ref()) {
        set.insert("JAVA_HOME".to_string(), home.display().to_string());
        let path = std::env::var("PATH").unwrap_or_default();
        set.insert(
            "PATH".to_string(),
            format!("{}:{path}", home.join("bin").display()),
        );
    }
    set.extend(rt.env.clone());
    command_env(&set, &rt.pass_env)
}
