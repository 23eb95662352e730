//! `equal_load`: open-loop cells at rates common to every runtime.
//!
//! Comparing each runtime at its own peak compares them at different
//! concurrencies, and by Little's law the one that peaks at the higher
//! concurrency looks slowest whatever its service time. These cells offer
//! every runtime the same rates instead: fractions of the slowest runtime's
//! closed-loop peak in each group of the other axes (e.g. per payload), as
//! the 2026 follow-up study derives its rates. The plan only lays them out,
//! after every closed-loop cell; exec derives the rates once those have run
//! (`exec::derived_rates`) and records them in derived-rates.json.
use crate::plan::{
    Cell, Collector, DEFAULT_OPEN_CONNECTIONS, DerivedRate, LoadMode, LoadPlan, Order,
    steps::matrix,
};
use crate::results::rows::derived_rates::OF_PEAK_AXIS;
use crate::spec::LoadedSpec;
use crate::spec::model::LoadModeSpec;
use crate::spec::values::AxisValue;

/// The `equal_load` cells of the plan, to be run after `closed` (the
/// matrix's cells), arranged for `order`; empty without `equal_load`.
pub fn equal_load_cells(
    loaded: &LoadedSpec,
    closed: &[Cell],
    order: Order,
    problems: &mut Collector,
) -> Vec<Cell> {
    let Some(spec) = &loaded.spec.equal_load else {
        return Vec::new();
    };
    if !check(loaded, problems) {
        return Vec::new();
    }
    let connections = spec
        .connections
        .or_else(|| {
            closed
                .iter()
                .filter_map(|c| match c.load.mode {
                    LoadMode::Closed { connections } => Some(connections),
                    LoadMode::Open { .. } | LoadMode::Search(_) => None,
                })
                .max()
        })
        .unwrap_or(DEFAULT_OPEN_CONNECTIONS);
    // One template per (runtime, group): its first closed cell, whose
    // rendered requests and durations the open-loop cells reuse.
    let mut runtimes: Vec<&str> = Vec::new();
    let mut templates: Vec<(&Cell, matrix::Point)> = Vec::new();
    for cell in closed {
        let group: matrix::Point = cell
            .axes
            .iter()
            .filter(|(name, _)| name != "concurrency")
            .cloned()
            .collect();
        if !runtimes.contains(&cell.runtime.as_str()) {
            runtimes.push(&cell.runtime);
        }
        if !templates
            .iter()
            .any(|(t, g)| t.runtime == cell.runtime && *g == group)
        {
            templates.push((cell, group));
        }
    }
    let kept: Vec<Vec<usize>> = runtimes
        .iter()
        .map(|rt| {
            templates
                .iter()
                .enumerate()
                .filter(|(_, (t, _))| t.runtime == *rt)
                .flat_map(|(i, _)| (0..spec.of_peak.len()).map(move |f| i * spec.of_peak.len() + f))
                .collect()
        })
        .collect();
    // As many repeats as the runtime's closed cells have (its policy's max).
    let repeats: Vec<u32> = runtimes
        .iter()
        .map(|rt| {
            (closed.iter())
                .filter(|c| c.runtime == *rt)
                .map(|c| c.repeat)
                .max()
                .unwrap_or(1)
        })
        .collect();
    matrix::order(&kept, &repeats, order)
        .into_iter()
        .map(|(_, index, repeat)| {
            let (template, group) = &templates[index / spec.of_peak.len()];
            let of_peak = spec.of_peak[index % spec.of_peak.len()];
            let mut axes = group.clone();
            axes.push((OF_PEAK_AXIS.to_string(), AxisValue::Float(of_peak)));
            let config_id = matrix::config_id(&template.runtime, &axes);
            Cell {
                id: format!("{config_id}/r{repeat}"),
                config_id,
                runtime: template.runtime.clone(),
                repeat,
                requests: template.requests.clone(),
                load: LoadPlan {
                    mode: LoadMode::Open {
                        rate: 0.0,
                        connections,
                    },
                    // Open loop: the closed cells' connection ramp does not apply.
                    ramp: std::time::Duration::ZERO,
                    ..template.load.clone()
                },
                warmup: template.warmup,
                measure: template.measure,
                limits: template.limits.clone(),
                derived_rate: Some(DerivedRate {
                    of_peak,
                    group: group_text(group),
                }),
                profiled: false,
                variant: template.variant.clone(),
                axes,
            }
        })
        .collect()
}

