//! The walk over the plan: order, restarts, skips, resume and
//! interruption through a `Driver`; the dependencies' part of the walk,
//! adaptive repeats (which planned repeats are still wanted), the
//! equal-load rates derived from the closed-loop pass, a run with the
//! real driver, and the rendered `files:` kept in the run directory.
pub mod certificates;
pub mod derived_rates;
pub mod real;
pub mod rendered_files;
pub mod repeats;
pub mod run;
