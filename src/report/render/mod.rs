//! Rendering: the template context, the template environment and the
//! summary CSVs.
pub mod context;
pub mod csv_out;
pub mod templating;
