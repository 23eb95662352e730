//! The toolchains a plan names: JDKs looked up and their versions read
//! (`java`), and the programs preflight looks for before and after a build
//! (`tools`).
pub mod java;
pub mod tools;
