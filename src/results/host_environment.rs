//! environment.json `hosts`: every remote host's fingerprint and the
//! network path to it, measured before the run; and the rule by which a
//! change of any host makes two runs not comparable (`compare`, `history`).

use serde::{Deserialize, Serialize};

use crate::results::model::HostInfo;

/// What a host does in the run (written in lower case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HostRole {
    Service,
    Load,
}

impl std::fmt::Display for HostRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            HostRole::Service => "service",
            HostRole::Load => "load",
        })
    }
}

/// One remote host, as found before the run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct HostEnvironment {
    pub role: HostRole,
    /// The SSH destination, as in the spec.
    pub name: String,
    pub host: HostInfo,
    /// [`HostInfo::fingerprint`] of `host`: what must match between runs.
    pub fingerprint: String,
    /// sha256 of the runner binary that ran there.
    pub runner_sha256: Option<String>,
    /// Shortest ping round trip from the controlling host, milliseconds.
    pub rtt_ms: Option<f64>,
    /// The host's clock minus the controlling host's, milliseconds.
    pub clock_offset_ms: Option<f64>,
    /// Opening the SSH session, milliseconds (a binary copy included when one was needed).
    pub session_open_ms: Option<f64>,
    /// Why the host could not be fingerprinted (the run then stops at its first load).
    pub error: Option<String>,
}

/// What differs between two runs' remote hosts: a host added, removed or
/// with another fingerprint. The round trip is measured, not compared.
pub fn host_differences(a: &[HostEnvironment], b: &[HostEnvironment]) -> Vec<String> {
    let names = |hs: &[HostEnvironment]| -> Vec<String> {
        hs.iter()
            .map(|h| format!("{} {}", h.role, h.name))
            .collect()
    };
    let (na, nb) = (names(a), names(b));
    if na != nb {
        let show = |n: &[String]| {
            if n.is_empty() {
                "(none: all local)".to_string()
            } else {
                n.join(", ")
            }
        };
        return vec![format!("remote hosts: {} vs {}", show(&na), show(&nb))];
    }
    a.iter()
        .zip(b)
        .filter(|(x, y)| x.fingerprint != y.fingerprint)
        .map(|(x, y)| {
            format!(
                "{} host {} fingerprint: {:?} vs {:?}",
                x.role, x.name, x.fingerprint, y.fingerprint
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str, cpus: u32) -> HostEnvironment {
        let info = HostInfo {
            logical_cpus: cpus,
            kernel: "6.1".into(),
            ..Default::default()
        };
        HostEnvironment {
            role: HostRole::Load,
            name: name.into(),
            fingerprint: info.fingerprint(),
            host: info,
            runner_sha256: None,
            rtt_ms: Some(0.1),
            clock_offset_ms: None,
            session_open_ms: None,
            error: None,
        }
    }

    #[test]
    fn a_changed_added_or_rebuilt_host_is_a_difference_and_rtt_is_not() {
        let a = [host("u@10.0.0.2", 4)];
        let mut same = a.clone();
        same[0].rtt_ms = Some(9.0);
        assert!(host_differences(&a, &same).is_empty());
        let d = host_differences(&a, &[host("u@10.0.0.2", 8)]);
        assert_eq!(d.len(), 1);
        assert!(
            d[0].starts_with("load host u@10.0.0.2 fingerprint"),
            "{d:?}"
        );
        let d = host_differences(&a, &[host("u@10.0.0.2", 4), host("u@10.0.0.3", 4)]);
        assert!(d[0].starts_with("remote hosts:"), "{d:?}");
        assert_eq!(
            host_differences(&a, &[]),
            ["remote hosts: load u@10.0.0.2 vs (none: all local)"]
        );
    }
}
