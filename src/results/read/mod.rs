//! Reading a run back: the one CSV reader (rows named by file, line and
//! column), a run directory read whole (`RunData`, what report and
//! `runner plan` read), the trainings' records beside their files' hashes,
//! where a run's files come from (its folder, or a results store's copy)
//! and why a read failed.
pub mod csv_read;
pub mod run_data;
pub mod run_files;
pub mod run_read_error;
pub mod training_view;
