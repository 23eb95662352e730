//! Stage `exec`: the orchestrator behind `runner exec SPEC`.
//!
//! It walks the Plan's cells in order, one service at a time: preflight
//! (everything checkable, all problems at once, nothing started), builds
//! (cached by input hash), training, then per service start: health,
//! first request, idle RSS, service warmup, training evidence; per cell:
//! warmup, measured window with resource sampling, the row flushed at once.
//! Faults are recorded, not fatal: a dying service fails its cell and is
//! restarted (up to `max_restarts`), a failed build or health timeout skips
//! its runtime. SIGINT/SIGTERM stop the service, write no partial row and
//! mark the run interrupted; `--resume` continues it. See docs/exec.md.
//!
//! Progress goes out as [`Event`]s; [`progress`] renders them.
#[cfg(test)]
mod adaptive_tests;
pub mod cell;
pub mod cell_facts;
pub mod cold_start;
pub mod configurations;
pub mod connections;
pub mod containment;
pub mod context;
pub mod dependencies;
pub mod dependency_schedule;
#[cfg(test)]
mod dependency_tests;
pub mod derived_rates;
pub mod driver;
#[cfg(test)]
mod equal_load_tests;
pub mod error;
pub mod events;
pub mod facts;
#[cfg(test)]
mod fake;
pub mod first_requests;
pub mod gates;
pub mod interrupt;
pub mod lifecycle;
pub mod load_config;
pub mod memory_phases;
pub mod nmt;
#[cfg(test)]
mod orchestration_tests;
pub mod processes;
pub mod profiling;
pub mod progress;
pub mod provenance;
pub mod real;
pub mod remote_cell;
pub mod remote_driver;
pub mod remote_load;
pub mod remote_service;
pub mod remote_training;
pub mod repeats;
pub mod request_mix;
pub mod row;
pub mod run;
#[cfg(test)]
mod scenario_tests;
pub mod search;
pub mod search_rule;
#[cfg(test)]
mod start_variant_tests;
pub mod started;
pub mod training;
pub mod verdict;
pub mod warmup;
pub mod warmup_rule;
pub mod window;

pub use driver::Driver;
pub use error::ExecError;
pub use events::Event;
pub use processes::Processes;
pub use real::run_for_real;
pub use run::{RunOutcome, RunRequest, run};
pub use started::{Running, StartFailure};
