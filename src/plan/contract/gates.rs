//! The cell gates' thresholds, defaults applied (the spec's `gates:`
//! section), and the other per-run checks' settings: cold starts per
//! runtime and the log cap.
use std::time::Duration;

use serde::Serialize;

use crate::spec::keys::gates::{GatesSpec, Switch, Threshold};
use crate::spec::model::Spec;

/// Error rate above which a cell is `suspect` (0.1%).
pub const DEFAULT_ERRORS_SUSPECT: f64 = 0.001;
/// Error rate above which a cell is `failed` (5%).
pub const DEFAULT_ERRORS_FAILED: f64 = 0.05;
/// Share of the window the generator may wait for a CPU (10%).
pub const DEFAULT_GENERATOR_WAIT: f64 = 0.10;
/// Closed loop: relative gap allowed by Little's law (10%).
pub const DEFAULT_LITTLES_LAW: f64 = 0.10;
/// The Nagle + delayed-ACK band: Linux's delayed ACK is 40 ms, give or take a tick.
pub const DEFAULT_FLOOR_FROM: Duration = Duration::from_millis(36);
pub const DEFAULT_FLOOR_TO: Duration = Duration::from_millis(48);
/// The service counts as idle (waiting, not working) below this many CPUs
/// used during the window: a service answering at ~40 ms per connection
/// with Nagle's delay does almost nothing per second.
pub const DEFAULT_FLOOR_SERVICE_CPUS: f64 = 0.25;
/// Cold starts measured per runtime before its cells (the spec's default).
pub const DEFAULT_STARTUP_REPEATS: u32 = crate::spec::model::DEFAULT_STARTUP_REPEATS;
/// Bytes kept of the head and of the tail of each service or training log.
pub const DEFAULT_LOG_CAP: u64 = 16 << 20;

/// Thresholds of the gates; `None` = the gate is off.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gates {
    pub errors_suspect: Option<f64>,
    pub errors_failed: Option<f64>,
    pub generator_wait: Option<f64>,
    pub latency_floor: Option<LatencyFloor>,
    pub littles_law: Option<f64>,
}

/// A p50 or a dense latency band inside `from..=to` while the service's CPU
/// per request stays below `max_service_cpus` of the p50.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LatencyFloor {
    pub from: Duration,
    pub to: Duration,
    pub max_service_cpus: f64,
}

impl Default for Gates {
    fn default() -> Self {
        Gates::from_spec(&GatesSpec::default())
    }
}

fn threshold(t: Option<Threshold>, default: f64) -> Option<f64> {
    match t {
        None => Some(default),
        Some(Threshold::Off) => None,
        Some(Threshold::At(v)) => Some(v),
    }
}

impl Gates {
    pub fn from_spec(spec: &GatesSpec) -> Gates {
        let errors = spec.errors.clone().unwrap_or_default();
        let latency_floor = match &spec.latency_floor {
            Some(Switch::Off) => None,
            Some(Switch::On(f)) => Some(LatencyFloor {
                from: f.from.map_or(DEFAULT_FLOOR_FROM, |d| d.0),
                to: f.to.map_or(DEFAULT_FLOOR_TO, |d| d.0),
                max_service_cpus: f.max_service_cpus.unwrap_or(DEFAULT_FLOOR_SERVICE_CPUS),
            }),
            None => Some(LatencyFloor {
                from: DEFAULT_FLOOR_FROM,
                to: DEFAULT_FLOOR_TO,
                max_service_cpus: DEFAULT_FLOOR_SERVICE_CPUS,
            }),
        };
        Gates {
            errors_suspect: threshold(errors.suspect, DEFAULT_ERRORS_SUSPECT),
            errors_failed: threshold(errors.failed, DEFAULT_ERRORS_FAILED),
            generator_wait: threshold(spec.generator_wait, DEFAULT_GENERATOR_WAIT),
            latency_floor,
            littles_law: threshold(spec.littles_law, DEFAULT_LITTLES_LAW),
        }
    }

    /// The spec's gates, defaults for what it leaves out.
    pub fn of(spec: &Spec) -> Gates {
        spec.gates
            .as_ref()
            .map_or_else(Gates::default, Gates::from_spec)
    }
}

/// The log cap of `spec` in bytes (head and tail each).
pub fn log_cap(spec: &Spec) -> u64 {
    spec.logs.map_or(DEFAULT_LOG_CAP, |l| l.cap.0)
}

