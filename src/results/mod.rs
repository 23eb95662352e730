//! Stage `results`: the run directory (formats in model.rs).
//!
//! exec writes a run through [`RunDir`]; report reads the same files back.
//! Everything here is written so that a run killed at any moment leaves a
//! valid, resumable directory: CSV rows are flushed one by one, JSON files are
//! replaced atomically.
pub mod environment;
pub mod error;
pub mod format;
pub mod host_environment;
pub mod model;
pub mod provenance;
pub mod read;
pub mod rows;
pub mod states;
pub mod write;

pub use error::ResultsError;
pub use format::{JSON_FORMAT_VERSION, Versioned, versioned};
pub use host_environment::{HostEnvironment, HostRole, host_differences};
pub use model::*;
pub use read::csv_read::{CsvReadError, read_csv};
pub use read::run_data::RunData;
pub use read::run_read_error::RunReadError;
pub use rows::dependencies::{
    DEPENDENCY_STATS_FILE, DEPENDENCY_USAGE_FILE, DependencyStatsRow, DependencyUsageRow,
};
pub use rows::first_requests::{FIRST_REQUESTS_FILE, FirstRequestRow};
pub use rows::load_hosts::{LOAD_HOSTS_DIR, LoadHostRow};
pub use rows::memory_phases::{MEMORY_PHASES_FILE, MemoryPhaseRow, MemoryPhaseStatus};
pub use rows::nmt::{NMT_FILE, NmtRow, NmtStatus};
pub use rows::request_mix::{REQUESTS_DIR, RequestMixRow};
pub use rows::search_steps::{SEARCH_DIR, SearchStepRow};
pub use rows::skipped_cells::SkippedCell;
pub use write::csv_append::{CsvAppender, write_csv, write_csv_atomic};
pub use write::run_dir::RunDir;
pub use write::run_id::{new_run_id, rfc3339_now};
