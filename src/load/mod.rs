//! Stage `load`: a self-contained HTTP load generator (also `runner load URL`):
//! HTTP/1.1, over TLS (rustls) too, and HTTP/2 (over TLS with ALPN h2, or h2c).
//!
//! Closed loop (N connections, each sends when the previous answer is read)
//! or open loop (a constant rate on per-connection schedules, latency from
//! the intended send time, so server stalls are not hidden). One worker loop
//! serves both; see docs/load.md for the model, the error classes and the
//! saturation rules. Nothing here imports other pipeline stages (only the
//! shared [`crate::units`] and [`crate::affinity`] below them): the executor
//! calls [`run`] and [`probe`] directly.

pub mod cli;
mod cli_render;
pub mod cli_transport;
mod config;
mod control;
pub mod engine;
mod error;
pub mod http;
pub mod measure;
pub mod net;
mod probe;
mod report;
pub mod target;
mod transport;

pub use config::{Arrival, DEFAULT_MIX_SEED, LoadConfig, RequestSpec, StopCondition};
pub use control::LoadControl;
pub use engine::connect_phase::{ConnectStats, DEFAULT_CONNECT_RATE};
pub use engine::fd_limit::{FileLimit, SPARE_FILES, ensure_open_files};
pub use engine::ramp::RampStats;
pub use engine::threads::run;
pub use error::{ErrorClass, ErrorCounts, LoadError};
pub use http::dynamic::resolved_once;
pub use http::wire::{Complete, Malformed, ResponseDecoder, encode_request};
pub use measure::memory::GeneratorMemory;
pub use measure::per_request::RequestFigures;
pub use net::stats::{H2Report, Negotiated, TlsReport, TransportReport};
pub use net::tls_error::TlsFailure;
pub use probe::{ProbeAnswer, probe, probe_answer, probe_answer_over, probe_async};
pub use report::{
    GeneratorUsage, LoadReport, Percentiles, ReportSummary, ScheduleStats, SecondStats,
};
pub use target::{TargetError, TargetPolicy, is_loopback, resolve_target};
pub use transport::{Protocol, Reuse, Transport, Trust};
