//! `runner`: a declarative experiment runner for HTTP service benchmarks.
//!
//! The crate is laid out as a pipeline, one module per stage, data flowing
//! forward only: spec -> plan -> exec (preflight, build, train, service, load,
//! sample) -> results -> report. Which module may import which is the stage
//! order in docs/ARCHITECTURE.md, checked by tests/architecture.rs; `units`
//! (durations) and `affinity` (CPU pinning) sit below every stage.
pub mod affinity;
pub mod app;
pub mod build;
pub mod certs;
pub mod cgroup;
pub mod dependency;
pub mod exec;
pub mod load;
pub mod plan;
pub mod preflight;
pub mod process;
pub mod profile;
pub mod remote;
pub mod report;
pub mod results;
pub mod sample;
pub mod service;
pub mod spec;
pub mod stats;
pub mod store;
pub mod train;
pub mod units;
pub mod verify;
