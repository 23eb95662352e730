//! The TCP ports a service's processes listen on, read from /proc: the
//! sockets among their open files (`/proc/<pid>/fd/* -> socket:[inode]`)
//! matched against the LISTEN rows of `/proc/<pid>/net/tcp` and `tcp6` (the
//! tables of that process's network namespace).
//!
//! Why: a server that reads its port from its own config file (nginx,
//! lighttpd) starts fine on the wrong port, and all a health check sees is a
//! refused connection, as if the service were slow. Naming where it does
//! listen turns "raise health.timeout" into "make it read $PORT".
//! Written here rather than taken from a crate: procfs crates parse far more
//! than these two tables, and the parse below is a few lines tested on the
//! kernel's own format.
use std::collections::BTreeSet;
use std::fs;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};

/// The addresses `pids` listen on (TCP, IPv4 and IPv6), sorted, each once.
pub fn listening_addrs(pids: &[i32]) -> Vec<SocketAddr> {
    let inodes: BTreeSet<u64> = pids.iter().flat_map(|&pid| socket_inodes(pid)).collect();
    let Some(&first) = pids.first() else {
        return Vec::new();
    };
    if inodes.is_empty() {
        return Vec::new();
    }
    let mut found = BTreeSet::new();
    for table in ["tcp", "tcp6"] {
        let text = fs::read_to_string(format!("/proc/{first}/net/{table}")).unwrap_or_default();
        found.extend(
            listen_rows(&text)
                .into_iter()
                .filter(|(_, inode)| inodes.contains(inode))
                .map(|(addr, _)| addr),
        );
    }
    found.into_iter().collect()
}

/// The inodes of the sockets among `pid`'s open files.
fn socket_inodes(pid: i32) -> Vec<u64> {
    let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return Vec::new();
    };
    fds.filter_map(|fd| fs::read_link(fd.ok()?.path()).ok())
        .filter_map(|target| {
            let text = target.to_str()?;
            text.strip_prefix("socket:[")?
                .strip_suffix(']')?
                .parse()
                .ok()
        })
        .collect()
}

/// The LISTEN rows (state `0A`) of a `/proc/net/tcp` or `tcp6` table, as
/// (local address, socket inode).
fn listen_rows(table: &str) -> Vec<(SocketAddr, u64)> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.get(3) != Some(&"0A") {
                return None;
            }
            let addr = local_addr(fields.get(1)?)?;
            let inode = fields.get(9)?.parse().ok()?;
            Some((addr, inode))
        })
        .collect()
}

/// `0100007F:1F99` (IPv4) or 32 hex digits and a port (IPv6): the address
/// as the kernel prints it, in 32-bit words of host byte order (little
/// endian on the machines runner supports), the port in plain hex.
fn local_addr(text: &str) -> Option<SocketAddr> {
    let (ip, port) = text.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let words: Vec<u32> = (0..ip.len() / 8)
        .map(|i| u32::from_str_radix(ip.get(i * 8..i * 8 + 8)?, 16).ok())
        .collect::<Option<_>>()?;
    let ip = match words.as_slice() {
        [a] => Ipv4Addr::from(a.to_le_bytes()).into(),
        [a, b, c, d] => {
            let mut bytes = [0u8; 16];
            for (chunk, word) in bytes.chunks_mut(4).zip([a, b, c, d]) {
                chunk.copy_from_slice(&word.to_le_bytes());
            }
            Ipv6Addr::from(bytes).into()
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TCP: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F99 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 100 0 0 10 0
   1: 0100007F:55F6 0100007F:1F99 01 00000000:00000000 00:00000000 00000000     0        0 4343 1 0000000000000000 20 4 30 10 -1
   2: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4444 1 0000000000000000 100 0 0 10 0
";
    const TCP6: &str = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5151 1 0000000000000000 100 0 0 10 0
";

    #[test]
    fn reads_the_listen_rows_of_the_kernels_tables() {
        assert_eq!(
            listen_rows(TCP),
            vec![
                ("127.0.0.1:8089".parse().unwrap(), 4242),
                ("0.0.0.0:80".parse().unwrap(), 4444),
            ]
        );
        assert_eq!(
            listen_rows(TCP6),
            vec![("[::1]:8080".parse().unwrap(), 5151)]
        );
    }

    #[test]
    fn a_malformed_row_is_skipped() {
        assert!(
            listen_rows("header\n 0: nonsense 0A\n 1: 0100007F:zz x 0A a b c d e 1\n").is_empty()
        );
    }

    #[test]
    fn finds_a_socket_this_test_listens_on() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let found = listening_addrs(&[std::process::id() as i32]);
        assert!(found.contains(&addr), "{found:?} lacks {addr}");
    }
}
