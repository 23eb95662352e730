//! Is a TCP port free on this host?
use std::net::{Ipv4Addr, TcpListener};

/// True when nothing listens on `port`: binding 0.0.0.0:port succeeds (a
/// listener on any local address, loopback included, makes it fail). The
/// standard library sets SO_REUSEADDR, so TIME_WAIT leftovers of a stopped
/// service do not count as "in use".
pub fn port_is_free(port: u16) -> bool {
    TcpListener::bind((Ipv4Addr::UNSPECIFIED, port)).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_port_is_not_free() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert!(!port_is_free(port));
        drop(l);
        assert!(port_is_free(port));
    }
}
