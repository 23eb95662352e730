//! The verdict on one configuration for one metric: sample it per second from
//! the timelines (or per repeat), test for a shift, and weigh the change
//! against the threshold. Throughput and p99 latency go through the same rule;
//! only which direction is better differs.
use serde::Serialize;

use super::super::error::ReportError;
use super::super::run_data::RunData;
use super::super::stats::{Spread, mann_whitney};
use super::ALPHA;
use crate::results::model::{CellStatus, MeasurementRow};

/// Fewest samples per side a test is run on.
pub const MIN_SAMPLES: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Significant and worse by more than the threshold.
    Regression,
    /// Every repeat failed in B where A had usable ones: counted as a regression.
    Failed,
    /// Significant and better by more than the threshold.
    Improvement,
    /// Significant, but smaller than the threshold.
    BelowThreshold,
    /// Not significant: inside the noise.
    WithinNoise,
    /// Too few samples to test, or every repeat failed on one side.
    Insufficient,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Regression => "REGRESSION",
            Verdict::Failed => "FAILED in B",
            Verdict::Improvement => "improvement",
            Verdict::BelowThreshold => "below threshold",
            Verdict::WithinNoise => "within noise",
            Verdict::Insufficient => "insufficient data",
        }
    }

    pub fn is_regression(self) -> bool {
        matches!(self, Verdict::Regression | Verdict::Failed)
    }
}

/// Which way a metric improves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
}

/// The metrics compare judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Successful requests per second.
    Throughput,
    /// 99th percentile latency (coordinated-omission corrected in open loop).
    P99,
}

impl Metric {
    fn better(self) -> Better {
        match self {
            Metric::Throughput => Better::Higher,
            Metric::P99 => Better::Lower,
        }
    }

    /// One repeat's value of this metric.
    fn of_repeat(self, m: &MeasurementRow) -> f64 {
        match self {
            Metric::Throughput => m.throughput_rps,
            Metric::P99 => m.latency_p99_ms,
        }
    }
}

/// One side's data for one configuration and metric.
#[derive(Debug, Clone, Default)]
pub struct Side {
    /// The values the U test ranks (per second, or per repeat).
    pub samples: Vec<f64>,
    /// One value per usable repeat: the median and the min-max range.
    pub repeats: Vec<f64>,
}

/// What the samples are: seconds of the timelines, or whole repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SampleKind {
    Second,
    Repeat,
}

impl SampleKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SampleKind::Second => "second",
            SampleKind::Repeat => "repeat",
        }
    }
}

/// Both metrics of one configuration in one run.
#[derive(Debug, Clone)]
pub struct ConfigSamples {
    pub kind: SampleKind,
    pub throughput: Side,
    pub p99: Side,
}

impl ConfigSamples {
    pub fn side(&self, metric: Metric) -> &Side {
        match metric {
            Metric::Throughput => &self.throughput,
            Metric::P99 => &self.p99,
        }
    }
}

impl ConfigSamples {
    /// The same configuration sampled per repeat: used on both sides when
    /// only one run has timelines (samples of different kinds are not
    /// ranked together).
    pub fn per_repeat(self) -> ConfigSamples {
        let side = |s: Side| Side {
            samples: s.repeats.clone(),
            repeats: s.repeats,
        };
        ConfigSamples {
            kind: SampleKind::Repeat,
            throughput: side(self.throughput),
            p99: side(self.p99),
        }
    }
}

/// Reads one configuration's samples: per-second successful requests and p99
/// from every usable repeat's timeline (a second without any success has no
/// p99 and is left out of the latency samples), or the repeats' own values
/// when any timeline is missing.
pub fn config_samples(run: &RunData, config_id: &str) -> Result<ConfigSamples, ReportError> {
    let repeats: Vec<&MeasurementRow> = run
        .measurements
        .iter()
        .filter(|m| m.config_id == config_id && m.status != CellStatus::Failed)
        .collect();
    let per_repeat =
        |metric: Metric| -> Vec<f64> { repeats.iter().map(|m| metric.of_repeat(m)).collect() };
    let (throughput, p99) = (per_repeat(Metric::Throughput), per_repeat(Metric::P99));
    let (mut rps_seconds, mut p99_seconds) = (Vec::new(), Vec::new());
    let mut every_timeline = true;
    for m in &repeats {
        match run.timeline(&m.cell_id)? {
            Some(rows) if !rows.is_empty() => {
                for r in &rows {
                    rps_seconds.push(r.ok as f64);
                    if r.ok > 0 {
                        p99_seconds.push(r.p99_ms);
                    }
                }
            }
            _ => {
                every_timeline = false;
                break;
            }
        }
    }
    let samples = ConfigSamples {
        kind: SampleKind::Second,
        throughput: Side {
            samples: rps_seconds,
            repeats: throughput,
        },
        p99: Side {
            samples: p99_seconds,
            repeats: p99,
        },
    };
    Ok(if every_timeline {
        samples
    } else {
        samples.per_repeat()
    })
}

