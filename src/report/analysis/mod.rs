//! The run's figures: the per-cell summary (`cells`, lowest) and what is
//! derived from it (pairs, wins, efficiency, axis effects, equal load, cold
//! starts), rolled up in `summary::Summary`; `format` is the number
//! formatting every table and chart shares.
pub mod axis_effects;
pub mod cells;
pub mod cold_starts;
pub mod comparable;
pub mod efficiency;
pub mod equal_load;
pub mod findings;
pub mod format;
pub mod pairs;
pub mod reasons;
pub mod summary;
pub mod wins;
