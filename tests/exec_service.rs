//! The service lifecycle against real processes on 127.0.0.1.
mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::*;
use runner::plan::{HealthCheck, HealthPlan, StopPlan};
use runner::service::{
    HttpProbeError, PortInUse, PortMoment, Service, ServiceCommand, ServiceError, StopKind,
    http_status, port_is_free,
};

fn command(mode: &str, port: u16, pid_file: &std::path::Path) -> ServiceCommand {
    let mut env = BTreeMap::new();
    env.insert("PORT".into(), port.to_string());
    env.insert("MODE".into(), mode.into());
    env.insert("PID_FILE".into(), pid_file.display().to_string());
    env.insert("HELPER_CHILD".into(), "1".into());
    ServiceCommand {
        runtime: format!("py-{mode}"),
        dir: fixtures(),
        command: "python3 service.py".into(),
        env,
        port,
        cpus: None,
        limits: Default::default(),
        log_cap: 16 << 20,
        scratch: None,
        tls: None,
    }
}

fn health(timeout_ms: u64) -> HealthPlan {
    HealthPlan::http(
        "/health",
        Duration::from_millis(timeout_ms),
        Duration::from_millis(50),
    )
}

fn stop(grace_ms: u64) -> StopPlan {
    StopPlan {
        signal: libc::SIGTERM,
        signal_name: "TERM".into(),
        grace: Duration::from_millis(grace_ms),
    }
}

#[test]
fn starts_healthy_then_stops_the_whole_tree_gracefully() {
    let tmp = tempfile::tempdir().unwrap();
    let (port, pids) = (free_port(), tmp.path().join("pids"));
    let log = tmp.path().join("svc.log");
    let mut svc = Service::start(&command("ok", port, &pids), &log).unwrap();
    let startup = svc.wait_healthy(&health(10_000)).unwrap();
    assert!(startup > Duration::ZERO && startup < Duration::from_secs(10));
    assert!(wait_for(Duration::from_secs(2), || pids_in(&pids).len() == 2));
    let usage = runner::sample::session_usage(svc.sid());
    assert!(
        usage.processes >= 2 && usage.rss_bytes > 1_000_000,
        "{usage:?}"
    );
    let report = svc.stop(&stop(5_000)).unwrap();
    // python exits on TERM; its helper `sleep` child is killed by the group signal.
    assert_eq!(report.kind, StopKind::Graceful, "{report:?}");
    assert!(wait_all_gone(&pids_in(&pids), Duration::from_secs(1)).is_empty());
    assert!(port_is_free(port));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("=== runner: starting py-ok") && text.contains("listening on"),
        "{text}"
    );
}

#[test]
fn a_port_taken_by_another_program_is_refused_before_spawning() {
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let _other = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
    let pids = tmp.path().join("pids");
    let err = Service::start(&command("ok", port, &pids), &tmp.path().join("l"))
        .err()
        .expect("the start must be refused");
    assert!(
        matches!(
            err,
            ServiceError::PortInUse(PortInUse {
                moment: PortMoment::BeforeStart,
                ..
            })
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains(&format!(
            "port {port} is already in use before the service started"
        )),
        "{err}"
    );
    assert!(!pids.exists(), "nothing was spawned");
}

#[test]
fn a_service_ignoring_term_is_killed_after_the_grace_period() {
    let tmp = tempfile::tempdir().unwrap();
    let (port, pids) = (free_port(), tmp.path().join("pids"));
    let mut svc =
        Service::start(&command("ignore_term", port, &pids), &tmp.path().join("l")).unwrap();
    svc.wait_healthy(&health(10_000)).unwrap();
    let t = std::time::Instant::now();
    let report = svc.stop(&stop(300)).unwrap();
    assert_eq!(report.kind, StopKind::Killed);
    assert!(t.elapsed() >= Duration::from_millis(300));
    // The start shell got TERM; python ignored it and was SIGKILLed.
    assert!(report.exit_status.starts_with("signal"), "{report:?}");
    assert!(wait_all_gone(&pids_in(&pids), Duration::from_secs(1)).is_empty());
}

#[test]
fn exit_before_healthy_reports_status_and_log_tail() {
    let tmp = tempfile::tempdir().unwrap();
    let (port, pids) = (free_port(), tmp.path().join("pids"));
    let mut svc = Service::start(
        &command("exit_at_start", port, &pids),
        &tmp.path().join("l"),
    )
    .unwrap();
    let err = svc.wait_healthy(&health(10_000)).unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, ServiceError::ExitedBeforeHealthy { .. }),
        "{text}"
    );
    assert!(
        text.contains("exit code 7") && text.contains("failing at start on purpose"),
        "{text}"
    );
    assert_eq!(svc.stop(&stop(1000)).unwrap().kind, StopKind::Died);
}

