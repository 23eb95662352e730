//! configurations.csv's record of how a runtime's services were contained
//! and what they saw of their limits, one entry per distinct start.
use crate::cgroup::{Limits, Seen};
use crate::results::ConfigurationRow;

/// Adds this start's mode, limits and what its service saw to `row`.
pub fn record(row: &mut ConfigurationRow, limits: &Limits, seen: Option<&Seen>) {
    let Some(seen) = seen else {
        return;
    };
    add_distinct(&mut row.cgroup, seen.mode.as_str());
    add_distinct(&mut row.limits, &limits.describe());
    add_distinct(&mut row.limits_seen, &seen.describe());
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
        let seen = |q: f64| Seen {
            mode: Mode::Hybrid,
            cpus_allowed: Some("0-1".into()),
            cpu_quota: Some(q),
            memory_limit: None,
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
    }
}
