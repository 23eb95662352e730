//! Before a run: every remote host's fingerprint and the round trip to it,
//! for environment.json (and so for compare and history).
use std::thread;

use crate::plan::contract::hosts::{Host, Hosts};
use crate::remote::connect::install::own_binary;
use crate::remote::connect::session::Session;
use crate::remote::load_hosts::drive::best_ping;
use crate::remote::protocol::{Request, Response};
use crate::results::{HostEnvironment, HostInfo, HostRole};

/// One entry per remote host (none when everything runs here), found in parallel.
pub fn hosts_environment(hosts: &Hosts) -> Vec<HostEnvironment> {
    let remote: Vec<(HostRole, &Host)> = std::iter::once((HostRole::Service, &hosts.service))
        .chain(hosts.load.iter().map(|h| (HostRole::Load, h)))
        .filter(|(_, h)| h.ssh().is_some())
        .collect();
    thread::scope(|s| {
        let handles: Vec<_> = remote
            .iter()
            .map(|(role, host)| s.spawn(move || one(*role, host)))
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    })
}

fn one(role: HostRole, host: &Host) -> HostEnvironment {
    let mut entry = HostEnvironment {
        role,
        name: host.name.clone(),
        host: HostInfo::default(),
        fingerprint: String::new(),
        runner_sha256: own_binary().ok().map(|b| b.sha256.clone()),
        rtt_ms: None,
        clock_offset_ms: None,
        session_open_ms: None,
        error: None,
    };
    let target = host.ssh().expect("only remote hosts are fingerprinted");
    let found = Session::open(target).and_then(|mut s| {
        let info = match s.call(&Request::Fingerprint, "reading its fingerprint")? {
            Response::Fingerprint { host } => *host,
            other => return Err(s.unexpected(&other)),
        };
        let (rtt, offset) = best_ping(&mut s)?;
        Ok((info, rtt, offset, s.open_time))
    });
    match found {
        Ok((info, rtt, offset, open)) => {
            entry.fingerprint = info.fingerprint();
            entry.host = info;
            entry.rtt_ms = Some(rtt.as_secs_f64() * 1000.0);
            entry.clock_offset_ms = Some(offset as f64 / 1e6);
            entry.session_open_ms = Some(open.as_secs_f64() * 1000.0);
        }
        Err(e) => entry.error = Some(e.to_string()),
    }
    entry
}