#[test]
fn never_healthy_times_out_and_dropping_kills_the_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let (port, pids) = (free_port(), tmp.path().join("pids"));
    let mut svc = Service::start(
        &command("never_healthy", port, &pids),
        &tmp.path().join("l"),
    )
    .unwrap();
    let err = svc.wait_healthy(&health(3000)).unwrap_err();
    assert!(matches!(err, ServiceError::HealthTimeout { .. }), "{err}");
    assert!(err.to_string().contains("status 503"), "{err}");
    drop(svc);
    assert!(wait_all_gone(&pids_in(&pids), Duration::from_secs(2)).is_empty());
    assert!(port_is_free(port));
}

/// A started fixture service in `mode` with `env` added, and its folder.
fn started(mode: &str, env: &[(&str, &str)]) -> (tempfile::TempDir, Service, u16) {
    let tmp = tempfile::tempdir().unwrap();
    let (port, pids) = (free_port(), tmp.path().join("pids"));
    let mut cmd = command(mode, port, &pids);
    for (k, v) in env {
        cmd.env.insert((*k).into(), (*v).into());
    }
    let svc = Service::start(&cmd, &tmp.path().join("l")).unwrap();
    (tmp, svc, port)
}

/// One GET /work/10 to `svc`.
fn one_work_request(svc: &Service, timeout: Duration) -> Result<u16, HttpProbeError> {
    http_status(svc.addr(), "GET", "/work/10", &[], None, (timeout, false))
}

/// Between cells, a service that answers its health check late (here 600 ms,
/// three times the shortest try) is slow, not hung: a request may take the
/// whole window. Tries of 200 ms each would be abandoned one after another
/// and the service declared hung (and its cell failed) while it was draining
/// the backlog a cell left it, as a cold JVM did under a CI run's open loop.
#[test]
fn a_late_health_answer_between_cells_is_not_a_hang() {
    let (_tmp, mut svc, _) = started("ok", &[("SLOW_HEALTH_MS", "600")]);
    svc.wait_healthy(&health(10_000)).unwrap();
    assert_eq!(one_work_request(&svc, Duration::from_secs(5)).unwrap(), 200);
    let started = std::time::Instant::now();
    svc.still_healthy(&health(10_000), Duration::from_secs(10))
        .unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(600),
        "the health answer came early: {:?}",
        started.elapsed()
    );
}

/// A service that answers nothing is still found hung within the window.
#[test]
fn a_service_answering_nothing_between_cells_is_hung() {
    let (_tmp, mut svc, _) = started("hang_after", &[("CRASH_AFTER", "1")]);
    svc.wait_healthy(&health(10_000)).unwrap();
    let hang = one_work_request(&svc, Duration::from_millis(500));
    assert!(hang.is_err(), "{hang:?}");
    let err = svc
        .still_healthy(&health(10_000), Duration::from_secs(1))
        .unwrap_err();
    assert!(matches!(err, ServiceError::HealthTimeout { .. }), "{err}");
}

