//! What a load measures: latency histograms, errors and the timeline, the
//! per-request figures of a mix, the generator's own CPU and run-queue
//! wait, and its memory.
pub(crate) mod memory;
pub(crate) mod per_request;
pub(crate) mod recorder;
pub(crate) mod usage;
