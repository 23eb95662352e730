//! Showing [`Event`]s: a live line on a terminal ([`live`]), one plain line
//! per event otherwise ([`plain`]: cron and CI logs). It runs on the CLI's
//! main thread, fed by a channel from the executor's thread, so the
//! measuring code never prints (and the main thread may keep stderr locked).
use std::io::{IsTerminal, Write};
use std::sync::mpsc::Receiver;

use crate::exec::events::Event;

pub mod live;
pub mod plain;
pub mod time_left;

pub use plain::{plain_line, plain_loop};

/// Shows every event until the channel closes: the live line when stderr
/// is a terminal, plain lines on `out` otherwise.
pub fn report_events(rx: Receiver<Event>, out: &mut dyn Write) {
    if std::io::stderr().is_terminal() {
        live::live_loop(rx)
    } else {
        plain_loop(rx, out)
    }
}
