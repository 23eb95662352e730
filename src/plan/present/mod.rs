//! `runner plan`'s presentation: the table and JSON (`show`), each fresh
//! start's resolved JDK, flags and env (`show_variants`), the dependencies
//! (`show_dependencies`).
pub mod show;
pub mod show_dependencies;
pub mod show_variants;
