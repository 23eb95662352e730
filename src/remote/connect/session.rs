//! One SSH session running `runner remote` on a host: opened (installing
//! the binary first when that build is absent), asked, closed. Dropping a
//! session closes its stdin (the far side ends everything it started) and
//! ends the local `ssh` process, by its PID.
use std::io::{BufReader, Read};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::plan::contract::hosts::SshTarget;
use crate::remote::connect::install::{OwnBinary, install, own_binary, remote_path};
use crate::remote::connect::ssh::{command, quote};
use crate::remote::error::RemoteError;
use crate::remote::protocol::{PROTOCOL_VERSION, Request, Response, receive, send, unix_ns};

/// Exit status of the session command when this build is not on the host.
const ABSENT: i32 = 97;

/// How long a short call (hello, ping, fingerprint) may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(20);

enum Line {
    Msg(Response),
    Bad(String),
    Eof,
}

/// A live `runner remote` over `ssh`.
pub struct Session {
    pub host: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    stderr: Arc<Mutex<String>>,
    /// Whether this open copied the binary (for the report of what the SSH path cost).
    pub installed: bool,
    /// From spawning `ssh` to the `hello` answer.
    pub open_time: Duration,
}

impl Session {
    /// Connects, installing this build first when the host lacks it.
    pub fn open(target: &SshTarget) -> Result<Session, RemoteError> {
        let own = own_binary()?;
        let t0 = Instant::now();
        match Self::try_open(target, own)? {
            Some(mut s) => {
                s.open_time = t0.elapsed();
                Ok(s)
            }
            None => {
                install(target, own)?;
                let mut s = Self::try_open(target, own)?.ok_or_else(|| RemoteError::Install {
                    host: target.destination.clone(),
                    why: "the copied binary is still not executable there".into(),
                })?;
                s.installed = true;
                s.open_time = t0.elapsed();
                Ok(s)
            }
        }
    }

    /// `None` when the host does not have this build.
    fn try_open(target: &SshTarget, own: &OwnBinary) -> Result<Option<Session>, RemoteError> {
        let host = target.destination.clone();
        let path = quote(&remote_path(target, own));
        let script = format!("test -x {path} || exit {ABSENT}; exec {path} remote");
        let mut child = command(target, &script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|cause| RemoteError::SpawnSsh {
                host: host.clone(),
                cause,
            })?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        let stderr = Arc::new(Mutex::new(String::new()));
        {
            let stderr = stderr.clone();
            thread::spawn(move || {
                let mut text = String::new();
                let _ = BufReader::new(stderr_pipe).read_to_string(&mut text);
                *stderr.lock().unwrap_or_else(|p| p.into_inner()) = text;
            });
        }
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let line = match receive::<Response>(&mut r) {
                    Ok(Some(m)) => Line::Msg(m),
                    Ok(None) | Err(RemoteError::Io(_)) => {
                        let _ = tx.send(Line::Eof);
                        return;
                    }
                    Err(e) => Line::Bad(e.to_string()),
                };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let mut s = Session {
            host,
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            installed: false,
            open_time: Duration::ZERO,
        };
        match s.call(&Request::Hello, "opening the session") {
            Ok(Response::Hello { protocol, .. }) if protocol == PROTOCOL_VERSION => Ok(Some(s)),
            Ok(other) => Err(s.unexpected(&other)),
            Err(RemoteError::ConnectionLost { .. }) if s.exit_code() == Some(ABSENT) => Ok(None),
            Err(RemoteError::ConnectionLost { stderr, during, .. }) => match s.exit_code() {
                // ssh itself failed (255: connect, auth, host key) or the command did.
                Some(code) => Err(RemoteError::Ssh {
                    host: s.host.clone(),
                    status: format!("exit status {code}"),
                    stderr: stderr.trim().to_string(),
                }),
                // Killed by a signal: the connection went away while opening.
                None => Err(RemoteError::ConnectionLost {
                    host: s.host.clone(),
                    during,
                    stderr,
                }),
            },
            Err(e) => Err(e),
        }
    }

    /// Sends `request` and waits for its one answer.
    pub fn call(&mut self, request: &Request, during: &str) -> Result<Response, RemoteError> {
        self.send(request, during)?;
        let deadline = Instant::now() + CALL_TIMEOUT;
        loop {
            match self.next(deadline, during)? {
                Some(Response::Progress { .. }) => continue,
                Some(r) => return Ok(r),
                None => {
                    return Err(RemoteError::Timeout {
                        host: self.host.clone(),
                        seconds: CALL_TIMEOUT.as_secs(),
                        during: during.into(),
                    });
                }
            }
        }
    }

    pub fn send(&mut self, request: &Request, during: &str) -> Result<(), RemoteError> {
        let sent = match self.stdin.as_mut() {
            Some(stdin) => send(stdin, request).is_ok(),
            None => false,
        };
        if sent { Ok(()) } else { Err(self.lost(during)) }
    }

    /// The next answer before `deadline`: `Ok(None)` when none came in time.
    pub fn next(
        &mut self,
        deadline: Instant,
        during: &str,
    ) -> Result<Option<Response>, RemoteError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(Line::Msg(m)) => Ok(Some(m)),
            Ok(Line::Bad(what)) => Err(RemoteError::Unexpected {
                host: self.host.clone(),
                what,
            }),
            Ok(Line::Eof) | Err(RecvTimeoutError::Disconnected) => Err(self.lost(during)),
            Err(RecvTimeoutError::Timeout) => Ok(None),
        }
    }

    /// Round trip of one ping, and the remote clock minus the local clock
    /// at the midpoint (nanoseconds), for the window skew.
    pub fn ping(&mut self, seq: u64) -> Result<(Duration, i64), RemoteError> {
        let sent = Instant::now();
        let local_before = unix_ns();
        match self.call(&Request::Ping { seq }, "measuring the round trip")? {
            Response::Pong {
                seq: s,
                unix_ns: remote,
            } if s == seq => {
                let rtt = sent.elapsed();
                let mid = local_before + u64::try_from(rtt.as_nanos() / 2).unwrap_or(0);
                Ok((rtt, remote as i64 - mid as i64))
            }
            other => Err(self.unexpected(&other)),
        }
    }

    pub fn unexpected(&self, r: &Response) -> RemoteError {
        match r {
            Response::Error { message } => RemoteError::Refused {
                host: self.host.clone(),
                message: message.clone(),
            },
            other => RemoteError::Unexpected {
                host: self.host.clone(),
                what: format!("a `{}` answer", other.name()),
            },
        }
    }

    fn lost(&mut self, during: &str) -> RemoteError {
        // Give the stderr reader a moment: ssh prints why it lost the connection.
        let _ = self.wait_exit(Duration::from_millis(500));
        thread::sleep(Duration::from_millis(20));
        RemoteError::ConnectionLost {
            host: self.host.clone(),
            during: during.into(),
            stderr: self.stderr.lock().map(|s| s.clone()).unwrap_or_default(),
        }
    }

    fn exit_code(&mut self) -> Option<i32> {
        self.wait_exit(Duration::from_secs(2))
            .and_then(|s| s.code())
    }

    fn wait_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = send(&mut stdin, &Request::Bye);
        }
        if self.wait_exit(Duration::from_secs(3)).is_none() {
            // Our own child, by PID.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
