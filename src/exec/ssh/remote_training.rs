//! Training on a service host reached over SSH: the job goes there with its
//! folder and files made the copy's ([`far_path`]), runs there with the
//! same code as a local training, and its log comes back into
//! logs/train-<runtime>.log here while it runs. The training record
//! (training/<runtime>.json) holds the hashes taken there, and every
//! measured start there is checked against it ([`check_there`]) as a local
//! start is against a local record.
use std::path::Path;

use crate::exec::measure::context::CellContext;
use crate::exec::ssh::remote_service::{SharedClient, append, stop_if_lost};
use crate::exec::start::provenance::{judge, write_record};
use crate::exec::start::training::{training_load, training_row};
use crate::plan::{RuntimePlan, TrainPlan};
use crate::remote::service_hosts::service_wire::{
    ServiceAnswer, ServiceCall, WireTrain, WireTrainCheck, millis as ms,
};
use crate::remote::wire::WireLoadConfig;
use crate::results::{LifecycleRow, rfc3339_now};
use crate::train::TrainJob;

/// `path` (under `rt.dir`, as the plan makes every training path) as the
/// same path under `far_dir`, the copy of `rt.dir` on the service host.
pub fn far_path(rt: &RuntimePlan, far_dir: &str, path: &Path) -> Result<String, String> {
    // `dir/../x` is lexically under `dir` but not in the copy.
    let rel = (path.strip_prefix(&rt.dir).ok()).filter(|rel| {
        !rel.components()
            .any(|c| c == std::path::Component::ParentDir)
    });
    match rel {
        Some(rel) if rel.as_os_str().is_empty() => Ok(far_dir.to_string()),
        Some(rel) => Ok(format!("{far_dir}/{}", rel.display())),
        None => Err(format!(
            "runtime {}: {} is outside its dir {}, and only that folder is copied to the \
             service host; give the path relative to the runtime's dir",
            rt.name,
            path.display(),
            rt.dir.display()
        )),
    }
}

fn far_paths(rt: &RuntimePlan, far_dir: &str, paths: &[std::path::PathBuf]) -> Vec<String> {
    // Checked before the run (remote_driver::unsupported): every path maps.
    (paths.iter())
        .filter_map(|p| far_path(rt, far_dir, p).ok())
        .collect()
}

/// Trains `rt` there from its sources copied to `far_dir`.
pub fn train_there(
    ctx: &CellContext,
    client: &SharedClient,
    (host, far_dir): (&str, &str),
    rt: &RuntimePlan,
    tp: &TrainPlan,
) -> (Result<(), String>, LifecycleRow) {
    let mut lifecycle = training_row(rt);
    let log = ctx.run.log(&format!("train-{}", rt.name));
    append(
        &log,
        &format!(
            "=== runner: training {} on the service host {host} at {}\n",
            rt.name,
            rfc3339_now()
        ),
    );
    let mut job = TrainJob::new(rt, tp, ctx.tls.map(|c| &c.files));
    job.dir = far_dir.into();
    job.produces = far_paths(rt, far_dir, &tp.produces)
        .into_iter()
        .map(Into::into)
        .collect();
    // The far side aims it at the training service's own address there.
    let target = std::net::SocketAddr::from(([127, 0, 0, 1], rt.port));
    // Plain HTTP/1.1 (the plan refuses a TLS training on a service host),
    // so no CA file is read and this cannot fail.
    let load = match WireLoadConfig::try_from(&training_load(tp, target, None)) {
        Ok(load) => load,
        Err(e) => return (Err(e.to_string()), lifecycle),
    };
    let mut c = client.lock().unwrap_or_else(|p| p.into_inner());
    let wire = WireTrain {
        job,
        load,
        inputs: far_paths(rt, far_dir, &tp.inputs),
        state_dir: c.state_dir(),
    };
    let answer = c.train(wire, &mut |text| append(&log, text));
    drop(c);
    let answer = answer.map_err(|e| {
        stop_if_lost(ctx.interrupt, &e);
        format!("{e}; see {}", log.display())
    });
    let result = match answer {
        Ok(ServiceAnswer::Trained {
            startup_ms,
            kind,
            exit_status,
            log_dropped_bytes,
            driver,
            inputs,
            produced,
        }) => {
            lifecycle.startup_ms = Some(startup_ms);
            lifecycle.stop = Some(kind.into());
            lifecycle.exit_status = exit_status;
            lifecycle.log_dropped_bytes = log_dropped_bytes;
            write_record(ctx, rt, tp, driver, (inputs, produced))
        }
        Ok(other) => Err(other.unexpected("a training")),
        Err(e) => Err(e),
    };
    (result, lifecycle)
}

/// Before a measured start of a trained `rt` there: `Some(why)` when the
/// artifact there is not provably the one trained (see
/// [`crate::exec::start::provenance::check_before_start`]).
pub fn check_there(
    ctx: &CellContext,
    client: &SharedClient,
    far_dir: &str,
    rt: &RuntimePlan,
) -> Option<String> {
    let tp = rt.train.as_ref()?;
    let mut c = client.lock().unwrap_or_else(|p| p.into_inner());
    let call = ServiceCall::TrainCheck(Box::new(WireTrainCheck {
        runtime: rt.name.clone(),
        dir: far_dir.into(),
        env: crate::process::runtime_env(rt),
        pass_env: rt.pass_env.clone(),
        inputs: far_paths(rt, far_dir, &tp.inputs),
        produces: far_paths(rt, far_dir, &tp.produces),
        probe: tp.probe.clone(),
        probe_within_ms: ms(rt.health.timeout),
        state_dir: c.state_dir(),
    }));
    let answer = c.long(
        call,
        rt.health.timeout,
        "while it checked the trained files",
    );
    drop(c);
    match answer {
        Ok(ServiceAnswer::TrainChecked {
            inputs,
            produced,
            probe_problem,
        }) => judge(ctx, rt, (inputs, produced), || probe_problem),
        Ok(other) => Some(other.unexpected("the check of the trained files")),
        Err(e) => {
            stop_if_lost(ctx.interrupt, &e);
            Some(format!("the trained files could not be checked there: {e}"))
        }
    }
}
