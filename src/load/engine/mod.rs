//! The generator's engine: worker threads and their runtimes, the connect
//! phase (paced, not measured), the closed loop's connection ramp, the one
//! worker loop, the open loop's schedule paced by a timerfd per worker, and
//! the file-descriptor limit the connections need.
pub(crate) mod connect_phase;
pub(crate) mod drive;
pub(crate) mod fd_limit;
pub(crate) mod pacer;
pub(crate) mod plan;
pub(crate) mod ramp;
pub(crate) mod schedule;
pub(crate) mod threads;
pub(crate) mod timer;
pub(crate) mod worker;
