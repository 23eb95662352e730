//! Dependencies (a database, downstream stubs): what a runtime needs
//! running beside it, started, reset, checked, sampled and stopped by the
//! same code wherever they run: a run on this host (`exec`), `runner
//! verify`, or the far side of a service host over SSH (`remote`), which is
//! why this is a stage of its own below both.
mod lifecycle;
pub mod stats;
mod window;

pub use lifecycle::{Dependencies, DependencyError, Site};
pub use window::{DependencyReading, Window};
