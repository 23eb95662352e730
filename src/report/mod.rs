//! Stage `report`: see docs/ARCHITECTURE.md.
