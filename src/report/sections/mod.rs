//! The report's sections read from the run beyond the summary: each file
//! computes one section's view from the run directory.
pub mod adaptive;
pub mod connections;
pub mod dependencies;
pub mod first_requests;
pub mod memory_phases;
pub mod nmt;
pub mod outliers;
pub mod profiles;
pub mod protocols;
pub mod registry;
pub mod request_mix;
pub mod scenarios;
pub mod search;
pub mod verdict;
