//! The subcommands' compositions, above every stage: where one command runs
//! several stages in turn (`runner exec`: spec, plan, exec, then report; `runner nightly`:
//! exec, then a judgement against the experiment's history).
//! A stage never calls a stage above it; what chains them lives here, so the
//! stage order can follow the data flow (report after exec).
pub mod exec;
pub mod nightly;
pub mod store;

pub use exec::{ExecDone, ExecOptions, exec_command, exec_run};
pub use nightly::nightly_command;
