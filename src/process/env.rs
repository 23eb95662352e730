//! The environment a runtime's commands run with (build, train, start).
use std::collections::BTreeMap;

use crate::plan::RuntimePlan;

/// The runtime's declared env, plus `JAVA_HOME` and a `PATH` starting with
/// the JDK's `bin` when a JDK was resolved (so `mvn` and `java` use the JDK
/// the spec asked for). Declared values win over these additions.
pub fn runtime_env(rt: &RuntimePlan) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    if let Some(home) = rt.java.as_ref().and_then(|j| j.home.as_ref()) {
        env.insert("JAVA_HOME".to_string(), home.display().to_string());
        let path = std::env::var("PATH").unwrap_or_default();
        env.insert(
            "PATH".to_string(),
            format!("{}:{path}", home.join("bin").display()),
        );
    }
    env.extend(rt.env.clone());
    env
}
