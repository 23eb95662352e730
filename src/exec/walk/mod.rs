//! The walk over the plan: order, restarts, skips, resume and
//! interruption through a `Driver`; the dependencies' part of the walk,
//! adaptive repeats (which planned repeats are still wanted), the
//! equal-load rates derived from the closed-loop pass, and a run with the
//! real driver.
pub mod derived_rates;
pub mod real;
pub mod repeats;
pub mod run;
