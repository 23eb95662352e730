//! Stage `service`: start a service in its own session, wait for health,
//! stop it gracefully, and make sure nothing of it outlives the runner.
//!
//! Containment, in three layers (the first two are [`crate::process::spawn`]):
//! 1. `setsid` before exec: the start command and everything it forks share
//!    one session / process group, signalled as a whole;
//! 2. `PR_SET_PDEATHSIG(SIGKILL)` on the start shell, spawned from a
//!    long-lived thread (the signal fires when the spawning *thread* exits);
//! 3. a guard process per service (see [`guard`]) that SIGKILLs the whole
//!    group when the runner dies in any way, even by SIGKILL, covering the
//!    grandchildren that PDEATHSIG does not reach;
//! 4. where the host allows it, a cgroup per start ([`contain`], made by
//!    [`crate::cgroup`]) that the child joins before it execs: a daemon that
//!    double-forks and calls `setsid` leaves the session but not the cgroup,
//!    and the stop and the guard kill the cgroup whole.
pub mod contain;
pub mod error;
pub mod guard;
pub mod http_probe;
pub mod launch;
pub mod listening;
pub mod log_cap;
pub mod port;
pub mod process;
pub mod readiness;
pub mod scratch;
pub mod startup;
pub mod thread_dump;

pub use error::ServiceError;
pub use http_probe::{HttpProbeError, http_status};
pub use port::{PortInUse, PortMoment, check_port_free, port_is_free};
pub use process::{Service, ServiceCommand, StopKind, StopReport};
pub use startup::{NotReady, StartupTimes};
