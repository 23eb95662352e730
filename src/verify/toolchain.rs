//! Is a runtime checkable on this host? A missing toolchain or JDK makes it
//! "skipped" (reported, and a failure of verify unless `--allow-skipped`),
//! not a build failure with a confusing `sh: go: not found` in a log.
use crate::plan::RuntimePlan;

/// Why `rt` cannot be checked here, or `None` when everything it needs is
/// present (the same check as exec's preflight).
pub fn missing_toolchain(rt: &RuntimePlan) -> Option<String> {
    let missing = crate::preflight::toolchain_problems(rt);
    (!missing.is_empty()).then(|| missing.join("; "))
}
