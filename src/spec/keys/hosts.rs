//! The `hosts:` section: where the services run (`service`) and where the
//! load generator runs (`load`, one host or several), each `local` (this
//! machine, the default) or reached over OpenSSH (`ssh: user@address`).
//!
//! A remote load host sends load off this machine, so the load generator's
//! loopback-only rule (`load::target`, `--allow-remote` of `runner load`)
//! is lifted for exactly the service host's declared `address` and nothing
//! else: a spec cannot aim load at a host it does not name here.
use std::net::IpAddr;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::spec::validate::Finding;

/// Hosts by role; a section left out means everything on this machine.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a map with service, load")]
pub struct HostsSpec {
    /// Where the services build and run: `local` (default),
    /// `{ address: IP }` (this machine, reached by the load hosts at IP), or
    /// `{ ssh: user@address, ... }` (another machine: the runtimes' sources
    /// are copied there, built and started there by `runner remote`).
    pub service: Option<HostSpec>,
    /// Where the load generator runs: `local` (default), one host, or a list
    /// of hosts (the connections or the open-loop rate are split across them).
    pub load: Option<OneOrMany<HostSpec>>,
}

/// One host, or a list of them.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged, expecting = "one host or a list of hosts")]
pub enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    pub fn as_slice(&self) -> &[T] {
        match self {
            OneOrMany::One(t) => std::slice::from_ref(t),
            OneOrMany::Many(v) => v,
        }
    }
}

/// `local`, or a map: `{ ssh: user@address, port, identity, known_hosts, address }`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(
    untagged,
    expecting = "`local` or a map with ssh, port, identity, known_hosts, address"
)]
pub enum HostSpec {
    /// `local`: this machine.
    Keyword(String),
    Map(HostMap),
}

/// A host reached over OpenSSH (with `ssh`), or this machine at an address.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostMap {
    /// `user@address` (or a `Host` of your OpenSSH config, which is honoured).
    pub ssh: Option<String>,
    /// SSH port (default: OpenSSH's, 22 or the config's).
    pub port: Option<u16>,
    /// Private key file, relative to the spec file's folder.
    pub identity: Option<String>,
    /// known_hosts file to check the host key against (relative to the spec
    /// file's folder); the host key must be known: nothing is accepted blindly.
    pub known_hosts: Option<String>,
    /// The IP address other hosts reach this one at (a load host's target
    /// when this is the service host). Default: the address of `ssh` when it
    /// is an IP.
    pub address: Option<String>,
    /// Folder on the host where runner copies its own binary (default
    /// `.cache/runner`, under the login's home).
    pub dir: Option<String>,
}

/// The one keyword a host may be instead of a map.
pub const LOCAL: &str = "local";

impl HostSpec {
    /// The map form (`local` is an empty map).
    pub fn map(&self) -> HostMap {
        match self {
            HostSpec::Keyword(_) => HostMap::default(),
            HostSpec::Map(m) => m.clone(),
        }
    }

    pub fn is_remote(&self) -> bool {
        matches!(self, HostSpec::Map(HostMap { ssh: Some(_), .. }))
    }
}

impl HostMap {
    /// The address others reach this host at: `address`, else the host part
    /// of `ssh` when it is an IP literal.
    pub fn reach_address(&self) -> Option<IpAddr> {
        if let Some(a) = &self.address {
            return a.parse().ok();
        }
        let ssh = self.ssh.as_deref()?;
        ssh.rsplit('@').next()?.parse().ok()
    }
}

/// Cross-field checks of `hosts:`.
pub fn check_hosts(hosts: &HostsSpec, out: &mut Vec<Finding>) {
    let mut all: Vec<(String, &HostSpec)> = Vec::new();
    if let Some(s) = &hosts.service {
        all.push(("hosts.service".into(), s));
    }
    if let Some(load) = &hosts.load {
        match load {
            OneOrMany::One(h) => all.push(("hosts.load".into(), h)),
            OneOrMany::Many(list) => {
                if list.is_empty() {
                    out.push(Finding {
                        field: "hosts.load".into(),
                        message: "the list of load hosts is empty".into(),
                        help: "name at least one host, or leave `load` out to run the load here"
                            .into(),
                    });
                }
                for (i, h) in list.iter().enumerate() {
                    all.push((format!("hosts.load.{i}"), h));
                }
            }
        }
    }
    for (field, host) in &all {
        check_host(field, host, out);
    }
    let service = hosts
        .service
        .as_ref()
        .map(HostSpec::map)
        .unwrap_or_default();
    let remote_load = hosts
        .load
        .as_ref()
        .is_some_and(|l| l.as_slice().iter().any(HostSpec::is_remote));
    let remote_service = hosts.service.as_ref().is_some_and(HostSpec::is_remote);
    if (remote_load || remote_service) && service.reach_address().is_none() {
        out.push(Finding {
            field: "hosts.service.address".into(),
            message: if remote_load {
                "the load hosts are remote but the service host has no address they can \
                 reach it at"
            } else {
                "the service host is reached over SSH by a name, not an IP address: the load \
                 has no address to aim at"
            }
            .into(),
            help: "give the service host's IP address, e.g. `service: { address: 10.0.0.1 }`, \
                   and let the services listen on it"
                .into(),
        });
    }
    let local_loads = hosts.load.as_ref().map_or(0, |l| {
        l.as_slice().iter().filter(|h| !h.is_remote()).count()
    });
    if remote_load && local_loads > 0 {
        out.push(Finding {
            field: "hosts.load".into(),
            message: "local and remote load hosts are mixed".into(),
            help: "put the load either here (`local`) or on SSH hosts only".into(),
        });
    }
}

