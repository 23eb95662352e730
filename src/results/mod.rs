//! Stage `results`: the run directory (formats in model.rs).
pub mod model;
pub use model::*;
