//! configurations.csv's record of how a runtime's services were contained
//! and what they saw of their limits, one entry per distinct start: what the
//! kernel holds for the service (its CPUs, its cgroup's quota and memory
//! limit), and what the runtime itself derived from them, as the service's
//! own /health reports it (`runtimeInfo` of runtimes/CONTRACT.md: the CPU
//! count, GOMAXPROCS or the JVM's processor count, its memory limit). Only
//! the service can say what its runtime derived; the runner asks it.
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use crate::cgroup::{Limits, Seen};
use crate::load::RequestSpec;
use crate::plan::{HealthCheck, RuntimePlan};
use crate::results::ConfigurationRow;
use crate::service::Service;

/// What one start of a service saw of its limits.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    pub kernel: Seen,
    /// `cpus=2 parallelism=2 (GOMAXPROCS) memoryLimit=off`, from /health;
    /// `None` when the service reports no `runtimeInfo`.
    pub reported: Option<String>,
}

/// Reads what a healthy `service` of `rt` sees of its limits.
pub fn observe(service: &Service, rt: &RuntimePlan) -> Observed {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, rt.port));
    // Only an HTTP health answer can carry `runtimeInfo`.
    let reported = match &rt.health.check {
        HealthCheck::Http(path) => crate::load::probe(
            addr,
            &RequestSpec::get(path.clone()),
            Duration::from_secs(2),
        )
        .ok()
        .and_then(|(_, body)| runtime_info(&body)),
        HealthCheck::Tcp | HealthCheck::Command(_) => None,
    };
    Observed {
        kernel: service.seen(),
        reported,
    }
}

/// The `runtimeInfo` fields of a /health answer that say what the runtime
/// derived from its limits, as `key=value` words.
pub fn runtime_info(body: &[u8]) -> Option<String> {
    let json: serde_json::Value = serde_json::from_slice(body).ok()?;
    let info = json.get("runtimeInfo")?.as_object()?;
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut words = Vec::new();
    for key in ["cpus", "parallelism", "memoryLimit"] {
        if let Some(v) = info.get(key) {
            let mut word = format!("{key}={}", text(v));
            if key == "parallelism"
                && let Some(source) = info.get("parallelismSource")
            {
                word.push_str(&format!(" ({})", text(source)));
            }
            words.push(word);
        }
    }
    (!words.is_empty()).then(|| words.join(" "))
}

/// Adds this start's mode, limits and what its service saw to `row`.
pub fn record(row: &mut ConfigurationRow, limits: &Limits, observed: Option<&Observed>) {
    let Some(observed) = observed else {
        return;
    };
    add_distinct(&mut row.cgroup, observed.kernel.mode.as_str());
    add_distinct(&mut row.limits, &limits.describe());
    add_distinct(&mut row.limits_seen, &observed.kernel.describe());
    if let Some(reported) = &observed.reported {
        add_distinct(&mut row.runtime_reported, reported);
    }
}

/// Appends `value` to a ` | `-joined column unless it is already there.
fn add_distinct(column: &mut String, value: &str) {
    if column.split(" | ").any(|v| v == value) {
        return;
    }
    if !column.is_empty() {
        column.push_str(" | ");
    }
    column.push_str(value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cgroup::Mode;

    #[test]
    fn each_distinct_start_is_listed_once() {
        let mut row = ConfigurationRow::default();
        let seen = |q: f64| Observed {
            kernel: Seen {
                mode: Mode::Hybrid,
                cpus_allowed: Some("0-1".into()),
                cpu_quota: Some(q),
                memory_limit: None,
            },
            reported: Some(format!("cpus=2 parallelism={}", q.ceil())),
        };
        let limits = |c: f64| Limits {
            cpus: Some(c),
            memory_bytes: None,
        };
        record(&mut row, &limits(1.0), Some(&seen(1.0)));
        record(&mut row, &limits(2.0), Some(&seen(2.0)));
        record(&mut row, &limits(1.0), Some(&seen(1.0)));
        record(&mut row, &limits(1.0), None);
        assert_eq!(row.cgroup, "hybrid");
        assert_eq!(row.limits, "cpus=1 | cpus=2");
        assert_eq!(
            row.limits_seen,
            "cpus 0-1 (2), quota 1 CPU, no memory limit | cpus 0-1 (2), quota 2 CPU, no memory limit"
        );
        assert_eq!(
            row.runtime_reported,
            "cpus=2 parallelism=1 | cpus=2 parallelism=2"
        );
    }

    #[test]
    fn runtime_info_is_read_from_the_contracts_health_answer() {
        let body = br#"{"status":"UP","runtimeInfo":{"cpus":2,"parallelism":1,"parallelismSource":"GOMAXPROCS","memoryLimit":"off","serverModel":"goroutine per connection"}}"#;
        assert_eq!(
            runtime_info(body).as_deref(),
            Some("cpus=2 parallelism=1 (GOMAXPROCS) memoryLimit=off")
        );
        assert_eq!(runtime_info(br#"{"status":"UP"}"#), None);
        assert_eq!(runtime_info(b"not json"), None);
    }
}
