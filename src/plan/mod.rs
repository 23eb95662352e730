//! Stage `plan`: Spec -> Plan (see model.rs for the Plan itself).
pub mod model;
pub use model::*;
