//! Stage `train`: a training run that produces an artifact the measured
//! runs use. Generic on purpose, one shape for every kind of training:
//!
//! 1. start the service with the training command (e.g. a JVM with
//!    `-XX:AOTMode=record`), wait for health;
//! 2. drive the training workload (the caller supplies the driver, normally
//!    the built-in load generator);
//! 3. stop it gracefully (the JVM writes its AOT configuration at exit);
//! 4. run the `after` commands (e.g. `-XX:AOTMode=create`, or a Go rebuild
//!    with `-pgo`);
//! 5. check the declared `produces` files exist and are non-empty.
//!
//! Proof that the measured runs use the artifact is checked by exec with
//! [`evidence::find_evidence`] on the measured service's log.
pub mod error;
pub mod evidence;
pub mod job;
pub mod phase;
pub mod provenance;

pub use error::TrainError;
pub use evidence::find_evidence;
pub use job::{TrainJob, driver_figures};
pub use phase::{TrainOutcome, run_job, train_runtime};
