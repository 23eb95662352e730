//! Stage `sample`: the service's resources (RSS, CPU time, threads) over time.
//!
//! The service runs in its own session (see `service`), so "the service's
//! process tree" is every live process of that session: a scan of
//! /proc/<pid>/stat finds them all, including children the start script
//! forked and orphans it left behind, at the cost of one small read per
//! process on the host (see docs/exec.md for the measured overhead).
//!
//! Where the service has a cgroup (see `crate::cgroup`), the sampler also
//! reads it: CPU of the whole cgroup, memory, tasks, PSS and fds
//! ([`cgroup_stats`] turns the samples into the cell's figures).
pub mod cgroup_stats;
pub mod host_cpu;
pub mod memory_reading;
pub mod procfs;
pub mod sampler;

pub use memory_reading::MemoryReading;
pub use procfs::{TreeUsage, session_alive, session_pids, session_usage};
pub use sampler::{Sampler, SamplerOutput};
