//! The last planning step: the finished runtimes and cells, with the
//! spec-wide settings (defaults applied, paths made absolute), become the
//! [`Plan`].
use std::time::Duration;

use crate::plan::{
    Affinity, Cell, DEFAULT_MAX_RESTARTS, DEFAULT_SAMPLE_INTERVAL, ExperimentInfo, Order, Plan,
    RuntimePlan,
};
use crate::spec::model::OrderSpec;
use crate::spec::{LoadedSpec, absolute};

/// The cell order the spec asks for; interleaved rounds alternate their
/// runtime order when the spec judges candidates against controls.
pub fn order(loaded: &LoadedSpec) -> Order {
    match loaded.spec.order {
        OrderSpec::Sequential => Order::Sequential,
        OrderSpec::Interleaved if !loaded.spec.controls.is_empty() => Order::Alternating,
        OrderSpec::Interleaved => Order::Interleaved,
    }
}

/// The plan of `loaded` made of `runtimes` and `cells` (not `--quick`ened),
/// pinned as `affinity` says (resolved for the host by `crate::plan::keys::pinning`).
pub fn assemble(
    loaded: &LoadedSpec,
    runtimes: Vec<RuntimePlan>,
    mut cells: Vec<Cell>,
    affinity: Option<Affinity>,
) -> Plan {
    crate::plan::keys::pinning::default_threads(
        &mut cells,
        affinity.as_ref(),
        loaded.spec.load.threads.is_some(),
    );
    let spec = &loaded.spec;
    Plan {
        experiment: ExperimentInfo {
            name: spec.experiment.name.clone(),
            title: spec.experiment.title.clone(),
            description: spec.experiment.description.clone(),
        },
        spec_path: absolute(&loaded.path),
        spec_hash: loaded.sha256.clone(),
        runtimes,
        cells,
        order: order(loaded),
        repeats: crate::plan::RepeatPolicy::from(spec.repeats).min(),
        service_warmup: spec.warmup.service.map_or(Duration::ZERO, |d| d.0),
        sample_interval: spec
            .sample
            .as_ref()
            .and_then(|s| s.interval)
            .map_or(DEFAULT_SAMPLE_INTERVAL, |d| d.0),
        affinity,
        results_dir: crate::plan::keys::source::experiment_results(loaded),
        controls: spec
            .controls
            .iter()
            .map(|(candidate, control)| crate::plan::ControlPlan {
                candidate: candidate.clone(),
                control: control.clone(),
            })
            .collect(),
        report_templates: spec
            .report
            .iter()
            .flat_map(|r| &r.templates)
            .map(|t| absolute(&loaded.base_dir.join(t)))
            .collect(),
        metrics: spec.metrics.clone(),
        max_restarts: spec
            .faults
            .as_ref()
            .map_or(DEFAULT_MAX_RESTARTS, |f| f.max_restarts),
        quick_factor: None,
        repeats_cap: None,
        // Read (vectors files included) before the runtimes; set by `build_on`.
        verify: Vec::new(),
        gates: crate::plan::contract::gates::Gates::of(spec),
        // Planned before the runtimes; set by `build_on`.
        dependencies: Vec::new(),
        // Set by `build_on`, from the runtimes and dependencies.
        versions: Vec::new(),
        sample_during_measure: spec
            .sample
            .as_ref()
            .and_then(|s| s.during_measure)
            .unwrap_or(true),
        memory: spec
            .memory
            .as_ref()
            .map(crate::plan::contract::memory::MemoryPlan::of),
        hosts: crate::plan::contract::hosts::Hosts::of(spec.hosts.as_ref(), &loaded.base_dir),
        scenarios: crate::plan::contract::scenarios::scenario_plans(loaded),
        // Set by `build_on` from `crate::plan::steps::variant`.
        skipped_cells: Vec::new(),
    }
}
