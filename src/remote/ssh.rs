//! The `ssh` command lines: OpenSSH does the connecting, authenticating and
//! host-key checking (its own config is honoured); runner adds only the
//! spec's options and settings that make a lost connection visible fast.
use std::process::Command;

use crate::plan::hosts::SshTarget;

/// Seconds between keepalives, and how many may go unanswered: a dropped
/// path is noticed within about `INTERVAL * COUNT` seconds, on both sides.
const ALIVE_INTERVAL_S: u32 = 2;
const ALIVE_COUNT: u32 = 3;

/// `ssh [options] destination -- remote_command`, never prompting.
pub fn command(target: &SshTarget, remote_command: &str) -> Command {
    let mut cmd = Command::new("ssh");
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
    // The destination was checked in the spec not to start with '-'.
    cmd.arg(&target.destination).arg(remote_command);
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
    }

    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
    }
}
