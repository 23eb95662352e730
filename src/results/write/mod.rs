//! Writing a run: the run directory and its id, CSV rows flushed one by one
//! and JSON replaced atomically, and what resuming a run reads of it.
pub mod csv_append;
pub mod resume;
pub mod run_dir;
pub mod run_id;