/// The judgement of one metric of one configuration.
#[derive(Debug, Clone, Serialize)]
pub struct Judged {
    pub a_median: Option<f64>,
    pub b_median: Option<f64>,
    /// `b / a - 1` of the repeats' medians.
    pub change: Option<f64>,
    pub p_value: Option<f64>,
    pub ranges_overlap: Option<bool>,
    pub verdict: Verdict,
}

/// Significant when the U test gives p < ALPHA *and* the repeats' min-max
/// ranges do not overlap (per-second samples of one repeat are
/// autocorrelated, so the U test alone is overconfident); flagged when the
/// change is also at least `threshold` in the worse direction.
pub fn judge(metric: Metric, a: &Side, b: &Side, threshold: f64) -> Judged {
    let (ra, rb) = (Spread::of(&a.repeats), Spread::of(&b.repeats));
    let change = match (&ra, &rb) {
        (Some(ra), Some(rb)) if ra.median > 0.0 => Some(rb.median / ra.median - 1.0),
        _ => None,
    };
    let ranges_overlap = match (&ra, &rb) {
        (Some(ra), Some(rb)) => Some(Spread::overlaps(ra, rb)),
        _ => None,
    };
    let test = mann_whitney(&a.samples, &b.samples);
    let enough = a.samples.len() >= MIN_SAMPLES && b.samples.len() >= MIN_SAMPLES;
    let verdict = match (change, test, ranges_overlap) {
        _ if ra.is_some() && rb.is_none() => Verdict::Failed,
        (Some(change), Some(t), Some(overlap)) if enough => {
            // Positive = better, whichever way the metric improves.
            let gain = match metric.better() {
                Better::Higher => change,
                Better::Lower => -change,
            };
            if t.p >= ALPHA || overlap {
                Verdict::WithinNoise
            } else if gain <= -threshold {
                Verdict::Regression
            } else if gain >= threshold {
                Verdict::Improvement
            } else {
                Verdict::BelowThreshold
            }
        }
        _ => Verdict::Insufficient,
    };
    Judged {
        a_median: ra.map(|s| s.median),
        b_median: rb.map(|s| s.median),
        change,
        p_value: test.map(|t| (t.p * 1e6).round() / 1e6),
        ranges_overlap,
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(samples: &[f64], repeats: &[f64]) -> Side {
        Side {
            samples: samples.to_vec(),
            repeats: repeats.to_vec(),
        }
    }

    #[test]
    fn higher_latency_is_a_regression_and_lower_an_improvement() {
        let fast = side(&[10.0, 10.2, 10.1, 9.9, 10.0, 10.3], &[10.0, 10.1]);
        let slow = side(&[13.0, 13.2, 13.1, 12.9, 13.0, 13.3], &[13.0, 13.1]);
        let worse = judge(Metric::P99, &fast, &slow, 0.10);
        assert_eq!(worse.verdict, Verdict::Regression, "{worse:?}");
        assert!((worse.change.unwrap() - 0.2985).abs() < 0.001);
        assert_eq!(
            judge(Metric::P99, &slow, &fast, 0.10).verdict,
            Verdict::Improvement
        );
        // The same numbers as throughput read the other way round.
        assert_eq!(
            judge(Metric::Throughput, &fast, &slow, 0.10).verdict,
            Verdict::Improvement
        );
        // A 30% change under a 50% threshold is significant but not flagged.
        assert_eq!(
            judge(Metric::P99, &fast, &slow, 0.50).verdict,
            Verdict::BelowThreshold
        );
    }

    #[test]
    fn overlapping_repeats_are_noise_and_missing_data_is_said() {
        let a = side(&[10.0, 10.2, 10.1, 9.9, 10.0, 10.3], &[10.0, 12.0]);
        let b = side(&[13.0, 13.2, 13.1, 12.9, 13.0, 13.3], &[11.0, 13.1]);
        assert_eq!(
            judge(Metric::P99, &a, &b, 0.1).verdict,
            Verdict::WithinNoise
        );
        let few = side(&[13.0, 13.2], &[13.0, 13.1]);
        assert_eq!(
            judge(Metric::P99, &a, &few, 0.1).verdict,
            Verdict::Insufficient
        );
        assert_eq!(
            judge(Metric::P99, &a, &Side::default(), 0.1).verdict,
            Verdict::Failed
        );
    }
}
