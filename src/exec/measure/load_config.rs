//! Plan types -> load generator configuration.
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::Bytes;

use crate::load::Transport;
use crate::load::http::expect::RequestCheck;
use crate::load::{Arrival, LoadConfig, RequestSpec, StopCondition};
use crate::plan::{Cell, LoadMode, Measure, ProtocolPlan, RequestPlan};

/// Where a cell's load goes: the service's address, and the run's CA
/// certificate (`tls/ca.pem` in the run directory), which a TLS cell
/// trusts unless its spec names another.
#[derive(Debug, Clone)]
pub struct Aim {
    pub addr: SocketAddr,
    pub run_ca: PathBuf,
}

impl Aim {
    /// The load of a cell of `ctx`'s run against `addr`.
    pub fn of(ctx: &crate::exec::measure::context::CellContext, addr: SocketAddr) -> Aim {
        Aim {
            addr,
            run_ca: ctx.run.file(crate::results::TLS_CA_FILE),
        }
    }
}

/// What `planned` asks of the generator. The server name is left to the
/// target's IP address: the run's certificate names 127.0.0.1, ::1 and a
/// service host's address.
pub fn transport_of(planned: &ProtocolPlan, run_ca: &Path) -> Transport {
    use crate::load::{Reuse as Connections, Trust as Accept};
    use crate::plan::{Reuse, Trust};
    let protocol = planned.protocol;
    let trust = planned.protocol.uses_tls().then(|| match &planned.trust {
        Trust::RunCa => Accept::CaFile(run_ca.to_path_buf()),
        Trust::CaFile(file) => Accept::CaFile(PathBuf::from(file)),
        Trust::Unverified => Accept::Insecure,
    });
    Transport {
        protocol,
        trust,
        server_name: None,
        reuse: match planned.reuse {
            Reuse::KeepAlive => Connections::KeepAlive,
            Reuse::New { resumption } => Connections::NewConnection { resumption },
        },
        streams: planned.streams.max(1) as usize,
    }
}

/// What `runtime`'s loads outside a cell speak (its training, `runner
/// verify`'s requests): what its first cell speaks, trusting `run_ca`.
pub fn first_cell_transport(plan: &crate::plan::Plan, runtime: &str, run_ca: &Path) -> Transport {
    let first = plan.cells.iter().find(|c| c.runtime == runtime);
    let planned = first.map(|c| c.load.transport.clone()).unwrap_or_default();
    transport_of(&planned, run_ca)
}

pub fn request_spec(r: &RequestPlan) -> RequestSpec {
    RequestSpec {
        method: r.method.clone(),
        path: r.path.clone(),
        headers: r.headers.clone(),
        body: r.body.as_ref().map(|b| Bytes::from(b.clone())),
        expect_status: r.expect_status,
        weight: r.weight,
        check: None,
    }
}

pub fn arrival(mode: &LoadMode) -> Arrival {
    match *mode {
        LoadMode::Closed { connections } => Arrival::Closed {
            connections: connections as usize,
        },
        LoadMode::Open { rate, connections } => Arrival::Open {
            rate,
            connections: connections as usize,
            ramp: None,
        },
        // A search cell's warmup runs at its first rate; its steps set their own.
        LoadMode::Search(s) => Arrival::Open {
            rate: s.from,
            connections: s.connections as usize,
            ramp: None,
        },
    }
}

/// The measured window of `cell` (its warmup is run separately, see `cell`).
pub fn measure_config(cell: &Cell, aim: &Aim, cpus: Option<Vec<usize>>) -> LoadConfig {
    let target = aim.addr;
    LoadConfig {
        target,
        host_header: target.to_string(),
        requests: cell.requests.iter().map(request_spec).collect(),
        arrival: arrival(&cell.load.mode),
        stop: match cell.measure {
            Measure::Duration(d) => StopCondition::Duration(d),
            Measure::Requests(n) => StopCondition::Requests(n),
        },
        warmup: Duration::ZERO,
        timeout: cell.load.timeout,
        threads: cell.load.threads.max(1) as usize,
        cpu_affinity: cpus,
        mix_seed: cell.load.seed,
        connect_rate: cell.load.connect_rate,
        connection_ramp: cell.load.ramp,
        transport: transport_of(&cell.load.transport, &aim.run_ca),
    }
}

