//! Reaching a host: the `ssh` command line and its one master connection
//! per host, the runner's own binary installed there by hash, one
//! `runner remote` session over ssh, and the load hosts' sessions kept
//! between loads.
pub mod install;
pub mod pool;
pub mod session;
pub mod ssh;
