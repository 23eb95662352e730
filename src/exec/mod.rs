//! Stage `exec`: see docs/ARCHITECTURE.md.
