//! One file per table or record of the run directory beyond the core
//! formats of `model`: its row type, file name and the states it records
//! (dependencies, derived rates, first requests, load hosts, memory phases,
//! NMT, profiles, per-request mixes, search steps, skipped cells, trainings).
pub mod dependencies;
pub mod derived_rates;
pub mod first_requests;
pub mod load_hosts;
pub mod memory_phases;
pub mod nmt;
pub mod profiles;
pub mod request_mix;
pub mod search_steps;
pub mod skipped_cells;
pub mod training;
