//! Stage `results`: the run directory (formats in model.rs).
//!
//! exec writes a run through [`RunDir`]; report reads the same files back.
//! Everything here is written so that a run killed at any moment leaves a
//! valid, resumable directory: CSV rows are flushed one by one, JSON files are
//! replaced atomically.
pub mod csv_append;
pub mod csv_read;
pub mod dependencies;
pub mod derived_rates;
pub mod environment;
pub mod error;
pub mod first_requests;
pub mod host_environment;
pub mod load_hosts;
pub mod memory_phases;
pub mod model;
pub mod nmt;
pub mod profiles;
pub mod request_mix;
pub mod resume;
pub mod run_data;
pub mod run_dir;
pub mod run_id;
pub mod run_read_error;
pub mod search_steps;
pub mod skipped_cells;
pub mod states;
pub mod training;
pub mod training_view;

pub use csv_append::{CsvAppender, write_csv, write_csv_atomic};
pub use csv_read::{CsvReadError, read_csv};
pub use dependencies::{
    DEPENDENCY_STATS_FILE, DEPENDENCY_USAGE_FILE, DependencyStatsRow, DependencyUsageRow,
};
pub use error::ResultsError;
pub use first_requests::{FIRST_REQUESTS_FILE, FirstRequestRow};
pub use host_environment::{HostEnvironment, HostRole, host_differences};
pub use load_hosts::{LOAD_HOSTS_DIR, LoadHostRow};
pub use memory_phases::{MEMORY_PHASES_FILE, MemoryPhaseRow, MemoryPhaseStatus};
pub use model::*;
pub use nmt::{NMT_FILE, NmtRow, NmtStatus};
pub use request_mix::{REQUESTS_DIR, RequestMixRow};
pub use run_data::RunData;
pub use run_dir::RunDir;
pub use run_id::{new_run_id, rfc3339_now};
pub use run_read_error::RunReadError;
pub use search_steps::{SEARCH_DIR, SearchStepRow};
pub use skipped_cells::SkippedCell;
