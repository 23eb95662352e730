//! One service start and what hangs on it: the measured start with its
//! lifecycle row (provenance checked, first requests timed, idle RSS,
//! containment observed), cold starts, the memory phases' fresh starts,
//! training, and the run's side of the dependencies.
pub mod cold_start;
pub mod containment;
pub mod dependencies;
pub mod first_requests;
pub mod lifecycle;
pub mod memory_phases;
pub mod provenance;
pub mod site;
pub mod started;
pub mod training;
