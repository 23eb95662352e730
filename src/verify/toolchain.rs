//! Is a runtime checkable on this host? A missing toolchain or JDK makes it
//! "skipped" (reported, and a failure of verify unless `--allow-skipped`),
//! not a build failure with a confusing `sh: go: not found` in a log. What
//! the build may produce (the start executable) is checked after the build,
//! as exec does: still missing then, it is the build's failure.
use std::path::Path;

use crate::plan::RuntimePlan;

/// Why `rt` cannot be checked here, or `None` when everything it needs is
/// present (the same check as exec's preflight).
pub fn missing_toolchain(rt: &RuntimePlan) -> Option<String> {
    let missing = crate::preflight::toolchain_problems(rt);
    (!missing.is_empty()).then(|| missing.join("; "))
}

/// Why the start of `rt` cannot run after its build (`log`; `cached`: it
/// was skipped as unchanged), or `None` (the same check as exec's).
pub fn missing_after_build(rt: &RuntimePlan, log: &Path, cached: bool) -> Option<String> {
    crate::preflight::build_output::check_built(rt, log, cached)
        .err()
        .map(|e| e.to_string())
}
