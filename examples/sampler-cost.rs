//! The sampler's own CPU cost at its interval, on a real multi-process
//! service in a cgroup of its own (run by scripts/sampler-cost.sh).
//!
//!     sampler-cost [--interval 200ms] [--seconds 10] [--workers N] [-- COMMAND...]
//!
//! Without a command it starts `sh` with 8 sleeping processes; with
//! `--workers N` it starts the Node service (runtimes/node-http) in cluster
//! mode with N workers. It samples the service as `runner exec` does in a
//! cell (process tree, cgroup files, PSS and fds at the /proc rescan
//! cadence) and prints the sampling thread's CPU time as a share of a core.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use runner::plan::StopPlan;
use runner::sample::Sampler;
use runner::service::{Service, ServiceCommand};

struct Args {
    interval: Duration,
    seconds: f64,
    workers: Option<u32>,
    command: Option<String>,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        interval: Duration::from_millis(200),
        seconds: 10.0,
        workers: None,
        command: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--interval" => {
                args.interval =
                    runner::units::parse_duration(&value()?).map_err(|e| e.to_string())?
            }
            "--seconds" => {
                args.seconds = value()?.parse().map_err(|e| format!("--seconds: {e}"))?
            }
            "--workers" => {
                args.workers = Some(value()?.parse().map_err(|e| format!("--workers: {e}"))?)
            }
            "--" => {
                args.command = Some(it.by_ref().collect::<Vec<_>>().join(" "));
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(args)
}

/// A port nothing listens on (the service gets it in PORT).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(18099)
}

fn main() {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("sampler-cost: {e}");
            std::process::exit(2);
        }
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let port = free_port();
    let mut env = BTreeMap::from([("PORT".to_string(), port.to_string())]);
    let (what, dir, command) = match (&args.command, args.workers) {
        (Some(c), _) => (c.clone(), root.clone(), c.clone()),
        (None, Some(n)) => {
            env.insert("NODE_WORKERS".into(), n.to_string());
            (
                format!("node-http, cluster of {n} workers"),
                root.join("runtimes/node-http"),
                "node server.js".to_string(),
            )
        }
        (None, None) => (
            "sh with 8 sleeping processes".into(),
            root.clone(),
            "for i in 1 2 3 4 5 6 7 8; do sleep 600 & done; wait".to_string(),
        ),
    };
    let log = std::env::temp_dir().join(format!("sampler-cost-{}.log", std::process::id()));
    let service = ServiceCommand {
        runtime: "sampler-cost".into(),
        dir,
        command,
        env,
        port,
        cpus: None,
        limits: Default::default(),
        log_cap: runner::plan::contract::gates::DEFAULT_LOG_CAP,
        scratch: None,
        tls: None,
    };
    let service = match Service::start(&service, &log) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("sampler-cost: {e}");
            std::process::exit(1);
        }
    };
    std::thread::sleep(Duration::from_secs(2));
    let cgroup = service.cgroup().map(|c| c.usage_files());
    let mode = runner::cgroup::host().mode.as_str();
    let t0 = Instant::now();
    let sampler =
        Sampler::start_with_cgroup(service.sid(), cgroup, args.interval, t0, Box::new(|| {}));
    std::thread::sleep(Duration::from_secs_f64(args.seconds));
    let out = sampler.finish();
    let wall = t0.elapsed().as_secs_f64();
    let processes = out.rows.iter().map(|r| r.processes).max().unwrap_or(0);
    let pss = out
        .pss_max()
        .map_or("-".into(), |b| format!("{:.1} MiB", b as f64 / 1048576.0));
    let stop = StopPlan {
        signal: libc::SIGTERM,
        signal_name: "TERM".into(),
        grace: Duration::from_secs(5),
    };
    if let Err(e) = service.stop(&stop) {
        eprintln!("sampler-cost: stopping the service: {e}");
    }
    let _ = std::fs::remove_file(&log);
    println!(
        "sampler: {what} ({processes} processes, cgroup mode {mode}, PSS {pss}): {} samples at {:?} over {wall:.1} s, \
         {:.1} ms CPU = {:.3}% of one core ({:.3} ms per sample)",
        out.rows.len(),
        args.interval,
        out.own_cpu_s * 1000.0,
        out.own_cpu_s / wall * 100.0,
        out.own_cpu_s * 1000.0 / out.rows.len().max(1) as f64
    );
}
