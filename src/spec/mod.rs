//! Stage `spec`: see docs/ARCHITECTURE.md.
