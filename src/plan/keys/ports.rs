//! Ports for the runtimes' services: fixed ones as written, `auto` ones chosen
//! free on this host.
//!
//! Auto ports come from *below* the kernel's ephemeral range
//! (`net.ipv4.ip_local_port_range`). A port chosen at plan time is only used
//! when its runtime starts, possibly half an hour later; meanwhile the load
//! generator and every other program on the host open outgoing connections
//! whose local ports the kernel picks from the ephemeral range, and any one of
//! them could take a port chosen there. Below that range only a program that
//! asks for a port by number can take it.
use std::collections::BTreeSet;
use std::io;
use std::net::{Ipv4Addr, TcpListener};
use std::ops::Range;

use crate::plan::PlanErrors;
use crate::spec::values::PortSpec;
use crate::spec::{LoadedSpec, Problem, SpecErrors};

/// Lowest port auto ports are chosen from: above the registered ports most
/// services use by default (databases, proxies, dev servers).
const AUTO_FLOOR: u16 = 20000;

/// The port of every runtime of `loaded`, in spec order (see [`choose_ports`]).
pub fn runtime_ports(loaded: &LoadedSpec) -> Result<Vec<u16>, PlanErrors> {
    Ok(runtime_and_dependency_ports(loaded)?.0)
}

/// The ports of the runtimes and of the dependencies, each in spec order,
/// chosen together so that no two of them share one.
pub fn runtime_and_dependency_ports(
    loaded: &LoadedSpec,
) -> Result<(Vec<u16>, Vec<u16>), PlanErrors> {
    let wanted: Vec<(&str, _)> = loaded
        .runtimes
        .iter()
        .map(|(name, rt)| (name.as_str(), rt.port))
        .chain(
            loaded
                .spec
                .dependencies
                .iter()
                .map(|(name, dep)| (name.as_str(), dep.port)),
        )
        .collect();
    let mut ports = choose_ports(&wanted).map_err(|e| {
        SpecErrors::one(
            Problem::new(
                &loaded.path.display().to_string(),
                format!("cannot find a free port on 127.0.0.1: {e}"),
            )
            .help("free some ports, or give each runtime a fixed `port:`"),
        )
    })?;
    let dependencies = ports.split_off(loaded.runtimes.len());
    Ok((ports, dependencies))
}

/// Chooses a port per runtime, in order. Every listener opened to prove a
/// port free is held until all are chosen, so two runtimes never get the same
/// port, and an auto port never repeats a fixed one.
pub fn choose_ports(runtimes: &[(&str, Option<PortSpec>)]) -> io::Result<Vec<u16>> {
    let fixed: BTreeSet<u16> = runtimes
        .iter()
        .filter_map(|(_, spec)| match spec {
            Some(PortSpec::Fixed(p)) => Some(*p),
            _ => None,
        })
        .collect();
    let window = auto_window(ephemeral_low());
    let mut next = window.start + start_offset(window.len());
    let mut held = Vec::new();
    let mut ports = Vec::new();
    for (_, spec) in runtimes {
        match spec {
            Some(PortSpec::Fixed(p)) => ports.push(*p),
            Some(PortSpec::Auto) | None => {
                let (listener, port) = hold_free_port(&window, &mut next, &fixed)?;
                ports.push(port);
                held.push(listener);
            }
        }
    }
    Ok(ports)
}

/// The ports auto ports are chosen from: `AUTO_FLOOR` up to the ephemeral
/// range, or (when that range starts too low to leave room) the whole
/// unprivileged range above the floor.
fn auto_window(ephemeral_low: u16) -> Range<u16> {
    if ephemeral_low > AUTO_FLOOR + 1000 {
        AUTO_FLOOR..ephemeral_low
    } else {
        AUTO_FLOOR..u16::MAX
    }
}

/// The first port of the kernel's ephemeral range (Linux's default when it
/// cannot be read).
fn ephemeral_low() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse().ok())
        .unwrap_or(32768)
}

/// Where in the window to start looking, different per process and moment,
/// so two runners planning at once do not race for the same first port.
fn start_offset(window_len: usize) -> u16 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let mixed = (std::process::id().wrapping_mul(2_654_435_761) ^ nanos) as usize;
    (mixed % window_len.max(1)) as u16
}

/// Walks the window from `next` (wrapping once) to the first port nobody
/// listens on, on any address, and returns it with its listener held.
fn hold_free_port(
    window: &Range<u16>,
    next: &mut u16,
    fixed: &BTreeSet<u16>,
) -> io::Result<(TcpListener, u16)> {
    for _ in 0..window.len() {
        let port = *next;
        *next = if port + 1 >= window.end {
            window.start
        } else {
            port + 1
        };
        if fixed.contains(&port) {
            continue;
        }
        if let Ok(listener) = TcpListener::bind((Ipv4Addr::UNSPECIFIED, port)) {
            return Ok((listener, port));
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AddrInUse,
        format!(
            "every port from {} to {} is in use",
            window.start,
            window.end - 1
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_ports_are_distinct_below_the_ephemeral_range_and_skip_fixed_ones() {
        let low = ephemeral_low();
        let wanted: Vec<(&str, Option<PortSpec>)> = vec![
            ("a", None),
            ("b", Some(PortSpec::Fixed(40000))),
            ("c", Some(PortSpec::Auto)),
            ("d", Some(PortSpec::Auto)),
        ];
        let ports = choose_ports(&wanted).unwrap();
        assert_eq!(ports[1], 40000);
        let auto = [ports[0], ports[2], ports[3]];
        assert_eq!(auto.iter().collect::<BTreeSet<_>>().len(), 3, "{auto:?}");
        for p in auto {
            assert!((AUTO_FLOOR..low.max(AUTO_FLOOR + 1001)).contains(&p), "{p}");
        }
    }

    #[test]
    fn a_port_in_use_is_skipped() {
        let window = 20000..20010;
        let taken = (20000..20010)
            .find_map(|p| TcpListener::bind((Ipv4Addr::UNSPECIFIED, p)).ok())
            .expect("a free port in 20000..20010");
        let taken_port = taken.local_addr().unwrap().port();
        let mut next = taken_port;
        let (_held, port) = hold_free_port(&window, &mut next, &BTreeSet::new()).unwrap();
        assert_ne!(port, taken_port);
        assert!(window.contains(&port));
    }

    #[test]
    fn the_window_stops_at_the_ephemeral_range_unless_it_starts_too_low() {
        assert_eq!(auto_window(32768), 20000..32768);
        assert_eq!(auto_window(1024), 20000..u16::MAX);
    }
}