/// `payload=128` for the group `[payload: 128]` (the form of measurements.csv's `axes`).
fn group_text(group: &matrix::Point) -> String {
    group
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Whether `equal_load` can be planned; every problem goes to `problems`.
fn check(loaded: &LoadedSpec, problems: &mut Collector) -> bool {
    let Some(spec) = &loaded.spec.equal_load else {
        return false;
    };
    let mut ok = true;
    if loaded.spec.load.mode != LoadModeSpec::Closed {
        ok = false;
        problems.add(
            loaded,
            "equal_load",
            "equal_load derives its rates from a closed-loop pass, but `load.mode` is open",
            "remove `load.mode: open` (the matrix runs in closed loop, the equal_load cells in open loop)",
        );
    }
    if spec.of_peak.is_empty() {
        ok = false;
        problems.add(
            loaded,
            "equal_load.of_peak",
            "equal_load.of_peak lists no fraction",
            "list fractions of the slowest runtime's peak, e.g. `of_peak: [0.25, 0.5, 0.75, 0.9]`",
        );
    }
    for (i, f) in spec.of_peak.iter().enumerate() {
        if !(f.is_finite() && *f > 0.0 && *f <= 1.0) {
            ok = false;
            problems.add(
                loaded,
                &format!("equal_load.of_peak.{i}"),
                format!("equal_load.of_peak: {f} is not a fraction above 0 and at most 1"),
                "write a fraction of the slowest runtime's peak, e.g. 0.5",
            );
        }
    }
    if spec.connections == Some(0) {
        ok = false;
        problems.add(
            loaded,
            "equal_load.connections",
            "equal_load.connections is 0",
            "give at least 1 connection, or leave it out (default: the largest concurrency)",
        );
    }
    if loaded.spec.axes.contains_key(OF_PEAK_AXIS) {
        ok = false;
        problems.add(
            loaded,
            &format!("axes.{OF_PEAK_AXIS}"),
            format!("the axis name `{OF_PEAK_AXIS}` is taken by equal_load's cells"),
            "rename the axis",
        );
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::PlanOptions;

    fn plan(extra: &str) -> Result<crate::plan::Plan, String> {
        let text = format!(
            "experiment: {{ name: t }}\n\
             runtimes: {{ a: {{ start: ./a }}, b: {{ start: ./b }} }}\n\
             workload: {{ path: \"/p/{{{{ payload }}}}\" }}\n\
             axes: {{ payload: [1, 2], concurrency: [4, 16] }}\n\
             repeats: 2\n\
             measure: {{ duration: 1s }}\n{extra}"
        );
        let loaded = crate::spec::from_text(text, std::path::Path::new("t.yaml"))
            .map_err(|e| e.to_string())?;
        crate::plan::build(&loaded, &PlanOptions::default()).map_err(|e| e.to_string())
    }

    #[test]
    fn open_loop_cells_follow_every_closed_cell_per_group_and_fraction() {
        let p = plan("equal_load: { of_peak: [0.5, 0.9] }\n").unwrap();
        // 2 runtimes x 2 payloads x 2 concurrencies x 2 repeats closed, then
        // 2 runtimes x 2 payloads x 2 fractions x 2 repeats open.
        assert_eq!(p.cells.len(), 16 + 16);
        assert!(p.cells[..16].iter().all(|c| c.derived_rate.is_none()));
        let open = &p.cells[16..];
        let ids: Vec<&str> = open.iter().take(5).map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "a/payload=1/of_peak=0.5/r1",
                "a/payload=1/of_peak=0.9/r1",
                "a/payload=2/of_peak=0.5/r1",
                "a/payload=2/of_peak=0.9/r1",
                "b/payload=1/of_peak=0.5/r1",
            ],
            "interleaved: repeat 1 of every runtime first"
        );
        let c = &open[2];
        assert_eq!(
            c.derived_rate,
            Some(DerivedRate {
                of_peak: 0.5,
                group: "payload=2".into()
            })
        );
        assert_eq!(c.requests[0].path, "/p/2");
        assert!(
            matches!(
                c.load.mode,
                LoadMode::Open {
                    connections: 16,
                    ..
                }
            ),
            "default connections: the largest concurrency: {:?}",
            c.load.mode
        );
    }

    #[test]
    fn equal_load_needs_closed_loop_and_fractions() {
        let e = plan("load: { mode: open, rate: 10 }\nequal_load: { of_peak: [0, 1.5] }\n")
            .unwrap_err();
        assert!(e.contains("`load.mode` is open"), "{e}");
        assert!(
            e.contains("0 is not a fraction") && e.contains("1.5 is not a fraction"),
            "{e}"
        );
        let p = plan("equal_load: { of_peak: [1], connections: 8 }\n").unwrap();
        assert!(matches!(
            p.cells.last().unwrap().load.mode,
            LoadMode::Open { connections: 8, .. }
        ));
    }
}
