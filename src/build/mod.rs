//! Stage `build`: run a runtime's build commands, skipping them when their
//! inputs did not change since the last successful build.
//!
//! The input hash covers the runtime directory's source files (git-tracked
//! and untracked-but-not-ignored files when the directory is in a git work
//! tree; otherwise every file except build output folders), the build
//! commands and the runtime's environment. The last successful build's hash
//! is kept in `<results>/<experiment>/.build-cache/<runtime>.json`, outside
//! any run, so consecutive runs share it.
pub mod cache;
pub mod error;
pub mod input_hash;
pub mod steps;

pub use cache::{BuildCache, CacheRecord};
pub use error::BuildError;
pub use input_hash::input_hash;
pub use steps::{BuildOutcome, build_runtime, build_runtime_unless, run_logged, shipped_jdk_bytes};
