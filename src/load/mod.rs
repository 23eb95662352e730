//! Stage `load`: see docs/ARCHITECTURE.md.
