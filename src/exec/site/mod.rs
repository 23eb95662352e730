//! Where the walk's calls touch the world: the `Driver` trait (every call
//! that builds, trains, starts, measures or stops) and its implementation
//! for services on this host, `Processes`.
pub mod driver;
pub mod processes;
