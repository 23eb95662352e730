//! [`RemoteError`]: why a remote host could not be reached or used.
use std::io;

/// What went wrong with a host reached over SSH. Every message names the
/// host (its SSH destination) and says what to check.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error(
        "cannot run `ssh` for {host}: {cause}; install OpenSSH's client (apt-get install openssh-client)"
    )]
    SpawnSsh { host: String, cause: io::Error },
    #[error(
        "ssh to {host} failed ({status}): {stderr}; check that `ssh {host}` works non-interactively \
         (key in the agent or `identity:`, host key in known_hosts)"
    )]
    Ssh {
        host: String,
        status: String,
        stderr: String,
    },
    #[error(
        "the SSH connection to {host} was lost {during}{}: the remote side stops what it started; \
         check the network path and rerun with `runner exec --resume`",
        stderr_tail(stderr)
    )]
    ConnectionLost {
        host: String,
        during: String,
        stderr: String,
    },
    #[error("cannot copy the runner binary to {host}: {why}")]
    Install { host: String, why: String },
    #[error("cannot read this runner's own binary {path}: {cause}")]
    OwnBinary { path: String, cause: io::Error },
    #[error("{host} answered something unexpected: {what}; are both sides the same runner build?")]
    Unexpected { host: String, what: String },
    #[error("{host} refused: {message}")]
    Refused { host: String, message: String },
    #[error("no answer from {host} within {seconds} s {during}; the remote side is stopped")]
    Timeout {
        host: String,
        seconds: u64,
        during: String,
    },
    /// A malformed line or histogram log; the host is filled in by the caller.
    #[error("protocol error: {0}")]
    Protocol(String),
    #[error(
        "cannot read the CA file {path} to send it to the load hosts: {cause}; check the spec's \
         `tls.ca` (or that the run's tls/ca.pem was not removed)"
    )]
    CaFile { path: String, cause: io::Error },
    #[error("cannot talk to the controlling runner: {0}")]
    Io(#[from] io::Error),
}

fn stderr_tail(stderr: &str) -> String {
    let s = stderr.trim();
    if s.is_empty() {
        String::new()
    } else {
        format!(" (ssh said: {})", s.lines().last().unwrap_or(s))
    }
}

impl RemoteError {
    pub fn protocol(what: impl Into<String>) -> RemoteError {
        RemoteError::Protocol(what.into())
    }
}
