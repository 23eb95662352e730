//! The build steps of a plan, in the order `plan::build_on` calls them:
//! a runtime's templates rendered (`runtime`, `draft`), the matrix and its
//! filter, dependencies, training, per-cell templates and ids (`cell`),
//! start variants, the profiled repeats, the equal-load cells, the
//! assembly; and `restart`, the one rule for a fresh service start.
pub mod assemble;
pub mod cell;
pub mod dependencies;
pub mod draft;
pub mod equal_load;
pub mod filter;
pub mod inputs;
pub mod matrix;
pub mod profile;
pub mod restart;
pub mod runtime;
pub mod training;
pub mod variant;
