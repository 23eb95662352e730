//! Per-key resolvers above the contract: limits per cell, the built-in
//! PostgreSQL recipe, ports, CPU pinning, `--repeats N`, verify vectors,
//! the `verify:` requests, the `version:` commands, `health:` (one
//! rendering for runtimes and dependencies), a request's `expect:` and
//! which caller variables a runtime's commands get (`pass_env:`,
//! `command_env`) and a runtime built from a git revision (`source:`).
pub mod command_env;
pub mod expect;
pub mod health;
pub mod limits;
pub mod pinning;
pub mod ports;
pub mod postgres;
pub mod protocol;
pub mod repeats_cap;
pub mod source;
pub mod vectors;
pub mod verify_requests;
pub mod versions;