/// A service that listens on another port than the one it was given is
/// named as such when its port never opens, with where it does listen,
/// instead of "raise health.timeout".
#[test]
fn a_service_listening_on_another_port_is_told_so() {
    let other = free_port();
    let (_tmp, mut svc, port) = started("ok", &[("LISTEN_PORT", &other.to_string())]);
    let err = svc.wait_ready(&health(3000), &|| false).unwrap_err();
    assert!(matches!(err, ServiceError::WrongPort { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains(&format!("is listening on 127.0.0.1:{other}"))
            && text.contains(&format!("on port {port} within 3s"))
            && text.contains("make it read $PORT, or put {{ port }} into its config file"),
        "{text}"
    );
    // The health poll of `runner verify` and of dependencies says the same.
    let err = svc.wait_healthy(&health(1000)).unwrap_err();
    assert!(matches!(err, ServiceError::WrongPort { .. }), "{err}");
}

/// A service that opens no port at all keeps the plain timeout.
#[test]
fn a_service_listening_nowhere_times_out_as_before() {
    let (_tmp, mut svc, _) = started("ok", &[("STARTUP_DELAY", "30")]);
    let err = svc.wait_ready(&health(1500), &|| false).unwrap_err();
    assert!(matches!(err, ServiceError::HealthTimeout { .. }), "{err}");
}

/// `health: { tcp: true }` passes once the port accepts, whatever the
/// service answers over HTTP (a server with no health endpoint): here one
/// whose /health says 503 forever is ready by TCP, and ready when its port
/// opened.
#[test]
fn tcp_readiness_passes_with_the_port_whatever_http_says() {
    let (_tmp, mut svc, _) = started("never_healthy", &[]);
    let tcp = HealthPlan {
        check: HealthCheck::Tcp,
        ..health(10_000)
    };
    let times = svc.wait_ready(&tcp, &|| false).unwrap();
    assert_eq!(times.port, Some(times.healthy));
    svc.still_healthy(&tcp, Duration::from_secs(2)).unwrap();
    // The same service fails an HTTP check: the TCP pass was not luck.
    let err = svc.still_healthy(&health(1000), Duration::from_millis(500));
    assert!(
        matches!(err, Err(ServiceError::HealthTimeout { .. })),
        "{err:?}"
    );
}

/// `health: { command }` runs in the service's dir with its env until it
/// exits 0, without waiting for the port; one that never passes times out
/// naming the command and what it last said on stderr.
#[test]
fn command_readiness_runs_in_the_service_dir_with_its_env() {
    let (tmp, mut svc, port) = started("ok", &[]);
    // The fixture's dir holds service.py; $PORT comes from the service's env.
    let passes = HealthPlan {
        check: HealthCheck::Command(format!(
            "test -f service.py && test \"$PORT\" = {port} && \
             python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 1)'"
        )),
        ..health(10_000)
    };
    let times = svc.wait_ready(&passes, &|| false).unwrap();
    assert_eq!(
        times.port, None,
        "a command check does not wait for the port"
    );
    let fails = HealthPlan {
        check: HealthCheck::Command("echo not yet >&2; exit 3".into()),
        ..health(800)
    };
    let err = svc
        .still_healthy(&fails, Duration::from_millis(800))
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("the health command `echo not yet >&2; exit 3` did not pass within 800ms")
            && text.contains("exit code 3: not yet"),
        "{text}"
    );
    drop(tmp);
}

/// A health command that hangs is killed with its process group after one
/// try's bound, and the poll goes on to its deadline.
#[test]
fn a_hanging_health_command_is_bounded() {
    let (_tmp, mut svc, _) = started("ok", &[]);
    let hangs = HealthPlan {
        check: HealthCheck::Command("sleep 30".into()),
        timeout: Duration::from_millis(1500),
        interval: Duration::from_millis(200),
    };
    let began = std::time::Instant::now();
    let err = svc.wait_ready(&hangs, &|| false).unwrap_err();
    assert!(
        began.elapsed() < Duration::from_secs(10),
        "{:?}",
        began.elapsed()
    );
    assert!(err.to_string().contains("did not finish within"), "{err}");
}
