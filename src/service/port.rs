//! Is a TCP port free on this host, and the one message for when it is not.
use std::net::{Ipv4Addr, TcpListener};

/// True when nothing listens on `port`: binding 0.0.0.0:port succeeds (a
/// listener on any local address, loopback included, makes it fail). The
/// standard library sets SO_REUSEADDR, so TIME_WAIT leftovers of a stopped
/// service do not count as "in use".
pub fn port_is_free(port: u16) -> bool {
    TcpListener::bind((Ipv4Addr::UNSPECIFIED, port)).is_ok()
}

/// When a runtime's port was found taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortMoment {
    /// Before the service started (preflight, `Service::start`, verify): a
    /// program listening there would answer the health check and be
    /// measured in the service's place.
    BeforeStart,
    /// After the service stopped: something it started still holds it, or
    /// another program took it.
    AfterStop,
}

/// A runtime's port is in use. Every place that checks a port reports it
/// with this one message and its one remedy: find the listener with `ss`,
/// or give the runtime another port in the spec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "runtime {runtime}: port {port} {}; see what listens there with `ss -ltnp 'sport = :{port}'` \
     and stop it, or choose another port: set the runtime's `port:` in the spec to a free port or to `auto`",
    match moment {
        PortMoment::BeforeStart => "is already in use before the service started \
                                    (its health answer would come from that program, not from the service)",
        PortMoment::AfterStop => "is still in use after the service stopped",
    }
)]
pub struct PortInUse {
    pub runtime: String,
    pub port: u16,
    pub moment: PortMoment,
}

/// `Err(PortInUse)` when `port` of `runtime` is taken before its start.
pub fn check_port_free(runtime: &str, port: u16) -> Result<(), PortInUse> {
    if port_is_free(port) {
        Ok(())
    } else {
        Err(PortInUse {
            runtime: runtime.to_string(),
            port,
            moment: PortMoment::BeforeStart,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_port_is_not_free() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert!(!port_is_free(port));
        let err = check_port_free("go", port).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("runtime go: port {port} is already in use")),
            "{err}"
        );
        assert!(
            err.contains(&format!("`ss -ltnp 'sport = :{port}'`")),
            "{err}"
        );
        assert!(err.contains("`port:` in the spec"), "{err}");
        drop(l);
    }

    #[test]
    fn a_released_port_is_free() {
        // Below both the ephemeral range (where any outgoing connection of
        // the host may take a port let go) and runner's `port: auto` window
        // (20000 up, where other tests' services bind): only an explicit
        // bind takes a port there, so a port released here stays free.
        let ephemeral_low: u16 = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
            .ok()
            .and_then(|t| t.split_whitespace().next()?.parse().ok())
            .unwrap_or(32768);
        let top = ephemeral_low.min(20000);
        let first = 10000 + (std::process::id() % 5000) as u16;
        let (port, listener) = (first..top)
            .chain(1025..first)
            .find_map(|p| TcpListener::bind(("127.0.0.1", p)).ok().map(|l| (p, l)))
            .expect("a port below the ephemeral range and the auto window to bind");
        assert!(!port_is_free(port));
        drop(listener);
        assert!(port_is_free(port), "port {port} released but not free");
        assert_eq!(check_port_free("go", port), Ok(()));
    }
}
