//! Stage `sample`: see docs/ARCHITECTURE.md.
