//! What can be said of a plan before it runs: its wall-time estimate, the
//! last comparable run, and what its repeats can detect with compare's
//! rule (`design`).
pub mod design;
pub mod estimate;
pub mod last_run;
