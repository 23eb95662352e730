//! The driver for a service on an SSH service host: its sources copied,
//! built, trained, started, measured and stopped there through one
//! session; the service's handle over that session (its log copied back,
//! its liveness and memory asked of the far side, its guarded load), a
//! cell against it, and a training there. The only part of exec that names
//! the SSH types of `remote` (with the load hosts' split in
//! `measure::remote_load`).
pub mod remote_cell;
pub mod remote_driver;
pub mod remote_service;
pub mod remote_training;
