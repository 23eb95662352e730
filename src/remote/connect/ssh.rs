//! The `ssh` command lines: OpenSSH does the connecting, authenticating and
//! host-key checking (its own config is honoured); runner adds only the
//! spec's options and settings that make a lost connection visible fast.
//!
//! One TCP connection per host for the whole run: every `ssh` of this
//! process shares an OpenSSH ControlMaster (`ControlMaster=auto`) whose
//! socket lives in a private folder of this process (`0700`, under the
//! temp dir), kept `ControlPersist` seconds after its last session, and
//! ended by [`end_masters`] when the run is over. A session then costs a
//! channel over the open connection instead of a TCP + key exchange +
//! authentication handshake (docs/hosts.md has the figures). Why not one
//! long-lived `runner remote` multiplexing every request: the load hosts'
//! sessions are opened per load and end with it (which is what makes "the
//! session closed, so stop everything" simple and safe); sharing the
//! connection underneath keeps that and removes the handshake.
use std::collections::BTreeSet;
use std::os::unix::fs::DirBuilderExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

use crate::plan::contract::hosts::SshTarget;

/// Seconds between keepalives, and how many may go unanswered: a dropped
/// path is noticed within about `INTERVAL * COUNT` seconds, on both sides.
const ALIVE_INTERVAL_S: u32 = 2;
const ALIVE_COUNT: u32 = 3;

/// Seconds a master connection stays after its last session: long enough
/// to bridge the gap between two loads, short enough that a runner killed
/// without [`end_masters`] leaves no connection behind for long.
const CONTROL_PERSIST_S: u32 = 15;

/// This process's folder for the control sockets (`None`: could not be
/// made; every `ssh` then opens its own connection).
fn control_dir() -> Option<&'static PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("runner-ssh-{}", std::process::id()));
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .or_else(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => Ok(()),
                _ => Err(e),
            })
            .ok()
            .map(|()| dir)
    })
    .as_ref()
}

/// The targets a master may have been opened for (for [`end_masters`]).
static USED: Mutex<BTreeSet<TargetKey>> = Mutex::new(BTreeSet::new());

type TargetKey = (String, Option<u16>, Option<PathBuf>, Option<PathBuf>);

/// Ends every master connection this process opened (`ssh -O exit`) and
/// removes the socket folder. Called when a run is over; harmless when
/// nothing was opened.
pub fn end_masters() {
    let used: Vec<TargetKey> = std::mem::take(&mut *USED.lock().unwrap_or_else(|p| p.into_inner()))
        .into_iter()
        .collect();
    for (destination, port, identity, known_hosts) in used {
        let target = SshTarget {
            destination,
            port,
            identity,
            known_hosts,
            dir: String::new(),
        };
        let mut cmd = base(&target);
        cmd.args(["-O", "exit"]).arg(&target.destination);
        let _ = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    if let Some(dir) = control_dir() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// `ssh [options] destination -- remote_command`, never prompting.
pub fn command(target: &SshTarget, remote_command: &str) -> Command {
    let mut cmd = base(target);
    // The destination was checked in the spec not to start with '-'.
    cmd.arg(&target.destination).arg(remote_command);
    cmd
}

/// `ssh` with every option but the destination and command.
fn base(target: &SshTarget) -> Command {
    let mut cmd = Command::new("ssh");
    if let Some(dir) = control_dir() {
        cmd.args(["-o", "ControlMaster=auto"])
            .arg("-o")
            .arg(format!("ControlPath={}/%C", dir.display()))
            .args(["-o", &format!("ControlPersist={CONTROL_PERSIST_S}")]);
        USED.lock().unwrap_or_else(|p| p.into_inner()).insert((
            target.destination.clone(),
            target.port,
            target.identity.clone(),
            target.known_hosts.clone(),
        ));
    }
    cmd.args(["-o", "BatchMode=yes"])
        .args(["-o", &format!("ServerAliveInterval={ALIVE_INTERVAL_S}")])
        .args(["-o", &format!("ServerAliveCountMax={ALIVE_COUNT}")])
        .args(["-o", "ConnectTimeout=10"])
        .args(["-o", "LogLevel=ERROR"]);
    if let Some(port) = target.port {
        cmd.arg("-p").arg(port.to_string());
    }
    if let Some(identity) = &target.identity {
        cmd.arg("-i")
            .arg(identity)
            .args(["-o", "IdentitiesOnly=yes"]);
    }
    if let Some(known) = &target.known_hosts {
        cmd.arg("-o")
            .arg(format!("UserKnownHostsFile={}", known.display()))
            .args(["-o", "StrictHostKeyChecking=yes"]);
    }
    cmd
}

/// `s` as one word for the remote POSIX shell.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn the_options_come_before_the_destination_and_the_command_last() {
        let t = SshTarget {
            destination: "root@10.213.0.11".into(),
            port: Some(2222),
            identity: Some(PathBuf::from("/k/id")),
            known_hosts: Some(PathBuf::from("/k/known")),
            dir: ".cache/runner".into(),
        };
        let cmd = command(&t, "true");
        let args: Vec<String> = cmd.get_args().map(|a| a.to_string_lossy().into()).collect();
        let at = |s: &str| args.iter().position(|a| a == s).unwrap();
        assert!(at("BatchMode=yes") < at("root@10.213.0.11"));
        assert_eq!(args[at("-p") + 1], "2222");
        assert_eq!(args[at("-i") + 1], "/k/id");
        assert!(args.contains(&"UserKnownHostsFile=/k/known".to_string()));
        assert!(args.contains(&"StrictHostKeyChecking=yes".to_string()));
        assert_eq!(args.last().unwrap(), "true");
        // One connection per host: every ssh shares this process's master.
        assert!(args.contains(&"ControlMaster=auto".to_string()));
        let path = args.iter().find(|a| a.starts_with("ControlPath=")).unwrap();
        assert!(path.ends_with("/%C"), "{path}");
        assert!(at("ControlMaster=auto") < at("root@10.213.0.11"));
    }

    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
    }
}