/// `cell`'s load shape applied for `duration`, results discarded
/// (cell warmup, service warmup).
pub fn warmup_config(
    cell: &Cell,
    aim: &Aim,
    cpus: Option<Vec<usize>>,
    duration: Duration,
) -> LoadConfig {
    LoadConfig {
        stop: StopCondition::Duration(duration),
        // The connection ramp comes after the warmup, right before the window.
        connection_ramp: Duration::ZERO,
        ..measure_config(cell, aim, cpus)
    }
}

/// `config` (a warmup of `cell`) checking a sample of the answers to each
/// request that declares more than a status in `expect` (see
/// [`crate::load::http::capture`]). The measured window never does: its
/// requests carry no checks, so its loop reads no body.
pub fn checked(cell: &Cell, mut config: LoadConfig) -> LoadConfig {
    for (spec, plan) in config.requests.iter_mut().zip(&cell.requests) {
        if !plan.expect.is_empty() {
            spec.check = Some(RequestCheck {
                name: plan.name.clone(),
                expect: plan.expect.clone(),
            });
        }
    }
    config
}

/// `cell`'s load shape applied until `count` requests were sent, results
/// discarded (`warmup: { cell: { requests: N } }`). No connection ramp: the
/// ramp belongs right before the window.
pub fn warmup_requests_config(
    cell: &Cell,
    aim: &Aim,
    cpus: Option<Vec<usize>>,
    count: u64,
) -> LoadConfig {
    LoadConfig {
        stop: StopCondition::Requests(count),
        connection_ramp: Duration::ZERO,
        ..measure_config(cell, aim, cpus)
    }
}

