//! The [`Plan`]: what every worker of a run shares once the clock starts.

use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use crate::load::config::StopCondition;
use crate::load::control::LoadControl;
use crate::load::engine::schedule::RateCurve;
use crate::load::http::connection::EncodedRequest;
use crate::load::http::mix::RequestMix;

/// What all workers share (read-only but for the ticket counter).
pub struct Plan {
    pub requests: Vec<EncodedRequest>,
    /// Which of `requests` each connection sends next.
    pub mix: RequestMix,
    /// The mix seed, also seeding `rand` placeholders (`dynamic`).
    pub seed: u64,
    /// `seq` placeholders count on from here (`dynamic::seq_base`).
    pub seq_base: u64,
    pub timeout: Duration,
    /// None: closed loop.
    pub curve: Option<RateCurve>,
    /// Request loops of the whole run: connections x HTTP/2 streams.
    pub connections: usize,
    pub stop: StopCondition,
    /// Closed loop: the connection ramp from `start` (zero: none), see
    /// [`crate::load::engine::ramp`].
    pub ramp: Duration,
    /// Run start (schedule origin), measured window start and end (if timed).
    pub start: Instant,
    pub measure_start: Instant,
    pub measure_end: Option<Instant>,
    /// Measured requests handed out so far (for `StopCondition::Requests`).
    pub tickets: AtomicU64,
    pub control: LoadControl,
}
