//! The rates of the `equal_load` cells (see `plan::equal_load`), derived
//! when the walk first reaches one: by then every closed-loop cell of every
//! runtime has run (the plan puts them first). The rates are written to
//! derived-rates.json and read back from it on resume, so that every
//! session of a run, and every re-render of its report, uses the same rates.
use std::borrow::Cow;

use indexmap::IndexMap;

use crate::exec::ExecError;
use crate::exec::measure::row::base_row;
use crate::plan::{Cell, LoadMode};
use crate::results::rows::derived_rates::{
    DERIVED_RATES_FILE, DerivedRates, FractionRate, RateGroup, RuntimePeak, group_of,
};
use crate::results::{
    CellStatus, LoopMode, MEASUREMENTS_FILE, MeasurementRow, ResultsError, RunDir, read_csv,
    rfc3339_now,
};

/// The run's derived rates, loaded or derived once.
#[derive(Debug, Default)]
pub struct RateBook {
    rates: Option<DerivedRates>,
}

impl RateBook {
    /// `cell` as planned when it is not an `equal_load` cell; else the cell
    /// with its open-loop rate, or `Err(row)`: the `failed` row to record when
    /// no closed-loop peak of its group was measured.
    pub fn resolve<'c>(
        &mut self,
        run: &RunDir,
        cells: &[Cell],
        cell: &'c Cell,
    ) -> Result<Result<Cow<'c, Cell>, Box<MeasurementRow>>, ExecError> {
        let Some(derived) = &cell.derived_rate else {
            return Ok(Ok(Cow::Borrowed(cell)));
        };
        let rates = match &mut self.rates {
            Some(rates) => rates,
            slot => slot.insert(load_or_derive(run, cells)?),
        };
        let Some(rate) = rates.rate(&derived.group, derived.of_peak) else {
            let mut row = base_row(cell, &rfc3339_now());
            row.status = CellStatus::Failed;
            row.reason = format!(
                "equal_load: no closed-loop peak was measured for {} (every closed-loop repeat \
                 of the group failed or was skipped), so no rate can be derived for {} of it",
                if derived.group.is_empty() {
                    "the run"
                } else {
                    &derived.group
                },
                derived.of_peak
            );
            return Ok(Err(Box::new(row)));
        };
        let mut resolved = cell.clone();
        if let LoadMode::Open { connections, .. } = resolved.load.mode {
            resolved.load.mode = LoadMode::Open { rate, connections };
        }
        Ok(Ok(Cow::Owned(resolved)))
    }
}

/// derived-rates.json if an earlier session wrote it, else derived from
/// measurements.csv now and written.
fn load_or_derive(run: &RunDir, cells: &[Cell]) -> Result<DerivedRates, ExecError> {
    if run.file(DERIVED_RATES_FILE).is_file() {
        return Ok(run.read_json(DERIVED_RATES_FILE)?);
    }
    let rows: Vec<MeasurementRow> = read_csv(&run.file(MEASUREMENTS_FILE))
        .map_err(ResultsError::from)?
        .unwrap_or_default();
    let mut fractions: Vec<f64> = Vec::new();
    for f in cells.iter().filter_map(|c| c.derived_rate.as_ref()) {
        if !fractions.contains(&f.of_peak) {
            fractions.push(f.of_peak);
        }
    }
    let rates = derive(&rows, &fractions, rfc3339_now());
    run.write_json(DERIVED_RATES_FILE, &rates)?;
    Ok(rates)
}

