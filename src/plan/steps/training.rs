//! Training requests: a training run drives the workload requests it names
//! (all by default), rendered at every axis point its runtime is planned
//! for, each distinct request (method, path, body) once.
use minijinja::Environment;

use crate::plan::steps::draft::RuntimeDraft;
use crate::plan::steps::matrix::Point;
use crate::plan::{Collector, RequestPlan, steps::cell};
use crate::spec::LoadedSpec;
use crate::spec::model::RequestSpec;
use crate::spec::validate::request_name;

/// The requests the training of `runtime` drives over its `kept` points
/// (indices into `points`); empty for a runtime without training.
pub fn training_requests<'s>(
    loaded: &'s LoadedSpec,
    env: &Environment<'s>,
    runtime: &RuntimeDraft,
    points: &[Point],
    kept: &[usize],
    problems: &mut Collector,
) -> Vec<RequestPlan> {
    let Some(train) = &runtime.train else {
        return Vec::new();
    };
    let driven: Vec<&RequestSpec> = crate::spec::keys::scenarios::base_workload(&loaded.spec)
        .iter()
        .filter(|r| {
            train
                .workload
                .as_ref()
                .is_none_or(|names| names.iter().any(|n| n == request_name(r)))
        })
        .collect();
    let mut out: Vec<RequestPlan> = Vec::new();
    for &p in kept {
        let vars = cell::cell_vars(&runtime.context, &points[p]);
        for request in &driven {
            let plan = cell::render_request(
                loaded,
                env,
                request,
                &vars,
                &runtime.context.hints,
                problems,
            );
            let duplicate = out
                .iter()
                .any(|r| r.method == plan.method && r.path == plan.path && r.body == plan.body);
            if !duplicate {
                out.push(plan);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::plan::{PlanOptions, build};

    const SPEC: &str = r#"
experiment: { name: t, title: t, description: d }
runtimes:
  trained:
    start: ./server
    train: { workload: [one, two] }
  plain:
    start: ./server
workload:
  - { name: one, path: "/one/{{ payload }}" }
  - { name: two, path: /two }
  - { name: three, path: "/three/{{ payload }}" }
axes: { payload: [1, 2, 3], concurrency: [1, 2] }
load: { mode: closed }
measure: { duration: 1s }
"#;

    #[test]
    fn drives_the_named_requests_at_each_kept_point_once() {
        let loaded = crate::spec::from_text(SPEC.into(), Path::new("/nowhere/spec.yaml")).unwrap();
        let options = PlanOptions {
            only: vec!["payload=1,3".into()],
            ..PlanOptions::default()
        };
        let plan = build(&loaded, &options).unwrap();
        let train = plan.runtimes[0].train.as_ref().unwrap();
        let paths: Vec<&str> = train.requests.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(paths, ["/one/1", "/two", "/one/3"]);
        assert!(plan.runtimes[1].train.is_none());
    }
}
