//! Stage `load`: a self-contained HTTP/1.1 load generator (also `runner load URL`).
//!
//! Closed loop (N connections, each sends when the previous answer is read)
//! or open loop (a constant rate on per-connection schedules, latency from
//! the intended send time, so server stalls are not hidden). One worker loop
//! serves both; see docs/load.md for the model, the error classes and the
//! saturation rules. Nothing here imports other pipeline stages (only the
//! shared [`crate::units`] and [`crate::affinity`] below them): the executor
//! calls [`run`] and [`probe`] directly.

pub mod cli;
mod config;
mod connect_phase;
mod connection;
mod control;
mod dynamic;
mod engine;
mod error;
mod fd_limit;
mod memory;
mod mix;
mod pacer;
mod per_request;
mod probe;
mod ramp;
mod recorder;
mod report;
mod schedule;
pub mod target;
mod timer;
mod usage;
mod wire;
mod worker;

pub use config::{Arrival, DEFAULT_MIX_SEED, LoadConfig, RequestSpec, StopCondition};
pub use connect_phase::{ConnectStats, DEFAULT_CONNECT_RATE};
pub use control::LoadControl;
pub use dynamic::resolved_once;
pub use engine::run;
pub use error::{ErrorClass, ErrorCounts, LoadError};
pub use fd_limit::{FileLimit, SPARE_FILES, ensure_open_files};
pub use memory::GeneratorMemory;
pub use per_request::RequestFigures;
pub use probe::{probe, probe_async};
pub use ramp::RampStats;
pub use report::{
    GeneratorUsage, LoadReport, Percentiles, ReportSummary, ScheduleStats, SecondStats,
};
pub use target::{TargetError, TargetPolicy, is_loopback, resolve_target};
pub use wire::{Complete, Malformed, ResponseDecoder, encode_request};
