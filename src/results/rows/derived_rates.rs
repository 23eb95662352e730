//! derived-rates.json: the open-loop rates of a run's `equal_load` cells,
//! derived once from its closed-loop pass and kept, so that a resumed run
//! and a re-rendered report use the same rates (docs/run-directory.md).
use serde::{Deserialize, Serialize};

pub const DERIVED_RATES_FILE: &str = "derived-rates.json";

/// The axis that names an equal-load cell's fraction of the peak.
pub const OF_PEAK_AXIS: &str = "of_peak";

/// Every group of cells (the axes other than concurrency) and its rates.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct DerivedRates {
    /// RFC 3339: when the rates were derived.
    pub derived_at: String,
    pub groups: Vec<RateGroup>,
}

/// One group: e.g. `payload=128` (empty when concurrency is the only axis).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct RateGroup {
    pub group: String,
    /// Each runtime's closed-loop peak in this group, in run order.
    pub peaks: Vec<RuntimePeak>,
    /// The runtime with the lowest peak: the rates are fractions of its peak,
    /// so that every runtime can carry every rate.
    pub slowest: String,
    pub base_rps: f64,
    pub rates: Vec<FractionRate>,
}

/// A runtime's best closed-loop configuration in a group: the highest
/// median throughput over the usable repeats.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct RuntimePeak {
    pub runtime: String,
    pub config_id: String,
    pub concurrency: Option<i64>,
    pub rps: f64,
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct FractionRate {
    pub of_peak: f64,
    /// Requests per second offered to every runtime.
    pub rate: f64,
}

impl DerivedRates {
    /// The rate for `fraction` of group `group`, if it was derived.
    pub fn rate(&self, group: &str, fraction: f64) -> Option<f64> {
        self.group(group)?
            .rates
            .iter()
            .find(|r| (r.of_peak - fraction).abs() < 1e-9)
            .map(|r| r.rate)
    }

    pub fn group(&self, group: &str) -> Option<&RateGroup> {
        self.groups.iter().find(|g| g.group == group)
    }
}

/// The group of a measurement's `axes` text (`payload=128,concurrency=8` ->
/// `payload=128`): every axis but `concurrency` and `of_peak`, in order.
pub fn group_of(axes: &str) -> String {
    axes.split(',')
        .filter(|part| !part.is_empty())
        .filter(|part| {
            let name = part.split('=').next().unwrap_or_default();
            name != "concurrency" && name != OF_PEAK_AXIS
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_group_leaves_out_concurrency_and_the_fraction() {
        assert_eq!(group_of("payload=128,concurrency=8"), "payload=128");
        assert_eq!(group_of("payload=128,of_peak=0.5"), "payload=128");
        assert_eq!(group_of("concurrency=8"), "");
        assert_eq!(group_of("size=s,concurrency=8,path=a"), "size=s,path=a");
    }
}
