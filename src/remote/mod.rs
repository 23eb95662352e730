//! Stage `remote`: hosts reached over OpenSSH, agentless. runner copies its
//! own binary to a host when that build is absent (`install`, by sha256)
//! and runs `runner remote` there over `ssh` (`session`), speaking JSON
//! lines on stdin/stdout (`protocol`, `wire`). The far side (`server`) runs
//! what it is asked in its own process and ends it all when the session's
//! stdin closes, so a dropped connection leaves nothing running.
//!
//! `drive` runs one load on the declared load hosts: `split` shares the
//! connections and rate, the window starts at one coordinated instant, and
//! `merge` adds the hosts' HdrHistograms exactly. See docs/hosts.md.
pub mod connect;
pub mod error;
pub mod fingerprint;
pub mod load_hosts;
pub mod protocol;
pub mod server;
pub mod service_hosts;
pub mod wire;
pub mod wire_transport;

pub use error::RemoteError;
pub use load_hosts::drive::{HostLoad, HostsLoad, drive};
pub use server::serve;
