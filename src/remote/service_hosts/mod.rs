//! A service host over SSH: this side's typed calls on its session and
//! their wire form, the runtime's sources copied by content hash, and the
//! far side that builds, trains and runs the service and its dependencies
//! there with the same `build`, `service`, `train` and `dependency` code.
pub mod dependency_host;
pub mod service_client;
pub mod service_host;
pub mod service_wire;
pub mod source_copy;
pub mod train_host;