/// The rates of every group of closed-loop rows: each runtime's peak (the
/// configuration with the highest median throughput over its usable
/// repeats), the slowest of those peaks, and `fractions` of it.
pub fn derive(rows: &[MeasurementRow], fractions: &[f64], derived_at: String) -> DerivedRates {
    // group -> runtime -> config -> usable repeats' throughput
    let mut by_group: IndexMap<String, IndexMap<&str, IndexMap<&str, Vec<&MeasurementRow>>>> =
        IndexMap::new();
    for row in rows
        .iter()
        .filter(|r| r.mode == LoopMode::Closed && r.status != CellStatus::Failed)
    {
        by_group
            .entry(group_of(&row.axes))
            .or_default()
            .entry(&row.runtime)
            .or_default()
            .entry(&row.config_id)
            .or_default()
            .push(row);
    }
    let groups = by_group
        .into_iter()
        .filter_map(|(group, runtimes)| {
            let peaks: Vec<RuntimePeak> = runtimes
                .into_iter()
                .filter_map(|(runtime, configs)| peak(runtime, configs))
                .collect();
            let slowest = peaks.iter().min_by(|a, b| a.rps.total_cmp(&b.rps))?.clone();
            Some(RateGroup {
                group,
                slowest: slowest.runtime.clone(),
                base_rps: slowest.rps,
                rates: fractions
                    .iter()
                    .map(|&of_peak| FractionRate {
                        of_peak,
                        rate: (slowest.rps * of_peak * 10.0).round() / 10.0,
                    })
                    .collect(),
                peaks,
            })
        })
        .collect();
    DerivedRates { derived_at, groups }
}

fn peak(runtime: &str, configs: IndexMap<&str, Vec<&MeasurementRow>>) -> Option<RuntimePeak> {
    configs
        .into_iter()
        .filter_map(|(config_id, repeats)| {
            let mut rps: Vec<f64> = repeats.iter().map(|r| r.throughput_rps).collect();
            rps.sort_by(f64::total_cmp);
            let mid = rps.len() / 2;
            let median = if rps.len().is_multiple_of(2) {
                (rps[mid - 1] + rps[mid]) / 2.0
            } else {
                rps[mid]
            };
            (median > 0.0).then(|| RuntimePeak {
                runtime: runtime.to_string(),
                config_id: config_id.to_string(),
                concurrency: repeats[0].concurrency,
                rps: median,
            })
        })
        .max_by(|a, b| a.rps.total_cmp(&b.rps))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(runtime: &str, axes: &str, conc: i64, rps: f64, status: CellStatus) -> MeasurementRow {
        MeasurementRow {
            runtime: runtime.into(),
            config_id: format!("{runtime}/{axes}"),
            axes: axes.into(),
            concurrency: Some(conc),
            throughput_rps: rps,
            status,
            ..Default::default()
        }
    }

    #[test]
    fn rates_are_fractions_of_the_slowest_peak_per_group() {
        use CellStatus::{Failed, Ok};
        let rows = [
            row("go", "payload=1,concurrency=4", 4, 900.0, Ok),
            row("go", "payload=1,concurrency=4", 4, 1100.0, Ok),
            row("go", "payload=1,concurrency=16", 16, 1500.0, Ok),
            row("jvm", "payload=1,concurrency=4", 4, 600.0, Ok),
            row("jvm", "payload=1,concurrency=16", 16, 800.0, Ok),
            // A failed repeat never makes a peak.
            row("jvm", "payload=1,concurrency=16", 16, 5000.0, Failed),
            row("go", "payload=2,concurrency=4", 4, 300.0, Ok),
            // Open-loop rows are not part of the closed-loop pass.
            MeasurementRow {
                mode: LoopMode::Open,
                ..row("jvm", "payload=2,of_peak=0.5", 0, 10.0, Ok)
            },
        ];
        let d = derive(&rows, &[0.25, 0.5], "t".into());
        assert_eq!(d.groups.len(), 2);
        let g = &d.groups[0];
        assert_eq!(
            (g.group.as_str(), g.slowest.as_str(), g.base_rps),
            ("payload=1", "jvm", 800.0)
        );
        assert_eq!(g.peaks[0].config_id, "go/payload=1,concurrency=16");
        assert_eq!((g.peaks[0].rps, g.peaks[0].concurrency), (1500.0, Some(16)));
        assert_eq!(d.rate("payload=1", 0.25), Some(200.0));
        assert_eq!(d.rate("payload=1", 0.5), Some(400.0));
        assert_eq!(
            d.rate("payload=2", 0.5),
            Some(150.0),
            "go alone in its group"
        );
        assert_eq!(d.rate("payload=3", 0.5), None);
    }
}
