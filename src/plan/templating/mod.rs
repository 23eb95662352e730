//! Templating: strict minijinja (`template`), the one `Renderer` every
//! templated field goes through (`render`), and `seq`/`rand(lo, hi)` in a
//! request's path and body rendered as placeholders for the load generator
//! (`dynamic`).
pub mod dynamic;
pub mod render;
pub mod template;
