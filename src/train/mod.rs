//! Stage `train`: see docs/ARCHITECTURE.md.
