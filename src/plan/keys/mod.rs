//! Per-key resolvers above the contract: limits per cell, the built-in
//! PostgreSQL recipe, ports, CPU pinning, `--repeats N`, verify vectors,
//! the `verify:` requests, the `version:` commands, `health:` (one
//! rendering for runtimes and dependencies) and a request's `expect:`.
pub mod expect;
pub mod health;
pub mod limits;
pub mod pinning;
pub mod ports;
pub mod postgres;
pub mod protocol;
pub mod repeats_cap;
pub mod vectors;
pub mod verify_requests;
pub mod versions;