/// The expected wall time of a cell (warmup + ramp + measurement), when known.
pub fn expected(cell: &Cell) -> Option<Duration> {
    match cell.measure {
        Measure::Duration(d) => Some(cell.warmup.longest() + cell.load.ramp + d),
        Measure::Requests(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::LoadPlan;
    use crate::spec::values::AxisValue;

    fn aim(addr: &str) -> Aim {
        Aim {
            addr: addr.parse().unwrap(),
            run_ca: PathBuf::from("/run/tls/ca.pem"),
        }
    }

    #[test]
    fn a_planned_transport_reaches_the_generator_trusting_the_run_ca() {
        use crate::plan::{Protocol, ProtocolPlan, Reuse, Trust};
        let planned = ProtocolPlan {
            protocol: Protocol::H2,
            streams: 4,
            reuse: Reuse::KeepAlive,
            trust: Trust::RunCa,
        };
        let t = transport_of(&planned, Path::new("/run/tls/ca.pem"));
        assert_eq!(t.protocol, crate::load::Protocol::H2);
        assert_eq!(t.streams, 4);
        assert_eq!(
            t.trust,
            Some(crate::load::Trust::CaFile("/run/tls/ca.pem".into()))
        );
        let new = ProtocolPlan {
            protocol: Protocol::Https,
            reuse: Reuse::New { resumption: false },
            trust: Trust::Unverified,
            ..planned
        };
        let t = transport_of(&new, Path::new("/run/tls/ca.pem"));
        assert_eq!(
            t.reuse,
            crate::load::Reuse::NewConnection { resumption: false }
        );
        assert_eq!(t.trust, Some(crate::load::Trust::Insecure));
        // Plain HTTP/1.1 is the generator's default: the path of old.
        assert!(transport_of(&ProtocolPlan::default(), Path::new("x")).is_plain());
    }

    fn cell(mode: LoadMode, measure: Measure) -> Cell {
        Cell {
            id: "rt/payload=7/r1".into(),
            config_id: "rt/payload=7".into(),
            runtime: "rt".into(),
            axes: vec![("payload".into(), AxisValue::Int(7))],
            repeat: 1,
            requests: vec![RequestPlan {
                name: "post".into(),
                method: "POST".into(),
                path: "/echo".into(),
                headers: vec![("X-A".into(), "1".into())],
                body: Some("hi".into()),
                expect_status: 201,
                expect: Default::default(),
                weight: None,
            }],
            load: LoadPlan {
                mode,
                timeout: Duration::from_secs(3),
                threads: 0,
                seed: 5,
                connect_rate: 500.0,
                ramp: Duration::ZERO,
                transport: Default::default(),
            },
            warmup: crate::plan::CellWarmup::Fixed {
                duration: Duration::from_secs(2),
            },
            measure,
            limits: Default::default(),
            derived_rate: None,
            profiled: false,
            variant: None,
        }
    }

    #[test]
    fn closed_duration_cell_maps_to_a_measured_window_without_warmup() {
        let c = cell(
            LoadMode::Closed { connections: 12 },
            Measure::Duration(Duration::from_secs(5)),
        );
        let target = aim("127.0.0.1:8080");
        let cfg = measure_config(&c, &target, Some(vec![1]));
        assert_eq!(cfg.arrival, Arrival::Closed { connections: 12 });
        assert_eq!(cfg.stop, StopCondition::Duration(Duration::from_secs(5)));
        assert_eq!(
            cfg.warmup,
            Duration::ZERO,
            "the cell warmup is a separate run"
        );
        assert_eq!(cfg.threads, 1, "at least one generator thread");
        assert_eq!(cfg.cpu_affinity, Some(vec![1]));
        assert_eq!(cfg.host_header, "127.0.0.1:8080");
        assert_eq!(cfg.mix_seed, 5, "the seed of load.seed");
        let r = &cfg.requests[0];
        assert_eq!(
            (r.method.as_str(), r.path.as_str(), r.expect_status),
            ("POST", "/echo", 201)
        );
        assert_eq!(r.body.as_deref(), Some(&b"hi"[..]));
        assert_eq!(expected(&c), Some(Duration::from_secs(7)));
        let warm = warmup_config(&c, &target, None, Duration::from_secs(2));
        assert_eq!(warm.stop, StopCondition::Duration(Duration::from_secs(2)));
    }

    #[test]
    fn open_request_count_cell() {
        let c = cell(
            LoadMode::Open {
                rate: 500.0,
                connections: 8,
            },
            Measure::Requests(1000),
        );
        let cfg = measure_config(&c, &aim("127.0.0.1:1"), None);
        assert_eq!(
            cfg.arrival,
            Arrival::Open {
                rate: 500.0,
                connections: 8,
                ramp: None
            }
        );
        assert_eq!(cfg.stop, StopCondition::Requests(1000));
        assert_eq!(expected(&c), None);
    }

    /// Only a warmup checks answers, and only of the requests that declare
    /// more than a status: the window's loop never reads a body.
    #[test]
    fn only_a_checked_warmup_carries_the_checks() {
        let mut c = cell(
            LoadMode::Closed { connections: 2 },
            Measure::Duration(Duration::from_secs(5)),
        );
        let mut plain = c.requests[0].clone();
        plain.name = "plain".into();
        c.requests[0].expect.min_bytes = Some(10);
        c.requests.push(plain);
        let target = aim("127.0.0.1:8080");
        let warm = checked(&c, warmup_config(&c, &target, None, Duration::from_secs(2)));
        let check = warm.requests[0].check.as_ref().unwrap();
        assert_eq!(
            (check.name.as_str(), check.expect.min_bytes),
            ("post", Some(10))
        );
        assert_eq!(warm.requests[1].check, None);
        let window = measure_config(&c, &target, None);
        assert!(window.requests.iter().all(|r| r.check.is_none()));
    }
}
