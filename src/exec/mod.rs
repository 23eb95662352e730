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
pub mod configurations;
pub mod error;
pub mod events;
pub mod handle;
pub mod interrupt;
pub mod measure;
pub mod progress;
pub mod rules;
pub mod site;
pub mod ssh;
pub mod start;
#[cfg(test)]
mod tests;
pub mod walk;

pub use error::ExecError;
pub use events::Event;
pub use site::driver::Driver;
pub use site::processes::Processes;
pub use start::started::{Running, StartFailure};
pub use walk::real::run_for_real;
pub use walk::run::{RunOutcome, RunRequest, run};
