//! Stage `sample`: the service's resources (RSS, CPU time, threads) over time.
//!
//! The service runs in its own session (see `service`), so "the service's
//! process tree" is every live process of that session: a scan of
//! /proc/<pid>/stat finds them all, including children the start script
//! forked and orphans it left behind, at the cost of one small read per
//! process on the host (see docs/exec.md for the measured overhead).
pub mod host_cpu;
pub mod procfs;
pub mod sampler;

pub use procfs::{TreeUsage, session_alive, session_pids, session_usage};
pub use sampler::{Sampler, SamplerOutput};
