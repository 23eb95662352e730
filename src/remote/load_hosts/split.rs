//! One load split across several load hosts: the connections (closed loop)
//! or the rate and connections (open loop), as evenly as whole numbers allow.
use crate::load::{Arrival, LoadConfig, StopCondition};

/// Why a load cannot be split.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "cannot split {connections} connection(s) across {hosts} load hosts: every host needs at \
     least one; raise the concurrency or declare fewer load hosts"
)]
pub struct SplitError {
    pub connections: usize,
    pub hosts: usize,
}

/// `n` shares of `total`, the first `total % n` one larger.
fn shares(total: u64, n: usize) -> Vec<u64> {
    let n64 = n as u64;
    (0..n64)
        .map(|i| total / n64 + u64::from(i < total % n64))
        .collect()
}

/// `config` as `hosts` configurations whose sum is `config`. Each host's mix
/// seed differs, so the hosts do not send the same sequence of requests.
pub fn split(config: &LoadConfig, hosts: usize) -> Result<Vec<LoadConfig>, SplitError> {
    let connections = config.arrival.connections();
    if hosts == 0 || connections < hosts {
        return Err(SplitError { connections, hosts });
    }
    let conns = shares(connections as u64, hosts);
    let stops: Vec<StopCondition> = match config.stop {
        StopCondition::Duration(d) => vec![StopCondition::Duration(d); hosts],
        StopCondition::Requests(n) => shares(n, hosts)
            .into_iter()
            .map(|k| StopCondition::Requests(k.max(1)))
            .collect(),
    };
    Ok((0..hosts)
        .map(|i| {
            let c = conns[i] as usize;
            let mut part = config.clone();
            part.arrival = match &config.arrival {
                Arrival::Closed { .. } => Arrival::Closed { connections: c },
                Arrival::Open { rate, ramp, .. } => Arrival::Open {
                    rate: rate * c as f64 / connections as f64,
                    connections: c,
                    ramp: *ramp,
                },
            };
            part.stop = stops[i];
            part.threads = config.threads.min(c).max(1);
            part.mix_seed = config.mix_seed.wrapping_add(i as u64);
            // The hosts connect at once: their shares of the pacing add up to
            // the declared rate the service's accept queue sees.
            part.connect_rate = config.connect_rate * c as f64 / connections as f64;
            part
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::RequestSpec;

    fn closed(c: usize) -> LoadConfig {
        LoadConfig::closed("127.0.0.1:1".parse().unwrap(), RequestSpec::get("/"), c)
    }

    #[test]
    fn connections_add_up_and_differ_by_at_most_one() {
        let parts = split(&closed(7), 3).unwrap();
        let c: Vec<usize> = parts.iter().map(|p| p.arrival.connections()).collect();
        assert_eq!(c, [3, 2, 2]);
        let seeds: Vec<u64> = parts.iter().map(|p| p.mix_seed).collect();
        assert_eq!(seeds, [1, 2, 3]);
    }

    #[test]
    fn the_open_loop_rate_follows_the_connections() {
        let mut c = closed(4);
        c.arrival = Arrival::Open {
            rate: 1000.0,
            connections: 4,
            ramp: None,
        };
        let parts = split(&c, 2).unwrap();
        let rates: f64 = parts
            .iter()
            .map(|p| match p.arrival {
                Arrival::Open { rate, .. } => rate,
                Arrival::Closed { .. } => unreachable!(),
            })
            .sum();
        assert!((rates - 1000.0).abs() < 1e-9);
        let pacing: f64 = parts.iter().map(|p| p.connect_rate).sum();
        assert!((pacing - c.connect_rate).abs() < 1e-9, "{pacing}");
    }

    #[test]
    fn fewer_connections_than_hosts_is_refused() {
        assert_eq!(
            split(&closed(1), 2).unwrap_err(),
            SplitError {
                connections: 1,
                hosts: 2
            }
        );
    }
}
