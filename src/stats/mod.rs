//! The statistics every verdict uses, as a stage of its own below plan,
//! exec and report: effects and their intervals on the repeat as the unit,
//! Holm's adjustment, Student's t, spreads and medians, a run's repeats and
//! noise, and the verdict rule of a comparison. Pure arithmetic over values
//! already read (the one input type is `results`' measurement row), so
//! `runner plan` (what a design can detect), exec (when adaptive repeats
//! stop, when a warmup has ended) and report (compare, history, wins) share
//! one rule without importing each other.
pub mod effect;
pub mod findings;
pub mod judge;
pub mod moderated;
pub mod outliers;
pub mod repeats;
pub mod run_level;
pub mod spread;

pub use effect::{
    Effect, MAX_REPEATS, MeanInterval, PooledVariance, VarianceTerm, detectable_change, holm,
    log_mean, repeats_needed, se_with_repeats, t_cdf, t_quantile,
};
pub use judge::{
    ALPHA, ConfigJudged, DEFAULT_RULE, Judged, LEVEL, POWER, Pair, Rule, Verdict, judge_all,
    judge_pairs,
};
pub use repeats::{Ahead, Better, ConfigRepeats, Metric, RunNoise, RunRepeats, run_repeats};
pub use run_level::{DEFAULT_FLOOR, Floor, RunLevel, RunLevelNoise, RunLevelSource, RunsOfConfig};
pub use spread::{MannWhitney, Spread, mann_whitney, median, median_of_some, round_to};
