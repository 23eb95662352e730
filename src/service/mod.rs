//! Stage `service`: see docs/ARCHITECTURE.md.
