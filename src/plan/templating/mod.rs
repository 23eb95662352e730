//! Templating: strict minijinja (`template`), the one `Renderer` every
//! templated field goes through (`render`), and `seq`/`rand(lo, hi)` in a
//! request's path and body rendered as placeholders for the load generator
//! (`dynamic`); a runtime's `files:`, rendered into its scratch folder
//! (`files`).
pub mod dynamic;
pub mod files;
pub mod render;
pub mod template;
