//! One file per section or key of the spec that has rules of its own: its
//! typed form, its values and its cross-field checks (repeats, affinity,
//! byte sizes, connect rate, dependencies, a request's `expect`, gates,
//! hosts, memory, profile, scenarios, search, verify). The pipeline steps
//! (source, tree, de, extends, validate) call them.
pub mod adaptive;
pub mod affinity;
pub mod byte_size;
pub mod connect_rate;
pub mod dependencies;
pub mod expect;
pub mod gates;
pub mod hosts;
pub mod memory;
pub mod profile;
pub mod protocol;
pub mod scenarios;
pub mod search;
pub mod verify;
