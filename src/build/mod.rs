//! Stage `build`: see docs/ARCHITECTURE.md.
