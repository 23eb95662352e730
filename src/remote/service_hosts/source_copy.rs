//! A runtime's sources on the service host: the files the build hashes
//! (`build::input_hash::source_files`: git's tracked and untracked-not-
//! ignored files, or a walk without build output) packed by the local `tar`
//! and unpacked by the remote one over an `ssh` stream, into a folder named
//! by their sha256, so an unchanged tree is never sent twice.
//!
//! Why tar over ssh and not rsync: tar is on every host that has a shell,
//! rsync is not; the folder-per-hash makes a delta protocol unnecessary
//! (a changed tree is a new folder, built once), and the copy is checked by
//! landing under a temporary name and renamed only once tar succeeded.
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::build::input_hash::{input_hash, source_files};
use crate::plan::contract::hosts::SshTarget;
use crate::remote::connect::ssh::{command, quote};
use crate::remote::error::RemoteError;

/// Where the sources of `runtime` with content hash `hash` live on the host
/// (relative: to the login's home).
pub fn remote_dir(target: &SshTarget, runtime: &str, hash: &str) -> String {
    format!(
        "{}/src/{runtime}-{}",
        target.dir.trim_end_matches('/'),
        &hash[..16]
    )
}

/// The far side's build cache and logs (relative: to the login's home).
pub fn state_dir(target: &SshTarget) -> String {
    format!("{}/state", target.dir.trim_end_matches('/'))
}

/// What [`copy_sources`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copied {
    /// The folder on the host.
    pub dir: String,
    /// False: that content was there already.
    pub sent: bool,
    pub files: usize,
}

/// Makes `dir`'s sources present on `target`; sends them only when that
/// content is not there yet.
pub fn copy_sources(target: &SshTarget, runtime: &str, dir: &Path) -> Result<Copied, RemoteError> {
    let host = target.destination.clone();
    let local = |why: String| RemoteError::Install {
        host: host.clone(),
        why,
    };
    let hash = input_hash(dir, &[], &BTreeMap::new()).map_err(|e| {
        local(format!(
            "cannot hash the sources of {runtime} in {}: {e}",
            dir.display()
        ))
    })?;
    let files = source_files(dir).map_err(|e| {
        local(format!(
            "cannot list the sources of {runtime} in {}: {e}",
            dir.display()
        ))
    })?;
    let remote = remote_dir(target, runtime, &hash);
    let quoted = quote(&remote);
    let probe = command(target, &format!("test -d {quoted}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|cause| RemoteError::SpawnSsh {
            host: host.clone(),
            cause,
        })?;
    match probe.status.code() {
        Some(0) => {
            return Ok(Copied {
                dir: remote,
                sent: false,
                files: files.len(),
            });
        }
        Some(1) => {}
        _ => {
            return Err(RemoteError::Ssh {
                host,
                status: probe.status.to_string(),
                stderr: String::from_utf8_lossy(&probe.stderr).trim().to_string(),
            });
        }
    }
    let mut tar = Command::new("tar")
        .arg("-C")
        .arg(dir)
        .args(["--null", "-T", "-", "-cf", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| local(format!("cannot run the local `tar`: {e}; install tar")))?;
    let tar_out = tar.stdout.take().expect("piped stdout");
    let script = format!(
        "set -e; umask 022; t={quoted}.part-$$; mkdir -p \"$t\"; tar -x -C \"$t\" -f -; \
         mv -T \"$t\" {quoted} 2>/dev/null || rm -rf \"$t\""
    );
    let ssh = command(target, &script)
        .stdin(Stdio::from(tar_out))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|cause| RemoteError::SpawnSsh {
            host: host.clone(),
            cause,
        })?;
    {
        let mut list = tar.stdin.take().expect("piped stdin");
        for f in &files {
            let _ = list.write_all(f.as_os_str().as_encoded_bytes());
            let _ = list.write_all(b"\0");
        }
    }
    let tar_done = tar.wait_with_output();
    let ssh_done = ssh
        .wait_with_output()
        .map_err(|cause| RemoteError::SpawnSsh {
            host: host.clone(),
            cause,
        })?;
    match tar_done {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            return Err(local(format!(
                "the local `tar` of {} failed ({}): {}",
                dir.display(),
                o.status,
                String::from_utf8_lossy(&o.stderr).trim()
            )));
        }
        Err(e) => return Err(local(format!("the local `tar` failed: {e}"))),
    }
    if !ssh_done.status.success() {
        return Err(local(format!(
            "unpacking into {remote} failed ({}): {}; check that {} is writable there and has `tar`",
            ssh_done.status,
            String::from_utf8_lossy(&ssh_done.stderr).trim(),
            target.dir
        )));
    }
    Ok(Copied {
        dir: remote,
        sent: true,
        files: files.len(),
    })
}