fn check_host(field: &str, host: &HostSpec, out: &mut Vec<Finding>) {
    let map = match host {
        HostSpec::Keyword(k) if k == LOCAL => return,
        HostSpec::Keyword(k) => {
            out.push(Finding {
                field: field.into(),
                message: format!("unknown host `{k}`"),
                help: "write `local`, or a map such as `{ ssh: user@10.0.0.2 }`".into(),
            });
            return;
        }
        HostSpec::Map(m) => m,
    };
    if let Some(a) = &map.address
        && a.parse::<IpAddr>().is_err()
    {
        out.push(Finding {
            field: format!("{field}.address"),
            message: format!("`{a}` is not an IP address"),
            help: "give the IP address the other hosts reach this one at, e.g. 10.0.0.1".into(),
        });
    }
    match &map.ssh {
        Some(dest) => {
            let bad = dest.is_empty()
                || dest.starts_with('-')
                || dest.contains(char::is_whitespace)
                || dest.ends_with('@');
            if bad {
                out.push(Finding {
                    field: format!("{field}.ssh"),
                    message: format!("`{dest}` is not an SSH destination"),
                    help: "write `user@address` (or a Host of your OpenSSH config)".into(),
                });
            }
        }
        None => {
            for (key, set) in [
                ("port", map.port.is_some()),
                ("identity", map.identity.is_some()),
                ("known_hosts", map.known_hosts.is_some()),
                ("dir", map.dir.is_some()),
            ] {
                if set {
                    out.push(Finding {
                        field: format!("{field}.{key}"),
                        message: format!("`{key}` needs `ssh`: this host is local"),
                        help: "add `ssh: user@address`, or remove the option".into(),
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ssh(dest: &str) -> HostSpec {
        HostSpec::Map(HostMap {
            ssh: Some(dest.into()),
            ..Default::default()
        })
    }

    fn findings(h: &HostsSpec) -> Vec<String> {
        let mut out = Vec::new();
        check_hosts(h, &mut out);
        out.into_iter().map(|f| f.field).collect()
    }

    #[test]
    fn remote_load_needs_a_service_address() {
        let h = HostsSpec {
            service: None,
            load: Some(OneOrMany::One(ssh("runner@10.213.0.11"))),
        };
        assert_eq!(findings(&h), ["hosts.service.address"]);
        let h = HostsSpec {
            service: Some(HostSpec::Map(HostMap {
                address: Some("10.213.0.1".into()),
                ..Default::default()
            })),
            ..h
        };
        assert!(findings(&h).is_empty(), "{:?}", findings(&h));
    }

    #[test]
    fn bad_destinations_keywords_and_local_options_are_refused() {
        let h = HostsSpec {
            service: Some(HostSpec::Keyword("here".into())),
            load: Some(OneOrMany::Many(vec![
                ssh("-oProxyCommand=x"),
                HostSpec::Map(HostMap {
                    port: Some(22),
                    ..Default::default()
                }),
            ])),
        };
        assert_eq!(
            findings(&h),
            [
                "hosts.service",
                "hosts.load.0.ssh",
                "hosts.load.1.port",
                // No address to aim the remote load at, and local + remote mixed.
                "hosts.service.address",
                "hosts.load"
            ]
        );
    }

    #[test]
    fn a_remote_service_host_is_accepted_and_needs_an_ip_to_be_loaded() {
        let h = HostsSpec {
            service: Some(ssh("runner@10.213.0.20")),
            load: Some(OneOrMany::Many(vec![
                ssh("runner@10.213.0.11"),
                ssh("runner@10.213.0.12"),
            ])),
        };
        assert!(findings(&h).is_empty(), "{:?}", findings(&h));
        let by_name = HostsSpec {
            service: Some(ssh("runner@svc-box")),
            load: None,
        };
        assert_eq!(findings(&by_name), ["hosts.service.address"]);
    }

    #[test]
    fn the_reach_address_defaults_to_the_ssh_address() {
        let m = HostSpec::Map(HostMap {
            ssh: Some("u@10.1.2.3".into()),
            ..Default::default()
        })
        .map();
        assert_eq!(m.reach_address(), Some("10.1.2.3".parse().unwrap()));
        let named = ssh("u@box").map();
        assert_eq!(named.reach_address(), None);
    }
}
