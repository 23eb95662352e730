//! Where load may be sent: this host only, unless the user says otherwise.
//!
//! A load generator aimed at another host is a denial-of-service tool, and a
//! typo (`10.0.0.1` for `127.0.0.1`) or a name that resolves somewhere
//! unexpected must not turn a benchmark into one. So a target must resolve
//! to a loopback address (127.0.0.0/8, ::1) unless the caller allows remote
//! targets; `runner load` allows them with `--allow-remote`, and a spec will
//! name its own switch in `allowed_by`. The check runs before any request.
use std::io;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};

/// Whether targets off this host are allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetPolicy {
    /// Only loopback addresses (the default everywhere).
    LoopbackOnly {
        /// What the user writes to allow others (e.g. `--allow-remote`),
        /// named in the refusal.
        allowed_by: &'static str,
    },
    /// Any address the name resolves to.
    AllowRemote,
}

/// Why a target was not accepted.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error(
        "refusing to send load to {addr}{}: it is not a loopback address, and the load \
         generator only loads this host unless told otherwise; use 127.0.0.1 or localhost, or pass \
         {allowed_by} to load a host you are allowed to load",
        resolved_from(host, addr)
    )]
    Remote {
        host: String,
        addr: SocketAddr,
        allowed_by: &'static str,
    },
    #[error(
        "refusing to send load to `{host}`: it does not resolve to a loopback address ({cause}); \
         use 127.0.0.1 or localhost, or pass {allowed_by} to load a host you are allowed to load"
    )]
    Unresolved {
        host: String,
        cause: io::Error,
        allowed_by: &'static str,
    },
    #[error("cannot resolve `{host}`: {cause}; check the host name")]
    Resolve { host: String, cause: io::Error },
    #[error("`{host}` resolves to no address; check the host name")]
    NoAddress { host: String },
}

/// ` (what `name:port` resolves to)` when the user wrote a name, not the address.
fn resolved_from(host: &str, addr: &SocketAddr) -> String {
    if host == addr.to_string() {
        String::new()
    } else {
        format!(" (what `{host}` resolves to)")
    }
}

impl TargetError {
    /// True when the target was refused by the policy (not a lookup failure).
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            TargetError::Remote { .. } | TargetError::Unresolved { .. }
        )
    }
}

/// True for addresses that never leave this host: 127.0.0.0/8, ::1 and
/// IPv4-mapped 127.x (`::ffff:127.0.0.1`).
pub fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// Resolves `host_port` (`name:port`, `1.2.3.4:port`, `[::1]:port`) to the
/// one address load goes to (the first IPv4 one, else the first), and
/// refuses it unless it is loopback or `policy` allows remote targets.
pub fn resolve_target(host_port: &str, policy: TargetPolicy) -> Result<SocketAddr, TargetError> {
    let host = host_port.to_string();
    let addrs: Vec<SocketAddr> = match host_port.to_socket_addrs() {
        Ok(addrs) => addrs.collect(),
        Err(cause) => {
            return Err(match policy {
                TargetPolicy::LoopbackOnly { allowed_by } => TargetError::Unresolved {
                    host,
                    cause,
                    allowed_by,
                },
                TargetPolicy::AllowRemote => TargetError::Resolve { host, cause },
            });
        }
    };
    let addr = addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or(addrs.first())
        .copied()
        .ok_or_else(|| TargetError::NoAddress { host: host.clone() })?;
    match policy {
        TargetPolicy::LoopbackOnly { allowed_by } if !is_loopback(addr.ip()) => {
            Err(TargetError::Remote {
                host,
                addr,
                allowed_by,
            })
        }
        _ => Ok(addr),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCAL: TargetPolicy = TargetPolicy::LoopbackOnly {
        allowed_by: "--allow-remote",
    };

    #[test]
    fn loopback_addresses_are_accepted() {
        for host in ["127.0.0.1:80", "127.1.2.3:80", "[::1]:80", "localhost:80"] {
            let addr = resolve_target(host, LOCAL).unwrap_or_else(|e| panic!("{host}: {e}"));
            assert!(is_loopback(addr.ip()), "{host} -> {addr}");
        }
        assert!(is_loopback("::ffff:127.0.0.1".parse().unwrap()));
    }

    #[test]
    fn other_addresses_are_refused_naming_address_and_switch() {
        for host in [
            "10.255.255.1:9",
            "0.0.0.0:80",
            "[2001:db8::1]:80",
            "[::ffff:10.0.0.1]:80",
        ] {
            let err = resolve_target(host, LOCAL).expect_err(host);
            assert!(matches!(err, TargetError::Remote { .. }), "{host}: {err}");
            let text = err.to_string();
            assert!(text.contains("not a loopback address"), "{text}");
            assert!(text.contains("--allow-remote"), "{text}");
        }
        let err = resolve_target("10.255.255.1:9", LOCAL)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("refusing to send load to 10.255.255.1:9"),
            "{err}"
        );
    }

    #[test]
    fn allowing_remote_targets_accepts_them_without_sending_anything() {
        let addr = resolve_target("10.255.255.1:9", TargetPolicy::AllowRemote).unwrap();
        assert_eq!(addr, "10.255.255.1:9".parse().unwrap());
    }
}
