//! `health:` -> [`HealthPlan`], one rendering for runtimes and dependencies:
//! the check written (`path`, `tcp`, `command`, each a template) or the
//! caller's default, with the timeout and interval defaults.
use std::time::Duration;

use crate::plan::templating::render::Renderer;
use crate::plan::templating::template::Vars;
use crate::plan::{HealthCheck, HealthPlan};
use crate::spec::model::HealthSpec;

/// Defaults of `health.timeout` and `health.interval` (docs/spec.md).
pub const DEFAULT_HEALTH_TIMEOUT: Duration = Duration::from_secs(60);
pub const DEFAULT_HEALTH_INTERVAL: Duration = Duration::from_millis(100);

/// `spec` rendered with `vars`; `at` turns a key into its field path, and
/// `default` is the check when none is written.
pub fn plan_health<'s>(
    r: &mut Renderer<'_, 's>,
    spec: Option<&'s HealthSpec>,
    default: HealthCheck,
    vars: &Vars,
    at: &dyn Fn(&str) -> String,
) -> HealthPlan {
    let check = match spec {
        Some(HealthSpec {
            path: Some(path), ..
        }) => HealthCheck::Http(r.one(&at("health.path"), path, vars)),
        Some(HealthSpec {
            command: Some(command),
            ..
        }) => HealthCheck::Command(r.one(&at("health.command"), command, vars)),
        Some(HealthSpec {
            tcp: Some(true), ..
        }) => HealthCheck::Tcp,
        _ => default,
    };
    HealthPlan {
        check,
        timeout: spec
            .and_then(|h| h.timeout)
            .map_or(DEFAULT_HEALTH_TIMEOUT, |d| d.0),
        interval: spec
            .and_then(|h| h.interval)
            .map_or(DEFAULT_HEALTH_INTERVAL, |d| d.0),
    }
}
