//! The connection ramp of a closed loop (`load.ramp`, `runner load --ramp`
//! without `--rate`): after the connect phase, the connections start
//! sending one after another, connection k of N at `ramp * k / N`, so the
//! load grows linearly from 1 to N connections over the ramp, as JMeter's
//! ramp-up starts its threads (the 2020 study ramped to 100 over 10 s).
//! All N connections are opened in the connect phase; a connection that
//! has not joined yet sits idle. The ramp is not measured: the window
//! starts when it ends (after the run's own warmup, if any), with every
//! connection sending; only the requests the ramp sent are counted
//! ([`RampStats`]).
//!
//! Times are whole nanoseconds, rounded up, so that a connection has
//! always joined by the time [`active_at`] counts it.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// What the ramp did, beside the window's report (never in its counts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RampStats {
    /// Length of the ramp asked for.
    pub seconds: f64,
    /// Connections sending when the ramp ended: all of them.
    pub connections: usize,
    /// Requests sent during the ramp (answered or not), outside the window.
    pub requests: u64,
}

/// When connection `connection` (of `connections`) sends its first request,
/// from the start of the run's clock: `ramp * connection / connections`.
pub fn joins_at(connection: usize, connections: usize, ramp: Duration) -> Duration {
    if connections == 0 || ramp.is_zero() {
        return Duration::ZERO;
    }
    let ns = ramp.as_nanos() * connection as u128;
    let n = connections as u128;
    Duration::from_nanos(u64::try_from(ns.div_ceil(n)).unwrap_or(u64::MAX))
}

/// Connections sending at `t` after the start of the run's clock: 1 at the
/// start, growing linearly, all of them from `ramp * (N - 1) / N` on. The
/// inverse of [`joins_at`], which the tests check it against.
#[cfg(test)]
fn active_at(t: Duration, connections: usize, ramp: Duration) -> usize {
    if ramp.is_zero() || t >= ramp {
        return connections;
    }
    let joined = t.as_nanos() * connections as u128 / ramp.as_nanos();
    (joined as usize + 1).min(connections)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEN_S: Duration = Duration::from_secs(10);

    #[test]
    fn connections_join_linearly_from_one_to_all() {
        // The study's shape: 100 connections over 10 s, one every 100 ms.
        assert_eq!(joins_at(0, 100, TEN_S), Duration::ZERO);
        assert_eq!(joins_at(1, 100, TEN_S), Duration::from_millis(100));
        assert_eq!(joins_at(50, 100, TEN_S), Duration::from_secs(5));
        assert_eq!(joins_at(99, 100, TEN_S), Duration::from_millis(9900));
        assert_eq!(active_at(Duration::ZERO, 100, TEN_S), 1);
        assert_eq!(active_at(Duration::from_millis(99), 100, TEN_S), 1);
        assert_eq!(active_at(Duration::from_millis(100), 100, TEN_S), 2);
        assert_eq!(active_at(Duration::from_secs(5), 100, TEN_S), 51);
        assert_eq!(active_at(Duration::from_millis(9900), 100, TEN_S), 100);
        assert_eq!(active_at(TEN_S, 100, TEN_S), 100);
        assert_eq!(active_at(Duration::from_secs(60), 100, TEN_S), 100);
    }

    #[test]
    fn every_connection_has_joined_when_it_is_counted() {
        // Uneven divisions (7 connections over 1 s, 3 over 10 ns) round up.
        for (connections, ramp) in [
            (7, Duration::from_secs(1)),
            (3, Duration::from_nanos(10)),
            (1000, Duration::from_millis(1234)),
        ] {
            let mut previous = Duration::ZERO;
            for k in 0..connections {
                let at = joins_at(k, connections, ramp);
                assert!(at >= previous && at < ramp, "k={k} of {connections}");
                assert_eq!(
                    active_at(at, connections, ramp),
                    k + 1,
                    "k={k} of {connections}"
                );
                if let Some(before) = at.checked_sub(Duration::from_nanos(1)) {
                    assert!(active_at(before, connections, ramp) <= k, "k={k}");
                }
                previous = at;
            }
        }
    }

    #[test]
    fn no_ramp_starts_everything_at_once() {
        assert_eq!(joins_at(5, 10, Duration::ZERO), Duration::ZERO);
        assert_eq!(active_at(Duration::ZERO, 10, Duration::ZERO), 10);
        assert_eq!(active_at(Duration::ZERO, 1, TEN_S), 1);
    }
}
