//! Training of the runtimes that declare it, driven by the load generator.
use std::net::SocketAddr;

use crate::exec::measure::context::{CellContext, guarded_run};
use crate::exec::measure::load_config::request_spec;
use crate::exec::start::lifecycle::fresh_row;
use crate::exec::start::provenance::record_training;
use crate::load::{Arrival, LoadConfig, StopCondition};
use crate::plan::{RuntimePlan, TrainPlan};
use crate::results::rows::training::DriverFigures;
use crate::results::{LifecycleRow, Phase, StopOutcome};
use crate::train::{TrainJob, TrainOutcome, driver_figures, run_job};

/// Trains `rt`; returns the outcome (or the error text) and its lifecycle row.
pub fn train(
    ctx: &CellContext,
    rt: &RuntimePlan,
    tp: &TrainPlan,
) -> (Result<TrainOutcome, String>, LifecycleRow) {
    let log = ctx.run.log(&format!("train-{}", rt.name));
    let mut lifecycle = training_row(rt);
    let cpus = ctx.plan.affinity.as_ref().map(|a| a.service.clone());
    let load_cpus = ctx.plan.affinity.as_ref().map(|a| a.load.clone());
    let mut figures = DriverFigures {
        connections: tp.connections.max(1),
        ..Default::default()
    };
    let mut drive = |service: &crate::service::Service| -> Result<(), String> {
        let mut config = training_load(tp, service.addr(), load_cpus.clone());
        config.transport = training_transport(ctx, rt);
        let (result, died) = guarded_run(ctx, service, &config, None);
        if ctx.interrupt.is_set() {
            return Err("interrupted".into());
        }
        if died {
            return Err("the training service died under load".into());
        }
        let report = result.map_err(|e| e.to_string())?;
        figures = driver_figures(&report, figures.connections)?;
        Ok(())
    };
    let interrupt = ctx.interrupt;
    let job = TrainJob::new(rt, tp, ctx.tls.map(|c| &c.files));
    let result = run_job(&job, cpus, &log, &mut drive, &|| interrupt.is_set());
    let result = result
        .map_err(|e| e.to_string())
        .and_then(|outcome| record_training(ctx, rt, tp, figures).map(|()| outcome));
    if let Ok(outcome) = &result {
        lifecycle.startup_ms = Some(outcome.startup.as_secs_f64() * 1000.0);
        lifecycle.stop = Some(outcome.stop.kind.into());
        lifecycle.exit_status = outcome.stop.exit_status.clone();
        lifecycle.log_dropped_bytes = outcome.stop.log_dropped_bytes;
    }
    (result, lifecycle)
}

/// The lifecycle row of a training of `rt` (here or on a service host)
/// that has not ended well (yet).
pub fn training_row(rt: &RuntimePlan) -> LifecycleRow {
    LifecycleRow {
        stop: Some(StopOutcome::Failed),
        ..fresh_row(rt, (Phase::Train, 1))
    }
}

/// What the training load speaks: what the runtime's cells speak (one
/// protocol: a trained runtime whose cells differ in TLS is refused by
/// the plan), trusting what they trust.
fn training_transport(ctx: &CellContext, rt: &RuntimePlan) -> crate::load::Transport {
    let run_ca = ctx.run.file(crate::results::TLS_CA_FILE);
    crate::exec::measure::load_config::first_cell_transport(ctx.plan, &rt.name, &run_ca)
}

/// The training workload against `target`: closed loop at
/// `train.connections` for `train.duration`, not warmed, one thread.
pub fn training_load(tp: &TrainPlan, target: SocketAddr, cpus: Option<Vec<usize>>) -> LoadConfig {
    LoadConfig {
        target,
        host_header: target.to_string(),
        requests: tp.requests.iter().map(request_spec).collect(),
        arrival: Arrival::Closed {
            connections: tp.connections.max(1) as usize,
        },
        stop: StopCondition::Duration(tp.duration),
        warmup: std::time::Duration::ZERO,
        timeout: std::time::Duration::from_secs(10),
        threads: 1,
        cpu_affinity: cpus,
        mix_seed: crate::load::DEFAULT_MIX_SEED,
        connect_rate: crate::load::DEFAULT_CONNECT_RATE,
        connection_ramp: std::time::Duration::ZERO,
        transport: Default::default(),
    }
}
