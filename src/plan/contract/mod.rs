//! The Plan contract (`model`: what every later stage reads) and the
//! per-key parts it is made of, each with the resolution that needs only
//! the spec and the model: repeats and warmups (`adaptive`), gates, hosts,
//! memory phases, scenarios, search, dependencies (`dependency_plan`), a
//! cell's start variant and a runtime's profile types.
pub mod adaptive;
pub mod dependency_plan;
pub mod gates;
pub mod hosts;
pub mod memory;
pub mod model;
pub mod profile_plan;
pub mod protocol_plan;
pub mod ready_stop;
pub mod scenarios;
pub mod scratch_plan;
pub mod search;
pub mod start_variant;
pub mod version_plan;
