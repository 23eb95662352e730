//! The training phase: record (graceful stop writes a file), after commands,
//! produced outputs checked.
mod common;

use std::time::Duration;

use common::*;
use runner::plan::{RequestPlan, TrainPlan};
use runner::service::http_status;
use runner::train::{TrainError, train_runtime};

fn train_plan(dir: &std::path::Path, produces: &str) -> TrainPlan {
    TrainPlan {
        start: format!("python3 {}", fixtures().join("service.py").display()),
        env: [(
            "WRITE_FILE".to_string(),
            dir.join("app.aotconf").display().to_string(),
        )]
        .into(),
        requests: vec![RequestPlan {
            name: "work".into(),
            method: "GET".into(),
            path: "/work/16".into(),
            headers: vec![],
            body: None,
            expect_status: 200,
            expect: Default::default(),
            weight: None,
        }],
        connections: 1,
        duration: Duration::from_millis(200),
        after: vec!["cp app.aotconf app.aot && echo created cache".into()],
        produces: vec![dir.join(produces)],
        evidence: None,
        inputs: vec![],
        probe: None,
    }
}

fn drive_ten(svc: &runner::service::Service) -> Result<(), String> {
    for _ in 0..10 {
        let code = http_status(
            svc.addr(),
            "GET",
            "/work/16",
            &[],
            None,
            (Duration::from_secs(2), false),
        )
        .map_err(|e| e.to_string())?;
        if code != 200 {
            return Err(format!("status {code}"));
        }
    }
    Ok(())
}

fn assert_missing_output(err: &TrainError) {
    assert!(
        matches!(
            err,
            TrainError::MissingOutput {
                problem: "missing",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn training_records_on_graceful_exit_then_creates_the_artifact() {
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let rt = py_runtime("trained", tmp.path(), port, &[]);
    let tp = train_plan(tmp.path(), "app.aot");
    let log = tmp.path().join("train-trained.log");
    let mut drives = 0;
    let mut drive = |svc: &runner::service::Service| {
        drives += 1;
        drive_ten(svc)
    };
    let out = train_runtime(&rt, &tp, None, &log, &mut drive, &|| false).unwrap();
    assert_eq!(drives, 1, "the training workload is driven once");
    assert_eq!(out.stop.kind, runner::service::StopKind::Graceful);
    // What the service wrote at its graceful exit, copied by `after`.
    let artifact = std::fs::read_to_string(tmp.path().join("app.aot")).unwrap();
    assert_eq!(artifact, "trained\n");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("graceful exit") && text.contains("created cache"),
        "{text}"
    );
    assert!(runner::service::port_is_free(port));
}

#[test]
fn a_missing_output_is_an_error_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let rt = py_runtime("trained", tmp.path(), free_port(), &[]);
    let tp = train_plan(tmp.path(), "never-written.aot");
    let log = tmp.path().join("train.log");
    let err = train_runtime(&rt, &tp, None, &log, &mut drive_ten, &|| false).unwrap_err();
    assert_missing_output(&err);
    assert!(err.to_string().contains("never-written.aot"), "{err}");
}

#[test]
fn a_stale_output_from_an_earlier_training_does_not_count() {
    let tmp = tempfile::tempdir().unwrap();
    let rt = py_runtime("trained", tmp.path(), free_port(), &[]);
    let stale = tmp.path().join("stale.aot");
    std::fs::write(&stale, "made from an older jar").unwrap();
    // This training's `after` writes app.aot, never stale.aot.
    let tp = train_plan(tmp.path(), "stale.aot");
    let log = tmp.path().join("train.log");
    let err = train_runtime(&rt, &tp, None, &log, &mut drive_ten, &|| false).unwrap_err();
    assert_missing_output(&err);
}

#[test]
fn a_failing_driver_stops_the_service() {
    let tmp = tempfile::tempdir().unwrap();
    let pids = tmp.path().join("pids");
    let port = free_port();
    let rt = py_runtime(
        "trained",
        tmp.path(),
        port,
        &[("PID_FILE", pids.to_str().unwrap())],
    );
    let tp = train_plan(tmp.path(), "app.aot");
    let err = train_runtime(
        &rt,
        &tp,
        None,
        &tmp.path().join("l"),
        &mut |_| Err("boom".into()),
        &|| false,
    )
    .unwrap_err();
    assert!(err.to_string().contains("boom"), "{err}");
    assert!(wait_all_gone(&pids_in(&pids), Duration::from_secs(5)).is_empty());
}
