//! nmt.csv: Native Memory Tracking of the Java cells whose JVM tracks it
//! (`-XX:NativeMemoryTracking=summary` or `detail`), read with `jcmd <pid>
//! VM.native_memory summary` right after each measured window. One row per
//! cell; a jcmd that failed is a row with `status` failed and why, never
//! the cell's failure.
use serde::{Deserialize, Serialize};

pub const NMT_FILE: &str = "nmt.csv";

/// nmt.csv `status`: whether the summary was read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NmtStatus {
    Ok,
    /// jcmd could not run or answered no summary (`reason` says why).
    #[default]
    Failed,
}

/// One row of nmt.csv: totals and the committed bytes of the categories
/// every JVM has (the rest summed in `other_committed_bytes`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NmtRow {
    pub cell_id: String,
    pub config_id: String,
    pub runtime: String,
    pub repeat: u32,
    pub status: NmtStatus,
    pub reason: String,
    pub reserved_bytes: Option<u64>,
    pub committed_bytes: Option<u64>,
    pub java_heap_committed_bytes: Option<u64>,
    pub class_committed_bytes: Option<u64>,
    pub metaspace_committed_bytes: Option<u64>,
    pub thread_committed_bytes: Option<u64>,
    pub code_committed_bytes: Option<u64>,
    pub gc_committed_bytes: Option<u64>,
    pub compiler_committed_bytes: Option<u64>,
    pub internal_committed_bytes: Option<u64>,
    pub symbol_committed_bytes: Option<u64>,
    pub shared_class_space_committed_bytes: Option<u64>,
    /// Every other category (Arena Chunk, Module, Tracing, NMT itself, ...).
    pub other_committed_bytes: Option<u64>,
    /// The service's largest RSS over the window (measurements.csv
    /// `service_rss_max_bytes`), beside which NMT is read.
    pub service_rss_max_bytes: Option<u64>,
}
