//! Profiling a measured window: the collectors of `profile:` (JVM GC log,
//! JFR, async-profiler; Go pprof and GC pauses; Linux perf), their
//! artifacts bounded in size, folded stacks and self-contained SVG flame
//! graphs, and the GC pauses of each window beside its tail latency.
//!
//! Nothing here fails a cell: a collector that cannot run says why in its
//! profiles.csv row ([`crate::results::rows::profiles`]). `exec` opens a
//! [`window::Window`] around a profiled cell's measured load and reads the
//! GC pauses of every cell of a profiled runtime.
pub mod error;
pub mod folded;
pub mod gc_log;
pub mod go;
pub mod jvm;
pub mod nmt;
pub mod pauses;
pub mod perf;
pub mod pprof;
pub mod window;

pub use error::ProfileError;
pub use pauses::{Pause, PauseFacts};
pub use window::{Target, Window};
