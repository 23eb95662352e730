//! The open-loop schedule: when each request is *intended* to be sent.
//!
//! Request number g (counting from 0 over the whole run, all connections)
//! is due at `t(g)` after the run starts; connection c of N sends requests
//! c, c+N, c+2N, ... so the total rate is exact whatever the number of
//! connections. With a ramp the rate grows linearly from 0 to `rate` over
//! `ramp`: the cumulative count is rate*t^2/(2*ramp) during the ramp, then
//! grows by `rate` per second.

use std::time::{Duration, Instant};

/// Cumulative arrival curve of a constant rate with an optional linear ramp.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateCurve {
    pub rate: f64,
    pub ramp: Duration,
}

impl RateCurve {
    /// Requests due in [0, t): the inverse of [`RateCurve::time_of`].
    pub fn due_by(&self, t: Duration) -> f64 {
        let (t, ramp) = (t.as_secs_f64(), self.ramp.as_secs_f64());
        if t < ramp {
            self.rate * t * t / (2.0 * ramp)
        } else {
            self.rate * ramp / 2.0 + self.rate * (t - ramp)
        }
    }

    /// When request number `g` is due, from the start of the run.
    pub fn time_of(&self, g: u64) -> Duration {
        let (g, ramp) = (g as f64, self.ramp.as_secs_f64());
        let in_ramp = self.rate * ramp / 2.0;
        let secs = if g < in_ramp {
            (2.0 * g * ramp / self.rate).sqrt()
        } else {
            ramp + (g - in_ramp) / self.rate
        };
        Duration::from_secs_f64(secs)
    }

    /// Requests due in [from, to) measured from the start of the run.
    pub fn due_between(&self, from: Duration, to: Duration) -> u64 {
        (self.due_by(to).ceil() - self.due_by(from).ceil()).max(0.0) as u64
    }
}

/// One connection's walk through the schedule.
#[derive(Debug, Clone)]
pub struct ConnectionSchedule {
    curve: RateCurve,
    start: Instant,
    next: u64,
    stride: u64,
}

impl ConnectionSchedule {
    pub fn new(curve: RateCurve, start: Instant, connection: usize, connections: usize) -> Self {
        ConnectionSchedule {
            curve,
            start,
            next: connection as u64,
            stride: connections as u64,
        }
    }

    /// The intended send time of this connection's next request.
    pub fn next_due(&mut self) -> Instant {
        let due = self.start + self.curve.time_of(self.next);
        self.next += self.stride;
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_rate_is_exact_over_connections() {
        let curve = RateCurve {
            rate: 1000.0,
            ramp: Duration::ZERO,
        };
        let start = Instant::now();
        let end = start + Duration::from_secs(1);
        let mut count = 0;
        for c in 0..7 {
            let mut s = ConnectionSchedule::new(curve, start, c, 7);
            while s.next_due() < end {
                count += 1;
            }
        }
        assert_eq!(count, 1000);
        assert_eq!(
            curve.due_between(Duration::ZERO, Duration::from_secs(1)),
            1000
        );
    }

    #[test]
    fn ramp_is_inverse_of_cumulative_count() {
        let curve = RateCurve {
            rate: 500.0,
            ramp: Duration::from_secs(2),
        };
        for g in [0u64, 1, 10, 250, 499, 500, 501, 2000] {
            let t = curve.time_of(g);
            assert!((curve.due_by(t) - g as f64).abs() < 1e-6, "g={g}");
        }
        // Half the full-rate count during a linear ramp, then full rate.
        assert_eq!(
            curve.due_between(Duration::ZERO, Duration::from_secs(2)),
            500
        );
        assert_eq!(
            curve.due_between(Duration::from_secs(2), Duration::from_secs(3)),
            500
        );
    }
}
