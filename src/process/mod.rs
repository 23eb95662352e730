//! Running a runtime's commands as child processes: what `build` (build
//! commands), `service` (the measured start) and `train` share, so that none
//! of them imports another for it.
//!
//! - [`env`](mod@env): the environment every command of a runtime runs with;
//! - [`spawn`]: contained spawning (own session, parent-death signal, CPU
//!   pinning) and signalling a whole process group;
//! - [`open_files`]: a child's soft RLIMIT_NOFILE raised to the hard limit;
//! - [`exit`]: how a child ended (`exit code 3`, `signal 9 (KILL)`);
//! - [`log_tail`]: the last lines of a log, quoted in errors and failed rows.
pub mod env;
pub mod exit;
pub mod log_tail;
pub mod open_files;
pub mod spawn;

pub use env::runtime_env;
pub use exit::describe_exit;
pub use log_tail::{one_line, tail};
pub use spawn::{Containment, signal_group, spawn_contained};
