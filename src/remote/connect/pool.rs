//! The load hosts' sessions, kept open between loads for the whole run: a
//! load checks one out (a ping proves it still answers, else a new one is
//! opened), and gives it back only when the load went through, so a
//! session that failed is never used again. What a load then pays for SSH
//! is the pings that measure the clock offset, not a session open (about a
//! second per load on this project's busy 2-core host, ~0.6 s of it even
//! over a shared ControlMaster connection: sshd's own per-session work).
//!
//! The far side still ends everything when its session ends; a session
//! idle past its limit there (`server::IDLE_LIMIT`) fails the ping at
//! checkout and is replaced.
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use crate::plan::contract::hosts::SshTarget;
use crate::remote::connect::session::Session;
use crate::remote::error::RemoteError;

static IDLE: Mutex<BTreeMap<String, Session>> = Mutex::new(BTreeMap::new());

/// A live session to `target`: an idle one that answers a ping, else a new one.
pub fn checkout(target: &SshTarget) -> Result<Session, RemoteError> {
    let idle = IDLE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&target.destination);
    if let Some(mut s) = idle
        && s.ping(u64::MAX).is_ok()
    {
        // Reused: nothing was opened for this load.
        s.open_time = Duration::ZERO;
        s.installed = false;
        return Ok(s);
    }
    Session::open(target)
}

/// Keeps `session` for the next load to its host.
pub fn give_back(session: Session) {
    let mut idle = IDLE.lock().unwrap_or_else(|p| p.into_inner());
    // One per host: a second one (never expected) is closed.
    idle.insert(session.host.clone(), session);
}

/// Closes every idle session (each far side ends at its stdin's end).
pub fn close_all() {
    let sessions = std::mem::take(&mut *IDLE.lock().unwrap_or_else(|p| p.into_inner()));
    drop(sessions);
}