/// Cold starts measured for a runtime: its own `startup`, else the spec's, else 3.
pub fn startup_repeats(spec: &Spec, runtime: &crate::spec::RuntimeSpec) -> u32 {
    runtime
        .startup
        .or(spec.startup)
        .map_or(DEFAULT_STARTUP_REPEATS, |s| s.repeats)
}

/// The first requests timed on each fresh start of a runtime
/// (`startup.first_requests`): its own `startup`, else the spec's, else none.
pub fn first_requests(spec: &Spec, runtime: &crate::spec::RuntimeSpec) -> u32 {
    runtime
        .startup
        .or(spec.startup)
        .map_or(0, |s| s.first_requests)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::keys::gates::{ErrorGateSpec, LatencyFloorSpec};
    use crate::spec::values::HumanDuration;

    #[test]
    fn first_requests_come_from_the_runtimes_startup_else_the_spec_wide_one() {
        let text = "experiment: { name: g }\n\
             runtimes: { a: { start: ./a, startup: { first_requests: 10 } }, b: { start: ./b } }\n\
             workload: { path: /x }\nload: { connections: 1 }\nmeasure: { duration: 1s }\n\
             startup: { first_requests: 100 }\n";
        let loaded = crate::spec::from_text(text.into(), std::path::Path::new("g.yaml"))
            .unwrap_or_else(|e| panic!("{e}"));
        let spec = &loaded.spec;
        assert_eq!(first_requests(spec, &spec.runtimes["a"]), 10);
        assert_eq!(first_requests(spec, &spec.runtimes["b"]), 100);
        // `startup` without `repeats` keeps the default cold starts.
        assert_eq!(
            startup_repeats(spec, &spec.runtimes["b"]),
            DEFAULT_STARTUP_REPEATS
        );
    }

    #[test]
    fn a_runtimes_startup_wins_over_the_spec_wide_one_and_logs_cap_is_read() {
        let text = "experiment: { name: g }\n\
             runtimes: { a: { start: ./a, startup: { repeats: 5 } }, b: { start: ./b } }\n\
             workload: { path: /x }\nload: { connections: 1 }\nmeasure: { duration: 1s }\n\
             startup: { repeats: 1 }\nlogs: { cap: 2MiB }\n";
        let loaded = crate::spec::from_text(text.into(), std::path::Path::new("g.yaml"))
            .unwrap_or_else(|e| panic!("{e}"));
        let spec = &loaded.spec;
        assert_eq!(startup_repeats(spec, &spec.runtimes["a"]), 5);
        assert_eq!(startup_repeats(spec, &spec.runtimes["b"]), 1);
        assert_eq!(
            first_requests(spec, &spec.runtimes["a"]),
            0,
            "off unless asked"
        );
        assert_eq!(log_cap(spec), 2 << 20);
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let g = Gates::default();
        assert_eq!(g.errors_suspect, Some(0.001));
        assert_eq!(g.errors_failed, Some(0.05));
        assert_eq!(g.generator_wait, Some(0.10));
        assert_eq!(g.littles_law, Some(0.10));
        let floor = g.latency_floor.unwrap();
        assert_eq!(
            (floor.from, floor.to),
            (Duration::from_millis(36), Duration::from_millis(48))
        );
    }

    #[test]
    fn off_turns_a_gate_off_and_values_replace_defaults() {
        let g = Gates::from_spec(&GatesSpec {
            errors: Some(ErrorGateSpec {
                suspect: Some(Threshold::Off),
                failed: Some(Threshold::At(0.2)),
            }),
            generator_wait: Some(Threshold::Off),
            latency_floor: Some(Switch::On(LatencyFloorSpec {
                to: Some(HumanDuration(Duration::from_millis(60))),
                ..Default::default()
            })),
            littles_law: Some(Threshold::At(0.3)),
        });
        assert_eq!(g.errors_suspect, None);
        assert_eq!(g.errors_failed, Some(0.2));
        assert_eq!(g.generator_wait, None);
        assert_eq!(g.littles_law, Some(0.3));
        let floor = g.latency_floor.unwrap();
        assert_eq!(floor.from, DEFAULT_FLOOR_FROM);
        assert_eq!(floor.to, Duration::from_millis(60));
        let off = Gates::from_spec(&GatesSpec {
            latency_floor: Some(Switch::Off),
            ..Default::default()
        });
        assert_eq!(off.latency_floor, None);
    }
}
