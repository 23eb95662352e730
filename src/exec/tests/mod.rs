//! The orchestration's tests: a scripted driver (`fake`) and the walk's
//! policy tested with it (restarts, skips, resume, adaptive repeats, equal
//! load, dependencies, scenarios, start variants).
pub(crate) mod adaptive_tests;
pub(crate) mod dependency_tests;
pub(crate) mod equal_load_tests;
pub(crate) mod fake;
pub(crate) mod orchestration_tests;
pub(crate) mod scenario_tests;
pub(crate) mod start_variant_tests;
