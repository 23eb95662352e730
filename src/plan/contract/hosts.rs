//! The spec's `hosts:` resolved: file paths made absolute, every host named,
//! the service host's address fixed. exec reads only this.
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::spec::keys::hosts::{HostSpec, HostsSpec};

/// Where runner keeps its binary on a host, under the login's home.
pub const DEFAULT_REMOTE_DIR: &str = ".cache/runner";

/// Where the services and the load generator run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hosts {
    pub service: Host,
    /// One or more; several split the load between them.
    pub load: Vec<Host>,
}

/// One host.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Host {
    /// `local`, or the SSH destination (what reports and environment.json show).
    pub name: String,
    pub reach: Reach,
    /// The address other hosts reach this one at (`None`: loopback only).
    pub address: Option<IpAddr>,
}

/// How a host is reached.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Reach {
    Local,
    Ssh(SshTarget),
}

/// The options of one `ssh` invocation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SshTarget {
    pub destination: String,
    pub port: Option<u16>,
    pub identity: Option<PathBuf>,
    pub known_hosts: Option<PathBuf>,
    /// Folder on the host for the runner binary (relative: to the login's home).
    pub dir: String,
}

impl Host {
    pub fn local() -> Host {
        Host {
            name: crate::spec::keys::hosts::LOCAL.into(),
            reach: Reach::Local,
            address: None,
        }
    }

    pub fn ssh(&self) -> Option<&SshTarget> {
        match &self.reach {
            Reach::Ssh(t) => Some(t),
            Reach::Local => None,
        }
    }
}

impl Default for Hosts {
    fn default() -> Self {
        Hosts {
            service: Host::local(),
            load: vec![Host::local()],
        }
    }
}

impl Hosts {
    /// Whether the load runs anywhere but here.
    pub fn remote_load(&self) -> bool {
        self.load.iter().any(|h| h.ssh().is_some())
    }

    /// The resolved section; paths relative to `base_dir` (the spec's folder).
    pub fn of(spec: Option<&HostsSpec>, base_dir: &Path) -> Hosts {
        let Some(spec) = spec else {
            return Hosts::default();
        };
        let load: Vec<Host> = spec
            .load
            .as_ref()
            .map(|l| l.as_slice().iter().map(|h| host(h, base_dir)).collect())
            .unwrap_or_default();
        Hosts {
            service: spec
                .service
                .as_ref()
                .map_or_else(Host::local, |h| host(h, base_dir)),
            load: if load.is_empty() {
                vec![Host::local()]
            } else {
                load
            },
        }
    }
}

fn host(spec: &HostSpec, base_dir: &Path) -> Host {
    let map = spec.map();
    let path = |p: &Option<String>| p.as_ref().map(|p| crate::spec::absolute(&base_dir.join(p)));
    match &map.ssh {
        Some(dest) => Host {
            name: dest.clone(),
            reach: Reach::Ssh(SshTarget {
                destination: dest.clone(),
                port: map.port,
                identity: path(&map.identity),
                known_hosts: path(&map.known_hosts),
                dir: map.dir.clone().unwrap_or_else(|| DEFAULT_REMOTE_DIR.into()),
            }),
            address: map.reach_address(),
        },
        None => Host {
            address: map.reach_address(),
            ..Host::local()
        },
    }
}
