//! A service's log, bounded: the child writes into a pipe, and a reader
//! thread keeps the first `cap` bytes (written to the file as they come, so
//! the start of the log is readable live, training evidence included) and a
//! ring of the last `cap` bytes (written after the head when the service's
//! output ends: at its stop, or at its crash, so a failure's last lines
//! survive). What falls between is dropped and counted.
//!
//! Without it a chatty service (1 MB of log every 10 requests) put 3.5 GB
//! into the run directory in a 7-second cell. Written here rather than
//! taken from a crate: it is a pipe, a thread and a `VecDeque`, and the
//! head-and-tail policy with its marker line is this runner's own.
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::process::tail;

/// Bytes read from the pipe at a time.
const CHUNK: usize = 64 * 1024;
/// Asked of the kernel for the pipe (default 64 KiB), so that a burst of
/// output does not block the service while the reader is off the CPU.
const PIPE_BYTES: libc::c_int = 1 << 20;
/// At most this much of the ring is searched for the last lines.
const TAIL_WINDOW: usize = 16 * 1024;

/// The log of one start of a service.
pub struct CappedLog {
    state: Arc<Mutex<State>>,
    /// Receives once the service's output ended and the tail was written.
    ended: Receiver<()>,
    path: PathBuf,
}

struct State {
    file: File,
    cap: u64,
    head_written: u64,
    tail: VecDeque<u8>,
    dropped: u64,
    /// The tail is in the file; anything later is dropped.
    closed: bool,
}

impl State {
    fn take(&mut self, mut bytes: &[u8]) {
        if self.closed {
            self.dropped += bytes.len() as u64;
            return;
        }
        let head_room = self.cap.saturating_sub(self.head_written) as usize;
        if head_room > 0 {
            let now = bytes.len().min(head_room);
            // A log that cannot be written is not worth failing a run for:
            // the bytes are counted as dropped instead.
            match self.file.write_all(&bytes[..now]) {
                Ok(()) => self.head_written += now as u64,
                Err(_) => self.dropped += now as u64,
            }
            bytes = &bytes[now..];
        }
        self.tail.extend(bytes);
        let excess = self.tail.len().saturating_sub(self.cap as usize);
        if excess > 0 {
            self.tail.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    fn write_tail(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        if self.dropped > 0 {
            let _ = writeln!(
                self.file,
                "\n=== runner: {} bytes of this log dropped here (log cap: the first and the last {} bytes are kept) ===",
                self.dropped, self.cap
            );
        }
        let (a, b) = self.tail.as_slices();
        let _ = self.file.write_all(a).and_then(|()| self.file.write_all(b));
        let _ = self.file.flush();
        self.tail = VecDeque::new();
    }
}

impl CappedLog {
    /// Starts the reader over a new pipe whose write end, given twice, is the
    /// child's stdout and stderr; output goes to `file` (at `path`).
    pub fn start(file: File, path: &Path, cap: u64) -> io::Result<(CappedLog, Stdio, Stdio)> {
        let (mut reader, writer) = io::pipe()?;
        grow_pipe(&writer);
        let stderr = writer.try_clone()?;
        let state = Arc::new(Mutex::new(State {
            file,
            cap,
            head_written: 0,
            tail: VecDeque::new(),
            dropped: 0,
            closed: false,
        }));
        let (tx, ended) = channel();
        let shared = state.clone();
        std::thread::Builder::new()
            .name("service-log".into())
            .spawn(move || {
                let mut buf = vec![0u8; CHUNK];
                loop {
                    match reader.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => lock(&shared).take(&buf[..n]),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(_) => break,
                    }
                }
                lock(&shared).write_tail();
                let _ = tx.send(());
            })?;
        Ok((
            CappedLog {
                state,
                ended,
                path: path.to_path_buf(),
            },
            writer.into(),
            stderr.into(),
        ))
    }

    /// Bytes dropped so far.
    pub fn dropped_bytes(&self) -> u64 {
        lock(&self.state).dropped
    }

    /// The last `lines` lines of the log as the service wrote them, from the
    /// ring while the service runs (the file holds only the head then).
    pub fn tail(&self, lines: usize) -> String {
        let state = lock(&self.state);
        if state.tail.is_empty() {
            drop(state);
            return tail(&self.path, lines);
        }
        let skip = state.tail.len().saturating_sub(TAIL_WINDOW);
        let bytes: Vec<u8> = state.tail.iter().skip(skip).copied().collect();
        drop(state);
        let text = String::from_utf8_lossy(&bytes);
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// Waits up to `wait` for the output to end (the service and everything
    /// holding its stdout gone), then writes the tail whatever happened;
    /// returns the bytes dropped.
    pub fn finish(&self, wait: Duration) -> u64 {
        let _ = self.ended.recv_timeout(wait);
        let mut state = lock(&self.state);
        state.write_tail();
        state.dropped
    }
}

/// The state stays usable even if a holder panicked: it is a byte buffer.
fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

fn grow_pipe(writer: &io::PipeWriter) {
    use std::os::fd::AsRawFd;
    // SAFETY: F_SETPIPE_SZ on a pipe fd we own; failure (a lower
    // /proc/sys/fs/pipe-max-size) only leaves the default size.
    unsafe {
        libc::fcntl(writer.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_BYTES);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// A capped log of what `sh -c script` prints, as a service's would be.
    fn log_of(cap: u64, script: &str) -> (String, u64) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.log");
        let file = File::create(&path).unwrap();
        let (log, stdout, stderr) = CappedLog::start(file, &path, cap).unwrap();
        let status = Command::new("sh")
            .args(["-c", script])
            .stdout(stdout)
            .stderr(stderr)
            .status()
            .unwrap();
        assert!(status.success());
        let dropped = log.finish(Duration::from_secs(5));
        (std::fs::read_to_string(&path).unwrap(), dropped)
    }

    #[test]
    fn a_small_log_is_kept_whole() {
        let (text, dropped) = log_of(100, "echo one; echo two >&2");
        assert_eq!((text.as_str(), dropped), ("one\ntwo\n", 0));
    }

    #[test]
    fn a_log_within_head_and_tail_is_kept_whole_without_a_marker() {
        let (text, dropped) = log_of(4, "printf abcdef");
        assert_eq!((text.as_str(), dropped), ("abcdef", 0));
    }

    #[test]
    fn the_middle_of_a_long_log_is_dropped_and_counted() {
        let (text, dropped) = log_of(
            4,
            "printf HEAD; printf middle-; printf more- >&2; printf TAIL",
        );
        assert_eq!(dropped, 12);
        assert!(
            text.starts_with("HEAD\n=== runner: 12 bytes of this log dropped here"),
            "{text}"
        );
        assert!(text.ends_with("===\nTAIL"), "{text}");
    }

    #[test]
    fn the_tail_is_read_from_memory_while_the_service_runs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.log");
        let file = File::create(&path).unwrap();
        let (log, stdout, stderr) = CappedLog::start(file, &path, 6).unwrap();
        let mut child = Command::new("sh")
            .args([
                "-c",
                "printf 'head\\nline 1\\nline 2\\nlast\\n'; exec sleep 30",
            ])
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .unwrap();
        let seen = (0..500).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            log.tail(1) == "last"
        });
        let _ = child.kill();
        let _ = child.wait();
        assert!(seen, "{:?}", log.tail(3));
        // Only the head is in the file while it runs; the tail joins it at the end.
        log.finish(Duration::from_secs(5));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("head\nl") && text.ends_with("last\n"),
            "{text}"
        );
    }
}
